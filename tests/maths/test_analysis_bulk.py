"""Bulk output of the exact analysis: ``punto odds --fields`` (JSON lines and
CSV) and :func:`punto.analysis.bulk.returns_array` agree with the full
``--jsonl`` output composition by composition, and bad input is refused in
one line."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from punto.analysis.bulk import FIELDS, WAGER_FIELDS, returns_array
from punto.analysis.composition import RANK_HEADINGS, CompositionError
from punto.cli import main
from punto.rules.games import get_game
from tests.ui.test_fuzz_cli import FUZZ, assert_answered
from tests.ui.test_fuzz_cli import run as run_process

GAMES = (
    "tiger-baccarat",
    "tiger-no-commission",
    "tiger-buffalo",
    "baccarat-tournament",
    "dragon-tiger",
)
BUFFALO_LAYOUTS = tuple(get_game("tiger-buffalo").layouts)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def compositions(n: int, seed: int) -> list[list[int]]:
    """Shoes of every kind: eight decks partly dealt, any counts from 0 to 40
    of each rank, very small shoes; and, with n >= 100, one shoe beyond the
    compiled kernel's 1,627 cards (the pure-Python counts)."""
    rng = random.Random(seed)
    found: list[list[int]] = []
    while len(found) < n:
        kind = len(found) % 3
        if kind == 0:
            shoe = [r for r in range(13) for _ in range(32)]
            rng.shuffle(shoe)
            counts = [0] * 13
            for r in shoe[rng.randint(0, 400) :]:
                counts[r] += 1
        elif kind == 1:
            counts = [rng.randint(0, 40) for _ in range(13)]
        else:
            counts = [0] * 13
            for _ in range(rng.randint(6, 12)):
                counts[rng.randrange(13)] += 1
        if sum(counts) >= 6:
            found.append(counts)
    if n >= 100:
        found[-1] = [130] * 13
    return found


def check_agreement(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, game_id: str, layout: str | None, n: int
) -> None:
    shoes = compositions(n, seed=hash((game_id, layout)) % 10_000)
    path = tmp_path / "shoes.txt"
    path.write_text("".join(",".join(map(str, c)) + "\n" for c in shoes))
    where = ["--layout", layout] if layout else []
    argv = ["odds", game_id, *where, "--counts-file", str(path)]
    code, out, err = run(capsys, *argv, "--jsonl")
    assert code == 0, err
    full = [json.loads(line) for line in out.splitlines()]
    code, out, err = run(capsys, *argv, "--fields", ",".join(FIELDS))
    assert code == 0, err
    compact = [json.loads(line) for line in out.splitlines()]
    code, out, err = run(capsys, *argv, "--fields", ",".join(FIELDS), "--csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    array = returns_array(shoes, get_game(game_id), layout)
    assert len(full) == len(compact) == len(rows) == len(shoes) == array.values.shape[0]
    for i, (f, c, row) in enumerate(zip(full, compact, rows, strict=True)):
        assert c["counts"] == f["counts"] == shoes[i]
        assert [int(row[h]) for h in RANK_HEADINGS] == shoes[i]
        assert c["total_combinations"] == f["total_combinations"]
        assert int(row["total_combinations"]) == f["total_combinations"]
        assert list(c["wagers"]) == list(f["wagers"]) == list(array.wagers)
        for w, (wid, figures) in enumerate(f["wagers"].items()):
            mine = c["wagers"][wid]
            for field in WAGER_FIELDS:
                assert mine[field] == figures[field], (i, wid, field)
                cell = row[f"{wid}.{field}"]
                if field == "return_exact":
                    assert cell == figures[field]
                else:
                    assert float(cell) == figures[field], (i, wid, field)
            assert array.values[i, w] == figures["return"], (i, wid)


@pytest.mark.parametrize("game_id", GAMES)
def test_bulk_output_agrees_with_jsonl_for_every_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, game_id: str
) -> None:
    check_agreement(capsys, tmp_path, game_id, None, 200)


@pytest.mark.parametrize("layout", BUFFALO_LAYOUTS)
def test_bulk_output_agrees_with_jsonl_for_tiger_buffalo_layouts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, layout: str
) -> None:
    check_agreement(capsys, tmp_path, "tiger-buffalo", layout, 30)


def test_bulk_returns_only_csv_has_one_column_per_wager(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "shoes.txt"
    path.write_text("32," * 12 + "32\n# a comment\n\n4,4,4,4,4,4,4,4,4,4,4,4,4\n")
    code, out, err = run(
        capsys, "odds", "tiger-buffalo", "--counts-file", str(path), "--fields", "return", "--csv"
    )
    assert code == 0, err
    header, *rows = list(csv.reader(io.StringIO(out)))
    wagers = [p for p in header if p.endswith(".return")]
    assert header == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", *wagers]
    assert len(wagers) == 20
    assert len(rows) == 2
    assert rows[0][header.index("banker.return")] == repr(-0.010579057842472012)


def test_bulk_several_deck_counts_and_games_as_json_lines(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "odds", "all", "--decks", "6,8", "--fields", "return_exact")
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(d["game"], d["decks"]) for d in lines] == [(g, n) for g in GAMES for n in (6, 8)]
    banker = lines[1]["wagers"]["banker"]
    assert banker == {"return_exact": "-114753351728/10847218479825"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--fields", "retrun"], "unknown field 'retrun' in --fields"),
        (["--fields", "return,,bogus"], "unknown field 'bogus'"),
        (["--fields", ","], "names no field"),
        (["--fields", "return", "--json"], "--jsonl (the default) or --csv"),
        (["--fields", "return", "--markdown"], "--jsonl (the default) or --csv"),
        (["--fields", "return", "--removal"], "not the effect of removal"),
    ],
)
def test_bulk_refusals_print_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, "odds", "tiger-baccarat", "--decks", "8", *argv)
    assert (code, out) == (2, "")
    assert message in err
    assert err.count("\n") == 1


def test_bulk_csv_of_every_game_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "odds", "all", "--fields", "return", "--csv")
    assert (code, out) == (2, "")
    assert "columns of one game" in err


def test_bulk_malformed_counts_line_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "shoes.txt"
    path.write_text("32," * 12 + "32\n" + "32,32,x\n")
    code, out, err = run(
        capsys, "odds", "tiger-buffalo", "--counts-file", str(path), "--fields", "return", "--csv"
    )
    assert (code, out) == (2, "")
    assert f"{path} line 2: cannot read the composition" in err
    assert err.count("\n") == 1


def test_returns_array_takes_numpy_rows_and_names_a_bad_one() -> None:
    import numpy as np

    shoes = np.array(compositions(20, seed=3), dtype=np.int64)
    found = returns_array(shoes, get_game("dragon-tiger"))
    assert found.values.shape == (20, len(found.wagers))
    assert found.values.dtype == np.float64
    again = returns_array(shoes.tolist(), get_game("dragon-tiger"))
    assert np.array_equal(found.values, again.values)
    assert np.array_equal(found.column("banker"), found.values[:, found.wagers.index("banker")])
    with pytest.raises(CompositionError, match=r"composition 1: .*13 counts"):
        returns_array([[32] * 13, [1, 2, 3]], get_game("dragon-tiger"))
    with pytest.raises(CompositionError, match=r"composition 0: .*six cards"):
        returns_array([[1] + [0] * 12], get_game("dragon-tiger"))


COUNTS_LINES = st.lists(
    st.one_of(
        st.lists(st.integers(-2, 40), min_size=0, max_size=15).map(
            lambda xs: ",".join(map(str, xs))
        ),
        st.text(alphabet="0123456789, -#x\t.", max_size=40),
    ),
    max_size=4,
)
FIELD_TEXT = st.lists(
    st.sampled_from([*FIELDS, "", " return", "bogus", "RETURN", "return_exact "]), max_size=4
).map(",".join)


@FUZZ
@given(lines=COUNTS_LINES, fields=FIELD_TEXT, csv_form=st.booleans())
def test_bulk_counts_files_and_fields_are_answered_never_crash(
    lines: list[str], fields: str, csv_form: bool
) -> None:
    argv = ["odds", "dragon-tiger", "--counts-file", "-", "--fields", fields]
    stdin = "".join(line + "\n" for line in lines)
    assert_answered(*run_process([*argv, "--csv"] if csv_form else argv, stdin))
