"""``punto simulate`` and ``punto counting`` on the command line (in this
process: ``--workers 0``; the cluster is tested in test_sim_cluster.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from punto.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = (
        "simulate",
        "dragon-tiger",
        "--coups",
        "300000",
        "--seed",
        "9",
        "--workers",
        "0",
        "--json",
    )
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    data = json.loads(out)
    assert data["game"] == "dragon-tiger"
    assert (data["decks"], data["cut_card"], data["seed"]) == (8, 14, 9)
    assert abs(data["coups"] - 300_000) < 3_000  # whole shoes: about 300,000
    assert set(data["wagers"]) == {
        "player",
        "banker",
        "tie",
        "dragon_tiger",
        "big_dragon",
        "small_dragon",
        "big_tiger",
        "small_tiger",
    }
    big = data["wagers"]["big_tiger"]
    assert big["exact_return_fraction"].startswith("-")
    assert big["return_ci95"][0] < big["return"] < big["return_ci95"][1]
    assert sum(big["events"].values()) == data["coups"]
    # the same seed, the same counts
    _, again, _ = run(capsys, *argv)
    assert json.loads(again)["wagers"] == data["wagers"]


def test_simulate_text_fresh_shoe(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "simulate", "baccarat-tournament", "--shoes", "20000", "--fresh-shoe",
        "--seed", "1", "--workers", "0",
    )  # fmt: skip
    assert code == 0, err
    assert "every coup from a freshly shuffled shoe" in out
    assert "20,000 coups" in out
    assert "Player Pair (player_pair)" in out


def test_simulate_exact_states(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "simulate", "tiger-baccarat", "--shoes", "3000", "--seed", "2",
        "--workers", "0", "--exact-states", "200", "--json",
    )  # fmt: skip
    assert code == 0, err
    extra = json.loads(out)["exact_states"]
    assert extra["samples"] == 200
    assert abs(extra["wagers"]["banker"]["cut_card_effect"]) < 0.01


def test_counting_one_wager_with_tags_and_chart(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    chart = tmp_path / "edge.png"
    code, out, err = run(
        capsys, "counting", "tiger-baccarat", "--wager", "big_tiger",
        "--tags", "0,0,-1,-1,-1,-2,+1,+2,+2,0", "--threshold", "8", "--shoes", "20000",
        "--seed", "4", "--workers", "0", "--samples", "8", "--json", "--chart", str(chart),
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    big = data["wagers"]["big_tiger"]
    assert big["tags"]["text"] == "0,0,-1,-1,-1,-2,+1,+2,+2,0"
    assert big["tags"]["source"] == "given"
    assert big["chosen"]["true_count"] == 8
    assert 0.02 < big["chosen"]["bet_frequency"] < 0.05
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_counting_table_puts_vulnerable_wagers_first(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "counting", "baccarat-tournament", "--shoes", "20000", "--seed", "4",
        "--workers", "0", "--samples", "4",
    )  # fmt: skip
    assert code == 0, err
    assert "Not countable" in out  # pairs read by rank
    assert "player_pair" in out
    assert "Vulnerable" in out


def test_counting_with_no_exact_samples_runs(capsys: pytest.CaptureFixture[str]) -> None:
    # --samples 0 once reached the kernel with a read-only array: an internal error
    code, out, err = run(
        capsys, "counting", "tiger-baccarat", "--shoes", "50", "--seed", "4",
        "--workers", "0", "--samples", "0", "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["shoes"] == 50
    assert data["samples_per_bin"] == 0
    bins = [b for w in data["wagers"].values() for b in w["bins"]]
    assert bins
    assert all(b["sampled"] == 0 and b["exact_edge"] is None for b in bins)
    assert sum(b["coups"] for b in data["wagers"]["big_tiger"]["bins"]) == data["coups"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("counting", "tiger-baccarat", "--tags", "0,0,0,0,0,0,0,0,0,0"), "exactly one --wager"),
        (("simulate", "tiger-baccarat", "--cut-card", "2"), "cannot go 2 cards from the end"),
        (("simulate", "tiger-baccarat", "--decks", "3"), "2.1"),
        (("counting", "tiger-baccarat", "--penetration", "1.5"), "between 0 and 1"),
        (("simulate", "tiger-baccarat", "--fresh-shoe", "--burn"), "nothing to burn"),
        (("counting", "tiger-baccarat", "--wager", "nope"), "no wager 'nope'"),
    ],
)
def test_refusals(capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str) -> None:
    code, out, err = run(capsys, *argv, "--workers", "0")
    assert code == 2
    assert out == ""
    assert message in err
