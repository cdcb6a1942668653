"""The scoreboard ("display information", Tiger Baccarat 6.3 / Tiger Buffalo 5.16).

Golden files in ``tests/golden/roads/`` hold input sequences with grids worked
out by hand (each file's ``comment`` shows the working).  The property tests
check the roads against a second, deliberately literal reading of the published
rules written here, not against :mod:`punto.rules.roads` itself:

* the big road's logical columns are runs of consecutive Banker / Player wins,
  ties skipped;
* a derived road's mark for the entry at (column c, row r), comparing k back,
  is read off the *cells* of the big road: row 0 -- red when columns c-1 and
  c-1-k are as long; row r > 0 -- red if (c-k, r) is filled, blue if it is
  empty and (c-k, r-1) is filled, red if both are empty;
* a derived road starts at the big-road entry (k, 1), or (k+1, 0) when column k
  has a single cell;
* the dragon tail is checked by what a drawn board must look like, not by
  re-running the layout.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from punto.errors import DealError, PuntoError
from punto.rules.cards import parse_cards
from punto.rules.coup import Coup, Side, Winner, deal
from punto.rules.roads import (
    Ask,
    BeadPlate,
    BigRoad,
    BigRoadCell,
    Colour,
    DerivedRoad,
    DragonTail,
    Result,
    RoadError,
    Scoreboard,
    Stats,
    derived_colour,
    parse_results,
)
from punto.rules.shoe import Shoe
from punto.rules.wagers import PairRule

GOLDEN = Path(__file__).parents[1] / "golden" / "roads"
GOLDEN_FILES = sorted(GOLDEN.glob("*.json"))
ROAD_NAMES = ("big_eye_boy", "small_road", "cockroach_pig")
K = {"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3}


# --- the second reading ---------------------------------------------------------------


def naive_columns(results: Sequence[Result]) -> list[list[Winner]]:
    columns: list[list[Winner]] = []
    for result in results:
        if result.winner is Winner.TIE:
            continue
        if columns and columns[-1][-1] is result.winner:
            columns[-1].append(result.winner)
        else:
            columns.append([result.winner])
    return columns


def naive_derived(lengths: Sequence[int], k: int) -> str:
    """Marks read off the big road's cells, as the rule is published."""
    filled = {(c, r) for c, n in enumerate(lengths) for r in range(n)}
    marks = []
    for c, n in enumerate(lengths):
        for r in range(n):
            if r == 0:
                if c - 1 - k >= 0:
                    marks.append("R" if lengths[c - 1] == lengths[c - 1 - k] else "B")
            elif c - k >= 0:
                if (c - k, r) in filled:
                    marks.append("R")
                elif (c - k, r - 1) in filled:
                    marks.append("B")
                else:
                    marks.append("R")
    return "".join(marks)


def entries_from_start(lengths: Sequence[int], k: int) -> int:
    """Big-road entries from the published start: (k, 1), else (k + 1, 0)."""
    start = (k, 1) if len(lengths) > k and lengths[k] >= 2 else (k + 1, 0)
    return sum(1 for c, n in enumerate(lengths) for r in range(n) if (c, r) >= start)


def check_drawn(tail: DragonTail, lengths: Sequence[int]) -> None:
    """What a drawn six-row board must look like.

    Every cell on the board, once; each column starts on the top row, right of
    the previous column's start, skipping only top cells already taken; it goes
    down, and turns right only when the cell below is off the board or taken by
    an earlier column, then runs right and never goes down again.
    """
    taken: dict[tuple[int, int], tuple[int, int]] = {}
    previous_start = -1
    for c, n in enumerate(lengths):
        path = [tail.position(c, r) for r in range(n)]
        x0, y0 = path[0]
        assert y0 == 0
        assert x0 > previous_start
        assert all((x, 0) in taken for x in range(previous_start + 1, x0))
        turned = False
        for (x, y), step in itertools.pairwise(path):
            if not turned and step == (x, y + 1):
                continue
            assert step == (x + 1, y)
            if not turned:
                assert y + 1 == tail.rows or (x, y + 1) in taken
            turned = True
        for r, (x, y) in enumerate(path):
            assert 0 <= y < tail.rows
            assert (x, y) not in taken
            taken[(x, y)] = (c, r)
            assert tail.at(x, y) == (c, r)
        previous_start = x0
    assert tail.width == (max(x for x, _ in taken) + 1 if taken else 0)


# --- strategies --------------------------------------------------------------------------

_flags = st.tuples(st.booleans(), st.booleans(), st.booleans())
_run = st.tuples(st.sampled_from(list(Winner)), st.integers(1, 13), st.lists(_flags, max_size=13))


def _expand(runs: list[tuple[Winner, int, list[tuple[bool, bool, bool]]]]) -> list[Result]:
    out = []
    for winner, count, flags in runs:
        for i in range(count):
            pp, bp, nat = flags[i] if i < len(flags) else (False, False, False)
            out.append(Result(winner, player_pair=pp, banker_pair=bp, natural=nat))
    return out


results_st = st.lists(_run, max_size=30).map(_expand)
sides_st = st.sampled_from([Side.BANKER, Side.PLAYER])


# --- golden files ------------------------------------------------------------------------


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _rows(grid: list[list[Any]], show: Any = str) -> list[str]:
    return [" ".join("." if cell is None else show(cell) for cell in line) for line in grid]


def _letters(colours: Sequence[Colour]) -> str:
    return "".join(c.letter for c in colours)


def _ask_text(ask: Ask) -> str:
    marks = (getattr(ask, name) for name in ROAD_NAMES)
    return "".join("-" if c is None else c.letter for c in marks)


def test_golden_files_are_present() -> None:
    names = {path.stem for path in GOLDEN_FILES}
    assert {
        "derived_hand_checked",
        "ties_at_start",
        "only_ties",
        "ties_in_the_middle",
        "dragon_tail",
        "tail_blocked_by_tail",
        "staircase",
    } <= names


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_golden_sequence(path: Path) -> None:
    golden = _load(path)
    assert golden["comment"], "every golden file explains how it was worked out"
    board = Scoreboard.from_results(golden["input"])
    checked = 0
    if "leading_ties" in golden:
        assert board.big_road.leading_ties == golden["leading_ties"]
        checked += 1
    if "bead_plate_grid" in golden:
        assert _rows(board.bead_plate.grid()) == golden["bead_plate_grid"]
        checked += 1
    if "big_road_columns" in golden:
        got = [[str(cell) for cell in column] for column in board.big_road.columns]
        assert got == golden["big_road_columns"]
        checked += 1
    if "big_road_lengths" in golden:
        assert list(board.big_road.lengths) == golden["big_road_lengths"]
        checked += 1
    if "big_road_grid" in golden:
        assert _rows(board.big_road.grid()) == golden["big_road_grid"]
        checked += 1
    for road in board.derived_roads:
        if road.name in golden:
            assert [_letters(column) for column in road.columns] == golden[road.name]
            checked += 1
        if f"{road.name}_grid" in golden:
            assert _rows(road.grid(), lambda c: c.letter) == golden[f"{road.name}_grid"]
            checked += 1
    if "ask" in golden:
        assert _ask_text(board.ask(Side.BANKER)) == golden["ask"]["banker"]
        assert _ask_text(board.ask(Side.PLAYER)) == golden["ask"]["player"]
        checked += 1
    if "stats" in golden:
        assert board.stats.to_dict() == golden["stats"]
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_golden_sequences_agree_with_the_second_reading(path: Path) -> None:
    board = Scoreboard.from_results(_load(path)["input"])
    lengths = [len(column) for column in naive_columns(board.results)]
    assert list(board.big_road.lengths) == lengths
    for road in board.derived_roads:
        assert _letters(road.entries) == naive_derived(lengths, road.k)
    check_drawn(board.big_road.tail, lengths)


def test_golden_render() -> None:
    board = Scoreboard.from_results(_load(GOLDEN / "derived_hand_checked.json")["input"])
    assert board.render() + "\n" == (GOLDEN / "derived_hand_checked.render.txt").read_text()


# --- Tiger Baccarat 6.3 / Tiger Buffalo 5.16: display information only ---------------------


def test_tiger_baccarat_6_3_display_is_information_only_outcome_is_the_cards_dealt() -> None:
    shoe = Shoe.shuffled(8, seed="roads-6.3")
    coups = [deal(shoe) for _ in range(60)]
    board = Scoreboard()
    for coup in coups:
        board.add(coup)
    for coup, result in zip(coups, board.results, strict=True):
        assert result.winner is coup.winner
        assert (result.player_total, result.banker_total) == (coup.player.total, coup.banker.total)
        assert result.natural == coup.natural
    stats = board.stats
    assert stats.coups == 60
    assert stats.banker == sum(c.winner is Winner.BANKER for c in coups)
    assert stats.player == sum(c.winner is Winner.PLAYER for c in coups)
    assert stats.tie == sum(c.winner is Winner.TIE for c in coups)
    assert stats.naturals == sum(c.natural for c in coups)
    assert stats.player_pairs == sum(
        c.player.cards[0].rank is c.player.cards[1].rank for c in coups
    )
    assert stats.banker_pairs == sum(
        c.banker.cards[0].rank is c.banker.cards[1].rank for c in coups
    )


def test_tiger_baccarat_6_3_a_wrong_display_is_rebuilt_from_the_outcomes() -> None:
    """A board read back ignores whatever its drawn roads say: the display is
    derived, never the outcome."""
    board = Scoreboard.from_results("T B Bp T P P P B Tn Pn P B B B Bb P B B")
    data = board.to_dict()
    for cell in data["big_road"]["cells"]:
        cell["side"] = "player" if cell["side"] == "banker" else "banker"
    data["stats"]["banker"] = 0
    data["big_eye_boy"]["cells"] = []
    data["ask"] = {}
    rebuilt = Scoreboard.from_dict(data)
    assert rebuilt == board
    assert rebuilt.to_dict() == board.to_dict()
    assert rebuilt.stats.banker == 9


def test_tiger_buffalo_5_16_a_result_that_contradicts_its_totals_is_refused() -> None:
    with pytest.raises(RoadError, match="Player 3 v Banker 7 is a Banker win, not a Player win"):
        Result(Winner.PLAYER, 3, 7)
    with pytest.raises(RoadError, match="is a Tie, not a Banker win"):
        Result(Winner.BANKER, 5, 5)
    assert Result(Winner.TIE, 5, 5).winner is Winner.TIE


def test_tiger_buffalo_5_16_adding_to_the_board_leaves_the_coup_as_dealt() -> None:
    coup = Coup.parse("QH 9C 2D 6S 8H")
    before = (str(coup), coup.winner, coup.player.total, coup.banker.total)
    board = Scoreboard()
    board.add(coup)
    assert (str(coup), coup.winner, coup.player.total, coup.banker.total) == before
    assert board.results == (Result(Winner.BANKER, 0, 5),)


def test_tiger_baccarat_3_16_totals_are_point_totals() -> None:
    with pytest.raises(RoadError, match="Player total 10 is not a point total"):
        Result(Winner.PLAYER, 10, 2)
    with pytest.raises(RoadError, match="only one total"):
        Result(Winner.PLAYER, 5, None)
    with pytest.raises(RoadError, match="not a point total"):
        Result(Winner.PLAYER, True, 0)  # a bool is not a total


def test_tiger_baccarat_1_1_6_a_natural_is_an_eight_or_nine() -> None:
    with pytest.raises(RoadError, match="a natural with Player 7 v Banker 5"):
        Result(Winner.PLAYER, 7, 5, natural=True)
    assert Result(Winner.PLAYER, 9, 5, natural=True).natural
    assert Result.from_coup(Coup.parse("9H 2C 9D 3S")).natural  # Player 8 on two cards
    assert not Result.from_coup(Coup.parse("QH 9C 2D 6S 8H")).natural


def test_tiger_baccarat_1_1_14_pair_marks_follow_the_pair_rule() -> None:
    # Player TH JD: a Pair under the literal reading of 1.1.14, not by rank.
    coup = Coup.from_cards(parse_cards("TH 2C JD 2S 5H 3D"))
    by_rank = Scoreboard()
    by_rank.add(coup)
    literal = Scoreboard(pair_rule=PairRule.LITERAL)
    literal.add(coup)
    assert [str(r) for r in by_rank.results] == ["Bb"]
    assert [str(r) for r in literal.results] == ["Bpb"]
    assert str(literal.big_road.columns[0][0]) == "Bpb"
    assert (literal.stats.player_pairs, by_rank.stats.player_pairs) == (1, 0)
    assert Scoreboard.from_json(literal.to_json()).pair_rule is PairRule.LITERAL


# --- big road ----------------------------------------------------------------------------


def test_ties_before_the_first_win_wait_then_mark_the_first_cell_only() -> None:
    board = Scoreboard.from_results("TT")
    assert board.big_road.columns == ()
    assert board.big_road.last is None
    assert "2 ties, no Banker or Player win yet" in board.render()
    board.add(Result(Winner.PLAYER))
    board.add(Result(Winner.BANKER))
    first, second = board.big_road.entries
    assert (first.leading_ties, first.ties, first.tie_marks, first.coup) == (2, 0, 2, 2)
    assert (second.leading_ties, second.tie_marks, second.coup) == (0, 0, 3)
    assert "no Banker or Player win yet" not in board.render()


def test_a_tie_rewrites_only_the_count_of_the_last_cell() -> None:
    road = BigRoad()
    assert road.add(Result.parse("Bp"), 0) == (0, 0)
    assert road.add(Result.parse("Tb"), 1) is None
    assert road.add(Result.parse("T"), 2) is None
    assert road.columns == ((BigRoadCell(Side.BANKER, 0, player_pair=True, ties=2),),)
    assert road.add(Result.parse("B"), 3) == (0, 1)
    assert road.add(Result.parse("P"), 4) == (1, 0)


def test_logical_columns_are_not_changed_by_the_dragon_tail() -> None:
    board = Scoreboard.from_results("B" * 20 + "P" * 3)
    assert list(board.big_road.lengths) == [20, 3]
    assert [board.big_road.tail.position(0, r) for r in (5, 6, 19)] == [(0, 5), (1, 5), (14, 5)]
    assert board.big_road.tail.position(1, 0) == (1, 0)


def test_a_board_of_three_rows() -> None:
    board = Scoreboard.from_results("BBBBPPPB", rows=3)
    # BBBB: (0,0) (0,1) (0,2) then the tail (1,2); PPP: (1,0) (1,1), blocked, (2,1); B: (2,0)
    assert _rows(board.big_road.grid()) == ["B P B", "B P P", "B B ."]
    assert _rows(board.bead_plate.grid()) == ["B B P", "B P B", "B P ."]


def test_a_one_row_board_lays_every_column_along_the_top() -> None:
    board = Scoreboard.from_results("BBPB", rows=1)
    assert _rows(board.big_road.grid()) == ["B B P B"]
    check_drawn(board.big_road.tail, [2, 1, 1])


def test_the_board_shows_its_latest_columns() -> None:
    board = Scoreboard.from_results(_load(GOLDEN / "tail_blocked_by_tail.json")["input"])
    full = board.big_road.grid()
    assert board.big_road.grid(width=2) == [row[-2:] for row in full]
    assert board.big_road.grid(width=100) == full
    assert board.big_road.grid(width=0) == [[] for _ in range(6)]
    assert board.bead_plate.grid(width=1) == [row[-1:] for row in board.bead_plate.grid()]
    lines = board.render(width=2).splitlines()
    big = lines.index("Big road")
    assert lines[big + 1 : big + 7] == ["B P", "B P", "B B", "B .", ". .", ". ."]


# --- derived roads -----------------------------------------------------------------------


def test_derived_colour_standard_cases() -> None:
    red, blue = Colour.RED, Colour.BLUE
    lengths = [3, 2, 2, 1]
    # new column: compare the two columns before it
    assert derived_colour(lengths, 3, 0, 1) is red  # 2 == 2
    assert derived_colour(lengths, 2, 0, 1) is blue  # 2 != 3
    assert derived_colour(lengths, 3, 0, 2) is blue  # 2 != 3
    assert derived_colour(lengths, 4, 0, 3) is blue  # 1 != 3
    # down a column: filled beside -> red; first empty -> blue; further -> red
    assert derived_colour(lengths, 1, 1, 1) is red
    assert derived_colour(lengths, 1, 3, 1) is blue
    assert derived_colour(lengths, 1, 4, 1) is red
    assert derived_colour(lengths, 4, 1, 1) is blue
    # before the start
    assert derived_colour(lengths, 0, 5, 1) is None
    assert derived_colour(lengths, 1, 0, 1) is None
    assert derived_colour(lengths, 2, 0, 2) is None
    assert derived_colour(lengths, 2, 1, 3) is None
    assert derived_colour(lengths, 3, 1, 3) is red


def test_big_eye_boy_starts_at_column_two_row_two_or_column_three() -> None:
    # column 1 (second column) has two cells: the road starts with its second one
    starts_down = Scoreboard.from_results("BPP")
    assert _letters(starts_down.big_eye_boy.entries) == "B"  # (0,1) empty, (0,0) filled
    # column 1 has one cell: the road starts with the first cell of column 2
    starts_right = Scoreboard.from_results("BPB")
    assert _letters(starts_right.big_eye_boy.entries) == "R"  # len 1 == len 1
    assert len(Scoreboard.from_results("BBBBP").big_eye_boy) == 0


def test_ties_make_no_derived_marks() -> None:
    plain = Scoreboard.from_results("BPBBPPBP")
    tied = Scoreboard.from_results("TBTPTTBBTPPTBTPT")
    for a, b in zip(plain.derived_roads, tied.derived_roads, strict=True):
        assert a.entries == b.entries
        assert a.columns == b.columns


def test_ask_answers_for_both_sides_without_changing_the_board() -> None:
    board = Scoreboard.from_results(_load(GOLDEN / "derived_hand_checked.json")["input"])
    before = board.to_json()
    banker, player = board.ask(Side.BANKER), board.ask(Side.PLAYER)
    assert board.to_json() == before
    assert banker == Ask(Side.BANKER, Colour.RED, Colour.RED, Colour.BLUE)
    assert player == Ask(Side.PLAYER, Colour.BLUE, Colour.BLUE, Colour.RED)
    assert banker.to_dict() == {"big_eye_boy": "red", "small_road": "red", "cockroach_pig": "blue"}
    assert json.loads(before)["ask"]["player"] == player.to_dict()


def test_ask_on_an_empty_board_is_empty() -> None:
    ask = Scoreboard().ask(Side.PLAYER)
    assert (ask.big_eye_boy, ask.small_road, ask.cockroach_pig) == (None, None, None)
    assert str(ask) == "Ask Player: big eye boy -, small road -, cockroach pig -"


# --- results, text and JSON --------------------------------------------------------------


def test_results_text_round_trip() -> None:
    results = parse_results("B Pp Tbn Bpb P T")
    assert " ".join(str(r) for r in results) == "B Pp Tbn Bpb P T"
    assert parse_results("BPpTbnBpbPT") == results
    assert parse_results("  ") == ()
    assert [r.side for r in results[:3]] == [Side.BANKER, Side.PLAYER, None]


@pytest.mark.parametrize("text", ["b", "BX", "B p", "Bpp", "1", "B-"])
def test_unreadable_results_are_refused(text: str) -> None:
    with pytest.raises(RoadError, match="cannot read"):
        parse_results(text)


def test_result_from_dict_checks_its_fields() -> None:
    assert Result.from_dict({"winner": "tie"}) == Result(Winner.TIE)
    with pytest.raises(RoadError, match="needs a winner"):
        Result.from_dict({"winner": "dragon"})
    with pytest.raises(RoadError, match="needs a winner"):
        Result.from_dict({})
    with pytest.raises(RoadError, match="player_pair must be true or false"):
        Result.from_dict({"winner": "banker", "player_pair": "yes"})
    with pytest.raises(RoadError, match="not a point total"):
        Result.from_dict({"winner": "banker", "player_total": "3", "banker_total": 5})
    with pytest.raises(RoadError, match="winner must be a Winner"):
        Result("banker")  # type: ignore[arg-type]


def test_scoreboard_refuses_what_it_cannot_record() -> None:
    with pytest.raises(RoadError, match="a Result or a Coup"):
        Scoreboard().add("B")  # type: ignore[arg-type]
    with pytest.raises(RoadError, match="needs 'results'"):
        Scoreboard.from_dict({"rows": 6})
    with pytest.raises(RoadError, match="at least one row"):
        Scoreboard(rows=0)
    with pytest.raises(RoadError, match="at least one row"):
        BeadPlate(rows=0)
    with pytest.raises(RoadError, match="at least one column back"):
        DerivedRoad("none", 0)
    assert issubclass(RoadError, PuntoError)
    assert issubclass(RoadError, ValueError)
    with pytest.raises(DealError):
        Scoreboard().add(Coup.parse("QH 9C 2D"))


def test_to_json_shape_for_a_web_page() -> None:
    board = Scoreboard.from_results("TBBPPPB")
    data = json.loads(board.to_json(indent=2))
    assert data == board.to_dict()
    assert data["rows"] == 6
    assert data["pair_rule"] == "rank"
    assert data["stats"] == Stats(coups=7, banker=3, player=3, tie=1).to_dict()
    assert data["bead_plate"]["cells"][0] == {
        "coup": 0,
        "x": 0,
        "y": 0,
        "winner": "tie",
        "player_total": None,
        "banker_total": None,
        "player_pair": False,
        "banker_pair": False,
        "natural": False,
    }
    assert data["big_road"]["leading_ties"] == 1
    assert data["big_road"]["cells"][0] == {
        "column": 0,
        "row": 0,
        "x": 0,
        "y": 0,
        "side": "banker",
        "coup": 1,
        "player_pair": False,
        "banker_pair": False,
        "natural": False,
        "ties": 0,
        "leading_ties": 1,
    }
    # B B | P P P | B: big eye boy (1,1) R, (1,2) B, (2,0) B
    assert [c["colour"] for c in data["big_eye_boy"]["cells"]] == ["red", "blue", "blue"]
    assert data["big_eye_boy"]["k"] == 1
    assert data["small_road"]["cells"] == []
    assert set(data["ask"]) == {"banker", "player"}


def test_repr_and_equality() -> None:
    board = Scoreboard.from_results("BPT")
    assert repr(board) == (
        "<Scoreboard rows=6 3 coups: Banker 1, Player 1, Tie 1; "
        "Player pairs 0, Banker pairs 0; naturals 0>"
    )
    assert board == Scoreboard.from_results("BPT")
    assert board != Scoreboard.from_results("BPT", rows=5)
    assert board != Scoreboard.from_results("BPB")
    assert board != "BPT"
    assert len(board) == 3


# --- properties --------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(results=results_st)
def test_incremental_building_equals_building_from_scratch(results: list[Result]) -> None:
    board = Scoreboard()
    for result in results:
        board.add(result)
        # reading the board between coups must not change it
        board.ask(Side.BANKER)
        board.ask(Side.PLAYER)
        board.big_road.grid(width=4)
    assert board.to_dict() == Scoreboard.from_results(results).to_dict()
    assert board.render() == Scoreboard.from_results(results).render()

    columns = naive_columns(results)
    lengths = [len(column) for column in columns]
    assert list(board.big_road.lengths) == lengths
    assert [[cell.side.value for cell in col] for col in board.big_road.columns] == [
        [w.value for w in col] for col in columns
    ]
    # the logical columns hold every non-tie coup, once
    assert sum(board.big_road.lengths) == sum(r.winner is not Winner.TIE for r in results)
    assert len(board.big_road) == sum(lengths)
    # every tie is marked somewhere on the big road, or is still waiting for a first win
    ties = sum(r.winner is Winner.TIE for r in results)
    marked = sum(cell.tie_marks for cell in board.big_road.entries)
    assert marked == ties if board.big_road.last else board.big_road.leading_ties == ties
    for road in board.derived_roads:
        assert _letters(road.entries) == naive_derived(lengths, road.k)
        assert len(road) == entries_from_start(lengths, road.k)
        check_drawn(road.tail, list(road.lengths))
    check_drawn(board.big_road.tail, lengths)
    assert board.stats.to_dict() == {
        "coups": len(results),
        "banker": sum(r.winner is Winner.BANKER for r in results),
        "player": sum(r.winner is Winner.PLAYER for r in results),
        "tie": ties,
        "player_pairs": sum(r.player_pair for r in results),
        "banker_pairs": sum(r.banker_pair for r in results),
        "naturals": sum(r.natural for r in results),
    }
    assert len(board.bead_plate) == len(results)
    bead = board.bead_plate.grid()
    down_columns = [bead[y][x] for x in range(board.bead_plate.width) for y in range(6)]
    assert [cell for cell in down_columns if cell is not None] == results
    assert all(cell is not None for cell in down_columns[: len(results)])


@settings(max_examples=150, deadline=None)
@given(results=results_st, side=sides_st)
def test_ask_is_the_mark_the_next_win_would_add(results: list[Result], side: Side) -> None:
    board = Scoreboard.from_results(results)
    before = board.to_dict()
    ask, other = board.ask(side), board.ask(side.other)
    assert board.to_dict() == before
    board.add(Result(Winner.BANKER if side is Side.BANKER else Winner.PLAYER))
    for name in ROAD_NAMES:
        expected: Colour | None = getattr(ask, name)
        opposite: Colour | None = getattr(other, name)
        road: DerivedRoad = getattr(board, name)
        road_before = before[name]["cells"]
        if expected is None:
            assert opposite is None
            assert len(road) == len(road_before)
        else:
            assert opposite is expected.other
            assert len(road) == len(road_before) + 1
            assert road.entries[-1] is expected


@settings(max_examples=100, deadline=None)
@given(results=results_st)
def test_json_round_trip_and_display_positions(results: list[Result]) -> None:
    board = Scoreboard.from_results(results)
    text = board.to_json()
    assert Scoreboard.from_json(text) == board
    data = json.loads(text)
    grid = board.big_road.grid()
    for cell in data["big_road"]["cells"]:
        drawn = grid[cell["y"]][cell["x"]]
        assert drawn is not None
        assert drawn.coup == cell["coup"]
        assert board.big_road.cell(cell["column"], cell["row"]) is drawn
    for name in ROAD_NAMES:
        road_grid = getattr(board, name).grid()
        for cell in data[name]["cells"]:
            assert road_grid[cell["y"]][cell["x"]].value == cell["colour"]
    for cell in data["bead_plate"]["cells"]:
        assert board.bead_plate.grid()[cell["y"]][cell["x"]] == Result.from_dict(cell)


@settings(max_examples=60, deadline=None)
@given(lengths=st.lists(st.integers(1, 20), max_size=25), rows=st.integers(1, 8))
def test_dragon_tail_draws_any_columns(lengths: list[int], rows: int) -> None:
    tail = DragonTail(rows)
    for n in lengths:
        tail.new_column()
        for _ in range(n - 1):
            tail.extend()
    check_drawn(tail, lengths)
