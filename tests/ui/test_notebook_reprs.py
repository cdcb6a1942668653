"""Results at home in a notebook: the main result types
show themselves as HTML tables and give pandas DataFrames holding the same
figures -- exact fractions kept exact."""

from __future__ import annotations

import sys
from fractions import Fraction

import pytest

from punto.analysis.composition import Composition
from punto.analysis.insurance_values import insurance_table, insurance_values
from punto.analysis.removal import effects_of_removal
from punto.analysis.tables import odds_table
from punto.extras import MissingExtraError
from punto.rules.games import get_game
from punto.rules.roads import Scoreboard
from punto.rules.wagers import PairRule
from punto.sim.counting import CountJob, counting, derive_tags, effects_floats
from punto.sim.run import ShoeRules, SimJob, simulate
from punto.sim.vulnerability import counting_table
from punto.tournament.analysis import analyse
from punto.tournament.formats import get_format
from punto.ui.roads_svg import RoadsPicture, roads_svg


def test_odds_table_html_and_frame() -> None:
    table = odds_table(get_game("tiger-baccarat"), Composition.of_decks(8))
    page = table._repr_html_()
    assert page.startswith("<table><caption>Tiger Baccarat: 8 decks")
    assert "<th>house edge</th>" in page
    frame = table.to_frame()
    assert list(frame["wager"]) == list(table.wagers)
    assert list(frame["house edge"]) == [w.house_edge for w in table.wagers.values()]
    returns = list(frame["return"])
    assert all(isinstance(r, Fraction) for r in returns)
    assert returns == [w.return_exact for w in table.wagers.values()]
    banker = frame.set_index("wager").loc["banker"]
    assert f"{banker['house edge']:.4%}" == "1.0579%"


def test_removal_and_insurance_frames() -> None:
    game = get_game("tiger-buffalo")
    six = Composition.of_decks(6)
    removal = effects_of_removal(game, six)["banker"]
    frame = removal.to_frame()
    assert list(frame["rank"]) == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    assert list(frame["effect"]) == list(removal.effects)
    assert "<th>per 10,000</th>" in removal._repr_html_()
    offers = insurance_values(game, six)
    table = insurance_table(offers)
    values = table.to_frame()
    assert len(values) == len(offers)
    assert list(values["value"]) == [o.value for o in offers]
    assert "Insurance Plus" in table._repr_html_()


def test_simulation_and_tournament_reports_show_themselves() -> None:
    report = simulate(SimJob("dragon-tiger", None, "rank", ShoeRules(8, 14), 5, 300), workers=0)
    frame = report.to_frame()
    assert list(frame["wager"]) == [w.id for w in report.wagers]
    assert list(frame["return"]) == [w.returns.mean for w in report.wagers]
    assert list(frame["exact return"]) == [float(w.exact_return) for w in report.wagers]
    assert f"{report.counts.coups:,} coups" in report._repr_html_()
    tournaments = analyse(get_format("daily"), entrants=24, tournaments=6, seed="frames")
    rows = tournaments.to_frame()
    assert list(rows["variant"]) == [r.label for r in tournaments.rows]
    assert list(rows["wins: banker"]) == [r.win_share("banker") for r in tournaments.rows]
    assert "6 simulated tournaments" in tournaments._repr_html_()


def test_to_frame_without_pandas_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    table = odds_table(get_game("dragon-tiger"), Composition.of_decks(8))
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'punto\[frames\]'"):
        table.to_frame()
    assert "<table>" in table._repr_html_()  # HTML needs nothing installed


def test_counting_report_and_roads_show_themselves() -> None:
    game = get_game("tiger-baccarat")
    effects = effects_floats(game.id, None, PairRule.LITERAL, 8)
    tags = derive_tags(effects["tiger"])
    job = CountJob(
        game.id, None, "literal", ShoeRules(8, 14), 3, 2000, ("tiger",), (tags.values,), samples=4
    )  # fmt: skip
    report = counting(job, [tags], workers=0)
    table = counting_table(report)
    frame = table.to_frame()
    assert list(frame["tags"]) == [tags.text()]
    assert list(frame["vulnerable"]) == [report.wagers[0].vulnerable]
    assert f"<td>{'yes' if report.wagers[0].vulnerable else 'no'}</td>" in table._repr_html_()
    board = Scoreboard.from_results("BBPPTB")
    picture = RoadsPicture(board, "six coups")._repr_svg_()
    assert picture == roads_svg(board, "six coups")
    assert picture.startswith("<svg ")
