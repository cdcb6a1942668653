"""The clause-coverage table (docs/clause-coverage.md) is current, its inputs
are sound, and every clause of sections 3-6 of the five rules files is tested
or not applicable -- except the committed OPEN list, which may only shrink.

When this fails: run ``python scripts/clause_coverage.py`` and commit the
table; if a clause became covered, remove it from OPEN; if one regressed, fix
the test or the code (do not add it to OPEN).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from scripts import clause_coverage as cc

# The shared rules folder sits beside the checkout in CI (../shared/rules);
# PUNTO_RULES_DIR points elsewhere (e.g. from a git worktree).
RULES = Path(os.environ.get("PUNTO_RULES_DIR", cc.ROOT.parent / "shared" / "rules"))

# Clauses of sections 3-6 neither tested nor marked not applicable.  Empty:
# the audit is closed; a clause that opens again is a regression
# to fix, not an entry to add here.
OPEN: frozenset[tuple[str, str]] = frozenset()


@pytest.fixture(scope="module")
def coverage() -> cc.Coverage:
    return cc.build()


def test_clause_coverage_the_committed_clause_list_has_every_numbered_clause() -> None:
    rules = cc.load_clauses()
    counts = {name[:3]: len(r.clauses) for name, r in rules.items()}
    # The audit of 2026-11-26 counted 477: 127, 58, 127, 47, 118.
    assert counts == {"000": 127, "001": 58, "002": 127, "003": 47, "004": 118}
    for r in rules.values():
        assert set(r.sections) == {c.split(".")[0] for c in r.clauses}
        assert all(r.sections.values()), r.name


@pytest.mark.skipif(not RULES.is_dir(), reason=f"no rules folder at {RULES}")
def test_clause_coverage_the_committed_clause_list_is_the_rules_folders() -> None:
    extracted = cc.extract_all(RULES)
    assert cc.dump_clauses(extracted) == cc.CLAUSES.read_text("utf-8"), (
        "docs/clauses.json differs from the rules folder: "
        f"run `python scripts/clause_coverage.py --extract {RULES}` and commit"
    )


def test_clause_coverage_every_game_has_its_rules_file(coverage: cc.Coverage) -> None:
    assert sorted(coverage.rows) == sorted(
        [
            "tiger-baccarat",
            "tiger-no-commission",
            "tiger-buffalo",
            "baccarat-tournament",
            "dragon-tiger",
        ]
    )
    for gid, rows in coverage.rows.items():
        rules = coverage.rules[coverage.games[gid].rules_file]
        assert [row.clause for row in rows] == sorted(rules.clauses, key=cc.clause_key)


def test_clause_coverage_inputs_have_no_problems(coverage: cc.Coverage) -> None:
    # Pointers that resolve, citations and test names of clauses that exist,
    # nothing both not applicable and implemented.
    assert coverage.problems == []


def test_clause_coverage_every_not_applicable_clause_gives_its_reason() -> None:
    for gid, status in cc.load_status().items():
        for clause, reason in status.not_applicable.items():
            assert len(reason.split()) >= 4, f"{gid} {clause}: say why it is not applicable"


def test_clause_coverage_the_committed_table_is_current(coverage: cc.Coverage) -> None:
    assert cc.render(coverage) == cc.OUTPUT.read_text("utf-8"), (
        "docs/clause-coverage.md is stale: run `python scripts/clause_coverage.py` and commit"
    )


def test_clause_coverage_sections_3_to_6_tested_or_not_applicable(coverage: cc.Coverage) -> None:
    open_now = cc.failing(coverage)
    regressed = sorted(open_now - OPEN, key=lambda p: (p[0], cc.clause_key(p[1])))
    covered = sorted(OPEN - open_now, key=lambda p: (p[0], cc.clause_key(p[1])))
    assert not regressed, f"clauses of sections 3-6 neither tested nor not applicable: {regressed}"
    assert not covered, f"now covered: remove from OPEN in {__file__}: {covered}"


# -- how the generator reads its inputs ------------------------------------------------------


@pytest.mark.parametrize(
    ("rest", "clauses"),
    [
        ("5_17_1_withdrawal_returns_only_undecided_wagers", ["5.17.1"]),
        ("5_17_power_failure", ["5.17"]),
        ("5_18_1_and_5_18_2_differential", ["5.18.1", "5.18.2"]),
        ("4_1_3_to_4_1_6_each_layout", ["4.1.3", "4.1.4", "4.1.5", "4.1.6"]),
        ("5_6_and_5_12_previous_rounds_stand", ["5.6", "5.12"]),
        ("4_3_small_tiger_pays_22_to_1", ["4.3"]),
        ("every_wager_and_event", []),
    ],
)
def test_clause_coverage_test_names_give_their_clauses(rest: str, clauses: list[str]) -> None:
    assert cc.clauses_in_name(rest) == clauses


def test_clause_coverage_names_and_markers_are_read_without_running(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(
        "import pytest\n"
        "def test_dragon_tiger_5_11_1_two_cards_set_aside(): ...\n"
        "def test_dragon_tiger_4_pay_tables(): ...\n"
        '@pytest.mark.clause("tiger-baccarat", "5.6", "5.7.1")\n'
        "def test_mbs_play_on(): ...\n"
        "class TestGroup:\n"
        "    def test_tiger_buffalo_5_15_chips(self): ...\n",
        "utf-8",
    )
    found = cc.collect_tests(["dragon-tiger", "tiger-baccarat", "tiger-buffalo"], tmp_path)
    assert found == {
        ("dragon-tiger", "5.11.1"): [
            "test_sample.py::test_dragon_tiger_5_11_1_two_cards_set_aside"
        ],
        ("tiger-baccarat", "5.6"): ["test_sample.py::test_mbs_play_on"],
        ("tiger-baccarat", "5.7.1"): ["test_sample.py::test_mbs_play_on"],
        ("tiger-buffalo", "5.15"): ["test_sample.py::test_tiger_buffalo_5_15_chips"],
    }


def test_clause_coverage_toml_citations_are_read_from_any_table(tmp_path: Path) -> None:
    (tmp_path / "g.toml").write_text(
        'id = "g"\ntitle = "G"\nrules_file = "x.txt"\nversion = "2"\n'
        'pair_rule = { default = "rank", clause = "1.21, 1.33" }\n'
        '[wagers.tie]\nclauses = ["1.30", "4.1.3"]\npays = { tie = "8 to 1" }\n'
        '[grants]\nwithdrawal = ["5.8.1", "5.17.1"]\n'
        '[insurance]\nrows = [{ pays = "3 to 2", clause = "4.1.15, 4.2.1(a)" }]\n',
        "utf-8",
    )
    cited = cc.load_games(tmp_path)["g"].cited
    assert sorted(cited, key=cc.clause_key) == [
        "1.21",
        "1.30",
        "1.33",
        "4.1.3",
        "4.1.15",
        "4.2.1",
        "5.8.1",
        "5.17.1",
    ]
    assert cited["5.8.1"] == ["g.toml [grants] withdrawal"]
    assert cited["1.30"] == ["g.toml [wagers] tie"]


def test_clause_coverage_pointers_must_name_what_the_file_defines() -> None:
    assert cc.pointer_problem("src/punto/table/round.py:Round.reduce_bet") is None
    assert cc.pointer_problem("src/punto/rules/cards.py:Rank.points") is None
    assert cc.pointer_problem("src/punto/table/round.py:Round.no_such") is not None
    assert cc.pointer_problem("src/punto/nowhere.py:x") is not None


def test_clause_coverage_a_lead_in_is_covered_by_its_sub_clauses() -> None:
    rules = {
        "r.txt": cc.RulesFile(
            "r.txt",
            {"5": "Irregularities"},
            {
                "5.8": "Where it is not possible to ascertain the drawn order:",
                "5.8.1": "During the initial deal, the round of play shall be void.",
                "5.8.2": "After the initial deal, the Pit Manager shall determine the order.",
                "5.9": "The cards may be replaced.",
            },
        )
    }
    games = {"g": cc.GameData("g", "G", "r.txt", {"5.8.1": ["x"], "5.8.2": ["y"], "5.9": ["z"]})}
    tests = {("g", "5.8.1"): ["t1"], ("g", "5.8.2"): ["t2"]}
    coverage = cc.build(rules, games, {}, tests)
    status = {row.clause: row.status for row in coverage.rows["g"]}
    assert status == {"5.8": cc.TESTED, "5.8.1": cc.TESTED, "5.8.2": cc.TESTED, "5.9": cc.UNTESTED}
    assert cc.failing(coverage) == {("g", "5.9")}
