"""The charts drawn by matplotlib: each SVG parsed, its titles,
axis labels and the figures printed on it checked against the figures
computed, formatted as the report's tables print them."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from punto.analysis.composition import RANK_HEADINGS, Composition
from punto.analysis.removal import effects_of_removal
from punto.analysis.tables import odds_table
from punto.cli import main
from punto.rules.games import get_game
from punto.rules.wagers import PairRule
from punto.sim.counting import CountJob, counting, derive_tags, effects_floats
from punto.sim.run import ShoeRules, SimJob, simulate
from punto.sim.running import running_estimate
from punto.tournament.analysis import analyse
from punto.tournament.formats import get_format
from punto.ui.charts.exact import (
    edge_text,
    house_edge_by_decks_chart,
    removal_chart,
    removal_text,
    return_text,
    returns_chart,
)
from punto.ui.charts.figure import ChartFileError, MissingExtraError, chart_format, render, require
from punto.ui.charts.sim import counted_bins, edge_chart, running_chart
from punto.ui.charts.tournament import share_text, tournament_chart

SVG = "{http://www.w3.org/2000/svg}"


def texts(svg: bytes) -> list[str]:
    """Every text of an SVG, in document order."""
    root = ET.fromstring(svg)
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


def test_house_edge_by_decks_chart_prints_every_exact_edge() -> None:
    game = get_game("tiger-baccarat")
    tables = [odds_table(game, Composition.of_decks(d)) for d in range(4, 11)]
    found = texts(render(house_edge_by_decks_chart(tables)))
    printed = [t for t in found if re.fullmatch(r"-?\d+\.\d{4}%", t)]
    # one label per wager and deck count, panel by panel, each the exact edge as printed
    assert printed == [
        edge_text(t.wagers[wid].house_edge) for wid in tables[0].wagers for t in tables
    ]
    assert "1.0579%" in printed  # Banker, 8 decks
    for wager in tables[0].wagers.values():
        assert wager.name in found
    assert found.count("decks") == len(tables[0].wagers)
    assert found.count("house edge (%)") == len(tables[0].wagers)
    assert {str(d) for d in range(4, 11)} <= set(found)
    assert any("rules version 2" in t and "house edge by deck count" in t for t in found)


def test_returns_chart_labels_every_wager_with_its_return() -> None:
    table = odds_table(get_game("dragon-tiger"), Composition.of_decks(8))
    found = texts(render(returns_chart(table)))
    values = [t for t in found if re.fullmatch(r"[+-]\d+\.\d{4}%", t)]
    assert values == [return_text(w.return_float) for w in table.wagers.values()]
    assert [t for t in found if t in {w.name for w in table.wagers.values()}] == [
        w.name for w in table.wagers.values()
    ]
    assert "return per unit staked (%)" in found


def test_removal_chart_labels_each_rank() -> None:
    game = get_game("tiger-baccarat")
    removal = effects_of_removal(game, Composition.of_decks(8))["big_tiger"]
    found = texts(render(removal_chart(removal, removal.name)))
    bars = [t for t in found if re.fullmatch(r"[+-]\d+\.\d\d|—", t)]
    assert bars == ["—" if x is None else removal_text(float(x)) for x in removal.effects]
    ranks = [t for t in found if t in RANK_HEADINGS]
    assert ranks == list(RANK_HEADINGS)
    assert "rank of the card removed" in found
    assert "change in return (1/10,000 of the stake)" in found
    assert "Effect of removal: Big Tiger" in found


def test_edge_chart_of_a_counting_run() -> None:
    game = get_game("tiger-baccarat")
    effects = effects_floats(game.id, None, PairRule.LITERAL, 8)
    tags = derive_tags(effects["big_tiger"])
    job = CountJob(
        game.id, None, "literal", ShoeRules(8, 14), 4, 20_000, ("big_tiger",), (tags.values,),
        samples=8,
    )  # fmt: skip
    report = counting(job, [tags], workers=0)
    svg = render(edge_chart("Tiger Baccarat: edge against true count", report.wagers))
    found = texts(svg)
    assert "true count (running count per deck left)" in found
    assert "player's edge (%)" in found
    assert f"Big Tiger (tags {tags.text()})" in found
    # every point drawn where its figures put it, read back through the tick labels
    root = ET.fromstring(svg)
    x_of, y_of = axis_map(root, "x"), axis_map(root, "y")
    points = counted_bins(report.wagers[0])
    exact = [(x, 100 * e) for x, _, e in points if e is not None]
    line = group(root, "exact:big_tiger")
    path = next(line.iter(f"{SVG}path")).attrib["d"]
    drawn = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", path)]
    assert len(drawn) == 2 * len(exact)
    for (x, y), (px, py) in zip(exact, zip(drawn[::2], drawn[1::2], strict=True), strict=True):
        assert px == pytest.approx(x_of(x), abs=0.01)
        assert py == pytest.approx(y_of(y), abs=0.01)
    rings = [
        (float(u.attrib["x"]), float(u.attrib["y"]))
        for u in group(root, "simulated:big_tiger").iter(f"{SVG}use")
    ]
    assert len(rings) == len(points)
    for (x, s, _), (px, py) in zip(points, rings, strict=True):
        assert px == pytest.approx(x_of(x), abs=0.01)
        assert py == pytest.approx(y_of(100 * s), abs=0.01)


def group(root: ET.Element, gid: str) -> ET.Element:
    found = next((g for g in root.iter(f"{SVG}g") if g.get("id") == gid), None)
    assert found is not None, f"no group {gid}"
    return found


def axis_map(root: ET.Element, axis: str) -> Callable[[float], float]:
    """Data to SVG coordinate along ``axis``, from the ticks and their labels."""
    ticks = []
    for g in root.iter(f"{SVG}g"):
        if (g.get("id") or "").startswith(f"{axis}tick_"):
            mark = next(g.iter(f"{SVG}use"))
            label = "".join(next(g.iter(f"{SVG}text")).itertext()).replace("\u2212", "-")
            ticks.append((float(label), float(mark.attrib[axis])))
    (v1, p1), (v2, p2) = min(ticks), max(ticks)
    scale = (p2 - p1) / (v2 - v1)
    return lambda v: p1 + scale * (v - v1)


def test_running_estimate_is_the_runs_own_prefix() -> None:
    job = SimJob("dragon-tiger", None, "rank", ShoeRules(8, 14), 11, 1)
    job = dataclasses.replace(job, shoes=job.shoes_per_chunk + 400)  # two chunks
    running = running_estimate(job, count=6)
    # the last point is the whole run, dealt as punto simulate deals it
    whole = simulate(job, workers=0)
    assert running.counts.same_as(whole.counts)
    assert running.points[-1].shoes == job.shoes
    # a point inside the first chunk is what a shorter run reports
    inner = running.points[2]
    assert inner.shoes < job.shoes_per_chunk
    shorter = simulate(dataclasses.replace(job, shoes=inner.shoes), workers=0)
    assert [w.returns for w in shorter.wagers] == list(inner.returns)
    found = texts(render(running_chart(running)))
    for name, exact in zip(running.names, running.exact, strict=True):
        assert f"{name}: exact {float(exact):+.4%}" in found
    assert found.count("coups dealt") == len(running.names)
    assert "95% interval" in found


def test_tournament_chart_prints_the_shares() -> None:
    report = analyse(
        get_format("daily"), entrants=24, tournaments=12, seed="charts", hands=[20, 30]
    )
    found = texts(render(tournament_chart(report)))
    for row in report.rows:
        assert row.label in found
        assert share_text(row.leader_advances) in found
        for kind in report.mix:
            assert share_text(row.win_share(kind)) in found
    assert "share of tournaments won (%)" in found


def test_chart_formats_by_suffix() -> None:
    assert chart_format("a.svg") == "svg"
    table = odds_table(get_game("dragon-tiger"), Composition.of_decks(8))
    fig = returns_chart(table)
    assert render(fig, "png").startswith(b"\x89PNG\r\n\x1a\n")
    assert render(fig, "pdf").startswith(b"%PDF-")
    # the same figures give the same bytes: no date in the file
    assert render(returns_chart(table), "svg") == render(returns_chart(table), "svg")
    with pytest.raises(ChartFileError, match=r"name the file \.svg, \.png or \.pdf"):
        chart_format("edge.gif")


def test_chart_command_refuses_an_unknown_format_before_working(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "t.gif"
    assert main(["tournament", "analyse", "--tournaments", "1000000", "--chart", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip().splitlines() == [
        f"punto: error: cannot tell the chart format of {str(out)!r}; name the file .svg, "
        ".png or .pdf"
    ]


def test_a_missing_extra_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as if matplotlib were not installed: importing it fails
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'punto\[report\]'"):
        require("matplotlib.figure", "report")
    assert main(["report", "dragon-tiger", "--out", str(tmp_path / "r")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "punto report: needs the report extra for its charts: pip install 'punto[report]'\n"
    )
    assert not (tmp_path / "r").exists()
    # a chart asked of a simulation is refused before a shoe is dealt
    for argv in (
        ["simulate", "dragon-tiger", "--shoes", "10000000", "--workers", "0"],
        ["counting", "tiger-baccarat", "--shoes", "10000000", "--workers", "0"],
        ["tournament", "analyse", "--tournaments", "1000000"],
    ):
        assert main([*argv, "--chart", str(tmp_path / "c.svg")]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err == (
            "punto: error: matplotlib is not installed; pip install 'punto[report]'\n"
        )


def test_simulate_chart_command_draws_the_runs_estimates(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    chart = tmp_path / "converge.svg"
    argv = ["simulate", "dragon-tiger", "--coups", "200000", "--workers", "0", "--seed", "2"]
    assert main([*argv, "--json", "--chart", str(chart)]) == 0
    data = json.loads(capsys.readouterr().out)
    found = texts(chart.read_bytes())
    for w in data["wagers"].values():
        assert f"{w['name']}: exact {w['exact_return']:+.4%}" in found
    assert any(f"seed {data['seed']}" in t for t in found)
    # the estimate each line ends on is the run's own, with its 95% half-width
    for w in data["wagers"].values():
        low, high = w["return_ci95"]
        assert f"simulated {w['return']:+.4%} ± {(high - low) / 2:.4%}" in found
    assert found.count("return per unit (%)") == len(data["wagers"])


def test_counting_chart_command_as_svg(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    chart = tmp_path / "edge.svg"
    argv = ["counting", "tiger-baccarat", "--wager", "big_tiger", "--shoes", "20000"]
    argv += ["--seed", "4", "--workers", "0", "--samples", "8", "--json", "--chart", str(chart)]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    found = texts(chart.read_bytes())
    tags = data["wagers"]["big_tiger"]["tags"]["text"]
    assert f"Big Tiger (tags {tags})" in found
    assert "true count (running count per deck left)" in found
    assert any("Tiger Baccarat: edge against true count" in t for t in found)
