"""``punto odds`` and ``punto insurance`` from the command line."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from punto.analysis.composition import Composition
from punto.analysis.plan import kind_counts
from punto.analysis.removal import effects_of_removal
from punto.cli import main
from punto.rules.games import get_game
from punto.rules.wagers import KINDS


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_odds_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "odds", "tiger-baccarat", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) >= {"game", "layout", "decks", "counts", "total_combinations", "wagers"}
    assert (data["game"], data["layout"], data["decks"]) == ("tiger-baccarat", None, 8)
    assert data["total_combinations"] == Composition.of_decks(8).sequences
    banker = data["wagers"]["banker"]
    assert set(banker) >= {"return", "house_edge", "return_exact", "std_dev", "hit_frequency"}
    assert f"{banker['house_edge']:.4%}" == "1.0579%"
    win = banker["events"][0]
    assert win == {
        "event": "win",
        "pays": "0.95 to 1",
        "combinations": kind_counts(KINDS["banker"], Composition.of_decks(8))["win"],
        "probability": win["combinations"] / data["total_combinations"],
    }
    for wager in data["wagers"].values():
        assert sum(e["combinations"] for e in wager["events"]) == data["total_combinations"]


def test_odds_tiger_pair_favours_the_house_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    """Tiger Baccarat 1.1.14 is read by rank unless the literal reading is
    asked for, and only the literal reading carries the warning."""
    code, out, _ = run(capsys, "odds", "tiger-baccarat", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["pair_rule"] == "rank"
    assert "pair_rule_warning" not in data
    assert f"{data['wagers']['tiger_pair']['house_edge']:.4%}" == "16.1217%"
    code, out, _ = run(capsys, "odds", "tiger-baccarat")
    assert (code, "warning" in out) == (0, False)
    code, out, _ = run(capsys, "odds", "tiger-baccarat", "--pair-rule", "literal")
    assert code == 0
    assert "warning: pairs read by the literal reading of Tiger Baccarat 1.1.14" in out
    assert "-37.6" in out  # the Tiger Pair's house edge, printed beside the warning


def test_odds_layouts(capsys: pytest.CaptureFixture[str]) -> None:
    """Without --layout Tiger Buffalo reports every wager of any layout."""
    _, out, _ = run(capsys, "odds", "tiger-buffalo", "--json")
    everything = set(json.loads(out)["wagers"])
    _, out, _ = run(capsys, "odds", "tiger-buffalo", "--layout", "m", "--json")
    data = json.loads(out)
    assert data["layout"] == "M"
    assert "tiger_pair" in data["wagers"]
    assert "big_tiger" not in data["wagers"]
    assert set(data["wagers"]) < everything
    assert "player_insurance" not in everything  # valued by 'punto insurance'


def test_odds_counts_and_pair_rule(capsys: pytest.CaptureFixture[str]) -> None:
    counts = "4,4,4,4,4,4,4,4,4,4,4,4,4"
    _, out, _ = run(capsys, "odds", "tiger-baccarat", "--counts", counts, "--json")
    by_counts = json.loads(out)
    assert by_counts["decks"] is None
    assert by_counts["counts"] == [4] * 13
    _, out, _ = run(
        capsys, "odds", "tiger-baccarat", "--counts", counts, "--pair-rule", "literal", "--json"
    )
    literal = json.loads(out)
    assert (by_counts["pair_rule"], literal["pair_rule"]) == ("rank", "literal")
    assert "pair_rule_warning" not in by_counts
    assert "favours the player" in literal["pair_rule_warning"]
    assert literal["wagers"]["banker"] == by_counts["wagers"]["banker"]
    assert literal["wagers"]["tiger_pair"] != by_counts["wagers"]["tiger_pair"]


def test_odds_text_forms(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "odds", "dragon-tiger", "--decks", "6")
    assert code == 0
    assert "Dragon Tiger Baccarat" in out
    assert "dragon_tiger" in out
    _, out, _ = run(capsys, "odds", "dragon-tiger", "--markdown")
    assert out.startswith("# Dragon Tiger Baccarat: exact odds")
    _, out, _ = run(capsys, "odds", "baccarat-tournament", "--csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {r["wager"] for r in rows} == {"banker", "player", "tie", "player_pair", "banker_pair"}
    assert rows[0]["decks"] == "8"


def test_odds_removal(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "odds", "tiger-baccarat", "--removal", "--json")
    removal = json.loads(out)["removal"]
    assert len(removal["ranks"]) == 13
    assert set(removal["pair_readings"]) == {"literal", "rank"}
    computed = effects_of_removal(get_game("tiger-baccarat"), Composition.of_decks(8))
    assert removal["wagers"]["tiger"] == computed["tiger"].to_json()
    _, out, _ = run(capsys, "odds", "tiger-baccarat", "--removal", "--pair-rule", "rank", "--json")
    assert "pair_readings" not in json.loads(out)["removal"]
    code, out, _ = run(capsys, "odds", "tiger-baccarat", "--removal")
    assert code == 0
    assert "effect of removal" in out
    assert "tiger_pair (literal pairs)" in out
    assert "tiger_pair (rank pairs)" in out
    _, out, _ = run(capsys, "odds", "tiger-baccarat", "--removal", "--markdown")
    assert "## Effect of removal" in out


def test_odds_every_game_and_deck(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "odds", "all", "--decks", "4-10", "--json")
    data = json.loads(out)
    assert code == 0
    assert len(data) == 35
    assert {(d["game"], d["decks"]) for d in data} == {
        (g, n)
        for g in (
            "tiger-baccarat",
            "tiger-no-commission",
            "tiger-buffalo",
            "baccarat-tournament",
            "dragon-tiger",
        )
        for n in range(4, 11)
    }


def test_counts_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "shoes.txt"
    path.write_text(
        "# shoes\n" + "32," * 12 + "32\n\n" + "28,30,32,31,29,30,32,32,31,30,32,32,32\n"
    )
    code, out, _ = run(capsys, "odds", "tiger-no-commission", "--counts-file", str(path))
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert len(lines) == 2
    assert lines[0]["counts"] == [32] * 13
    assert lines[1]["counts"][0] == 28
    _, single, _ = run(capsys, "odds", "tiger-no-commission", "--decks", "8", "--jsonl")
    assert json.loads(single)["wagers"] == {**lines[0]["wagers"]}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["odds", "tiger-baccarat", "--decks", "3"], "clause 2.1"),
        (["odds", "tiger-baccarat", "--decks", "8", "--counts", "1"], "not both"),
        (["odds", "tiger-baccarat", "--counts", "1,2,3"], "13 counts"),
        (["odds", "tiger-baccarat", "--counts", "0,0,0,0,0,0,0,0,0,0,0,0,5"], "six cards"),
        (["odds", "tiger-baccarat", "--counts-file", "/no/such/file"], "cannot read"),
        (["odds", "tiger-baccarat", "--counts-file", "-", "--json"], "--jsonl or --csv"),
        (["odds", "tiger-baccarat", "--removal", "--csv"], "no CSV form"),
        (["odds", "tiger-buffalo", "--layout", "Z"], "no layout"),
        (["odds", "all", "--layout", "A"], "one game"),
        (["odds", "no-such-game"], "no game"),
        (["insurance", "--game", "tiger-baccarat"], "no Insurance Plus"),
        (["insurance", "--cards", "3H 4C 2D"], "no insurance is offered"),
    ],
)
def test_refusals_print_nothing(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("punto: error:")
    assert message in err


def test_insurance_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "insurance", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["game"] == "tiger-buffalo"
    assert data["decks"] == 8
    offer = next(
        o
        for o in data["offers"]
        if (o["insures"], o["moment"], o["player_points"], o["banker_points"])
        == ("banker", "four_cards", 5, 6)
    )
    assert f"{offer['loses']:.6f}" == "0.248909"
    assert offer["pays"] == "5 to 2"
    assert not any(o["positive"] for o in data["offers"])
    code, out, _ = run(capsys, "insurance", "--decks", "6")
    assert code == 0
    assert "Insurance Plus values" in out
    assert "No offer favours" in out


def test_insurance_flags_positive_offers(capsys: pytest.CaptureFixture[str]) -> None:
    counts = "32,4," + ",".join(["32"] * 11)
    _, out, _ = run(capsys, "insurance", "--counts", counts, "--json")
    flagged = [o for o in json.loads(out)["offers"] if o["positive"]]
    assert flagged
    assert all(o["value"] > 0 for o in flagged)
    _, out, _ = run(capsys, "insurance", "--counts", counts)
    assert "POSITIVE" in out


def test_insurance_exact_cards(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "insurance", "--cards", "3H 4C 2D KS", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["cards"] == ["3H", "4C", "2D", "KS"]
    (offer,) = data["offers"]
    assert offer["offer"] == "player insurance after four cards: Player 5 v Banker 4, 3 to 2"
    code, out, _ = run(capsys, "insurance", "--cards", "3H 4C 2D KS")
    assert code == 0
    assert "Player 5 v Banker 4" in out


@pytest.mark.slow
def test_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "buffalo"
    code, text, _ = run(
        capsys, "report", "tiger-buffalo", "--decks", "6", "--out", str(out),
        "--counting-shoes", "200",
    )  # fmt: skip
    assert code == 0
    written = [Path(line.removeprefix("wrote ")) for line in text.splitlines()]
    # one self-contained document: its charts are inline SVG, not files beside it
    assert written == [out / "index.html"]
    assert all(p.exists() for p in written)
    page = (out / "index.html").read_text("utf-8")
    figures = re.findall(r'<figure data-figure="([^"]+)"><svg', page)
    assert {"returns", "insurance", "house_edge_by_decks", "removal_tiger_pair_literal"} <= set(
        figures
    )
    assert "<img" not in page
    assert "src=" not in page
    # the only links are inside a chart, to its own markers and clip paths
    assert {href[0] for href in re.findall(r'href="([^"]*)"', page)} == {"#"}
    assert "Tiger Buffalo" in page
    assert "Insurance Plus" in page
    assert "Counting vulnerability" in page


def test_report_refuses_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, out, err = run(capsys, "report", "dragon-tiger", "--out", str(blocker))
    assert code == 2
    assert out == ""
    assert "cannot write the report" in err
