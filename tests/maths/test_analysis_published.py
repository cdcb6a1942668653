"""The exact analysis reproduces published game mathematics.

Every figure below is computed by the enumerator and compared with the value
a public source prints (see /work/shared/REFERENCES.md); none is stored as a
result.  Counts are ordered six-card sequences.  Where a source prints a
16-digit count with only 15 significant digits, the comparison is to 15
significant digits.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from punto.analysis.composition import Composition
from punto.analysis.plan import kind_counts
from punto.analysis.tables import WagerOdds, odds_table
from punto.rules.coup import Coup, Winner
from punto.rules.games import get_game
from punto.rules.odds import Pays
from punto.rules.wagers import KINDS, Basis, PairRule, WagerKind

EIGHT = Composition.of_decks(8)


def significant(n: int, digits: int = 15) -> int:
    """``n`` rounded to ``digits`` significant digits."""
    shift = max(len(str(n)) - digits, 0)
    return round(n, -shift) if shift else n


def house_edge(counts: dict[str, int], pays: dict[str, str]) -> Fraction:
    """House edge of a wager kind's counts at the given pays (others lose)."""
    total = sum(counts.values())
    counted = [(e, Pays.parse(p), counts[e]) for e, p in pays.items()]
    return WagerOdds.of("x", "x", counted, total).house_edge_exact


def percent(x: Fraction, places: int) -> str:
    return f"{float(x) * 100:.{places}f}"


def _local_kind(name: str, fn: object) -> WagerKind:
    """A wager kind no game offers, for a published side bet."""
    return WagerKind(name, ("win",), Basis.CLASS, fn, name)  # type: ignore[arg-type]


def _player_wins_with(total: int, cards: int | None = None) -> WagerKind:
    def decide(coup: Coup, rule: PairRule) -> str | None:
        ok = coup.winner is Winner.PLAYER and coup.player.total == total
        return "win" if ok and (cards is None or coup.player.card_count == cards) else None

    return _local_kind(f"player_wins_with_{total}_{cards}", decide)


def _banker_wins_with(total: int) -> WagerKind:
    def decide(coup: Coup, rule: PairRule) -> str | None:
        return "win" if coup.winner is Winner.BANKER and coup.banker.total == total else None

    return _local_kind(f"banker_wins_with_{total}", decide)


# -- main bets ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("decks", "player", "banker", "ties", "total", "digits"),
    [
        (4, 33_608_344_225_792, 34_543_624_867_840, 7_145_601_996_928, 75_297_571_090_560, 17),
        (6, 392_220_492_728_832, 403_095_751_234_560, 83_552_962_932_288, 878_869_206_895_680, 17),
        (
            8,
            2_230_518_282_592_256,
            2_292_252_566_437_888,
            475_627_426_473_216,
            4_998_398_275_503_360,
            17,
        ),
        (
            10,
            8_570_454_841_408_000,
            8_807_402_586_035_200,
            1_828_629_499_384_000,
            19_206_486_926_827_200,
            15,
        ),
    ],
)
def test_main_bet_counts(
    decks: int, player: int, banker: int, ties: int, total: int, digits: int
) -> None:
    """Wizard of Odds, wizardofodds.com/games/baccarat/one-to-twelve-decks/ (4, 6, 8
    decks) and wizardofodds.com/games/baccarat/ten-deck/ (10 decks, compared to 15
    significant digits)."""
    shoe = Composition.of_decks(decks)
    won = kind_counts(KINDS["player"], shoe)
    lost = kind_counts(KINDS["banker"], shoe)
    got = (won["win"], lost["win"], won["tie"], shoe.sequences)
    expected = (player, banker, ties, total)
    assert tuple(significant(x, digits) for x in got) == tuple(
        significant(x, digits) for x in expected
    )
    assert sum(got[:3]) == got[3]


@pytest.mark.parametrize(
    ("decks", "banker", "player", "tie"),
    [(8, "1.0579", "1.2351", "14.3596"), (6, "1.0558", "1.2374", "14.4382")],
)
def test_main_bet_house_edges(decks: int, banker: str, player: str, tie: str) -> None:
    """Wizard of Odds, wizardofodds.com/games/baccarat/one-to-twelve-decks/: Banker
    (0.95 to 1), Player and Tie at 8 to 1, ties counted in the edge."""
    table = odds_table(get_game("tiger-baccarat"), Composition.of_decks(decks))
    edges = {w: percent(table.wagers[w].house_edge_exact, 4) for w in ("banker", "player", "tie")}
    assert edges == {"banker": banker, "player": player, "tie": tie}


def test_tie_at_nine_to_one() -> None:
    """Wizard of Odds, one-to-twelve-decks page: Tie at 9 to 1, 8 decks, 4.8440%."""
    counts = kind_counts(KINDS["tie"], EIGHT)
    assert percent(house_edge(counts, {"tie": "9 to 1"}), 4) == "4.8440"


# -- side bets ----------------------------------------------------------------------------


def test_no_commission_banker() -> None:
    """888casino.com blog, "card counting the Super Six", and excelpunks.com
    2018/05/12: no-commission Banker paying 1 to 2 on a winning 6, house edge
    1.4581%; the Banker wins on a 6 in 269,232,304,455,680 sequences."""
    banker = odds_table(get_game("tiger-no-commission"), EIGHT).wagers["banker"]
    assert percent(banker.house_edge_exact, 4) == "1.4581"
    assert banker.event("win_on_six").combinations == 269_232_304_455_680


def test_banker_wins_with_six_by_cards() -> None:
    """Wizard of Odds, wizardofodds.com/games/baccarat/side-bets/lucky-6/: the Banker
    wins with a two-card 6 in 186,173,936,904,192 sequences, a three-card 6 in
    83,058,367,551,488."""
    tiger = kind_counts(KINDS["tiger"], EIGHT)
    assert (tiger["two_cards"], tiger["three_cards"]) == (186_173_936_904_192, 83_058_367_551_488)


def test_tie_on_six() -> None:
    """Wizard of Odds, Egalite page: a Tie on 6-6 in 96,170,001,308,416 sequences."""
    assert kind_counts(KINDS["tiger_tie"], EIGHT)["win"] == 96_170_001_308_416


def test_tiger_stingy_pay_table() -> None:
    """Wizard of Odds, Lucky 6 page, the "stingy" 12/20 table: house edge 16.6836%
    (the Tiger wager of Tiger Baccarat 4.3)."""
    tiger = odds_table(get_game("tiger-baccarat"), EIGHT).wagers["tiger"]
    assert percent(tiger.house_edge_exact, 4) == "16.6836"


def test_lucky_six() -> None:
    """Wizard of Odds, wizardofodds.com/games/baccarat/counting-lucky-6/: Lucky 6
    paying 12 (two cards) and 23 (three cards), house edge 11.6985%."""
    counts = kind_counts(KINDS["tiger"], EIGHT)
    edge = house_edge(counts, {"two_cards": "12 to 1", "three_cards": "23 to 1"})
    assert percent(edge, 4) == "11.6985"


def test_big_tiger() -> None:
    """advancedadvantageplay.com, "card counting the Big Tiger" (2024): Big Tiger at
    50 to 1, house edge 15.2533%."""
    big = odds_table(get_game("tiger-baccarat"), EIGHT).wagers["big_tiger"]
    assert percent(big.house_edge_exact, 4) == "15.2533"


@pytest.mark.parametrize("wager", ["player_pair", "banker_pair"])
def test_pairs_at_eleven_to_one(wager: str) -> None:
    """888casino.com blog, pairs bet: a Player or Banker Pair at 11 to 1, house edge
    10.361% (Baccarat Tournament 3.8, pairs by rank)."""
    pair = odds_table(get_game("baccarat-tournament"), EIGHT).wagers[wager]
    assert percent(pair.house_edge_exact, 3) == "10.361"


def test_dragon_seven() -> None:
    """888casino.com blog, Dragon/Fortune 7: the Banker wins with a three-card 7 in
    112,633,011,329,024 sequences; at 40 to 1 the house edge is 7.6113%."""
    counts = kind_counts(KINDS["banker_big_7"], EIGHT)
    assert counts["win"] == 112_633_011_329_024
    assert percent(house_edge(counts, {"win": "40 to 1"}), 4) == "7.6113"


def test_panda_eight() -> None:
    """888casino.com blog family, Panda 8: the Player wins with a three-card 8 in
    172,660,763,262,976 sequences; at 25 to 1 the house edge is 10.1876%."""
    counts = kind_counts(_player_wins_with(8, 3), EIGHT)
    assert counts["win"] == 172_660_763_262_976
    assert percent(house_edge(counts, {"win": "25 to 1"}), 4) == "10.1876"


def test_winning_totals() -> None:
    """Wizard of Odds, Super Baccarat page: the Player wins with 7 in
    408,043,979,470,848 sequences, the Banker with 7 in 384,279,324,919,808, the
    Player with 6 in 312,658,895,192,064; "winning side and total" page: the Player
    wins with 1 in 24,639,193,538,560."""
    assert kind_counts(_player_wins_with(7), EIGHT)["win"] == 408_043_979_470_848
    assert kind_counts(_banker_wins_with(7), EIGHT)["win"] == 384_279_324_919_808
    assert kind_counts(_player_wins_with(6), EIGHT)["win"] == 312_658_895_192_064
    assert kind_counts(KINDS["wu_dalang"], EIGHT)["win"] == 24_639_193_538_560


def test_player_three_card_six() -> None:
    """Wizard of Odds, wizardofodds.com/games/baccarat/side-bets/ox-6/: the Player wins
    with a three-card 6 in 109,309,407,541,248 sequences (Big Buffalo, Tiger Buffalo
    4.1.6)."""
    assert kind_counts(KINDS["big_buffalo"], EIGHT)["win"] == 109_309_407_541_248


def test_tiger_pair_readings_differ() -> None:
    """Tiger Baccarat 1.1.14 read literally (a Ten with a face card is a Pair) makes
    Pairs far more frequent than the rank reading; the analysis shows both."""
    literal = odds_table(get_game("tiger-baccarat"), EIGHT, pair_rule=PairRule.LITERAL)
    rank = odds_table(get_game("tiger-baccarat"), EIGHT, pair_rule=PairRule.RANK)
    assert literal.wagers["tiger_pair"].return_exact > 0 > rank.wagers["tiger_pair"].return_exact
    no_commission = odds_table(get_game("tiger-no-commission"), EIGHT)
    assert rank.wagers["tiger_pair"].return_exact == no_commission.wagers["tiger_pair"].return_exact
