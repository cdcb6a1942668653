"""Money: exact stakes in whole minor units, and the named rounding policies for
winnings at odds that do not divide the stake (Banker 0.95 to 1, 3 to 2, 1 to 2)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from punto.errors import WagerError
from punto.money import CENT, Rounding, format_money, parse_stake, winnings
from punto.rules.coup import Coup
from punto.rules.games import get_game
from punto.rules.settlement import Bet, Outcome, settle

BANKER = Fraction(19, 20)  # 0.95 to 1 (Tiger Baccarat 4.1)
THREE_TO_TWO = Fraction(3, 2)  # Insurance Plus 3 to 2 (Tiger Buffalo 4.1.15)
ONE_TO_TWO = Fraction(1, 2)  # Banker wins on six (Tiger No Commission)

D, HU, HE, U = Rounding.DOWN, Rounding.HALF_UP, Rounding.HALF_EVEN, Rounding.UP


@pytest.mark.parametrize(
    ("stake", "odds", "exact", "expected"),
    [
        # stake, odds, the exact winnings, then DOWN / HALF_UP / HALF_EVEN / UP
        ("0.10", BANKER, "0.095", ("0.09", "0.10", "0.10", "0.10")),
        ("0.30", BANKER, "0.285", ("0.28", "0.29", "0.28", "0.29")),
        ("0.01", BANKER, "0.0095", ("0.00", "0.01", "0.01", "0.01")),
        ("0.05", BANKER, "0.0475", ("0.04", "0.05", "0.05", "0.05")),
        ("0.11", BANKER, "0.1045", ("0.10", "0.10", "0.10", "0.11")),
        ("0.01", THREE_TO_TWO, "0.015", ("0.01", "0.02", "0.02", "0.02")),
        ("0.03", THREE_TO_TWO, "0.045", ("0.04", "0.05", "0.04", "0.05")),
        ("0.01", ONE_TO_TWO, "0.005", ("0.00", "0.01", "0.00", "0.01")),
        ("0.03", ONE_TO_TWO, "0.015", ("0.01", "0.02", "0.02", "0.02")),
        ("12.35", BANKER, "11.7325", ("11.73", "11.73", "11.73", "11.74")),
    ],
)
def test_rounding_policies_on_stakes_that_do_not_divide(
    stake: str, odds: Fraction, exact: str, expected: tuple[str, str, str, str]
) -> None:
    assert Fraction(Decimal(stake)) * odds == Fraction(Decimal(exact))
    for rounding, want in zip((D, HU, HE, U), expected, strict=True):
        got = winnings(Decimal(stake), odds, rounding=rounding)
        assert got == Decimal(want), rounding
        assert str(got) == want, "winnings are quantized to the minor unit"


@pytest.mark.parametrize("rounding", list(Rounding))
@pytest.mark.parametrize(
    ("stake", "odds", "expected"),
    [
        ("100", BANKER, "95.00"),
        ("5", BANKER, "4.75"),
        ("0.20", BANKER, "0.19"),
        ("10", Fraction(20), "200.00"),
        ("0.02", THREE_TO_TWO, "0.03"),
        ("7.50", Fraction(1), "7.50"),
    ],
)
def test_exact_winnings_are_not_rounded(
    stake: str, odds: Fraction, expected: str, rounding: Rounding
) -> None:
    assert str(winnings(Decimal(stake), odds, rounding=rounding)) == expected


def test_default_rounding_is_down() -> None:
    assert winnings(Decimal("0.10"), BANKER) == Decimal("0.09")


@pytest.mark.parametrize(
    ("rounding", "expected"),
    [(D, "4"), (HU, "5"), (HE, "5"), (U, "5")],
)
def test_other_minor_unit(rounding: Rounding, expected: str) -> None:
    """A table paying in whole dollars: 0.95 to 1 on 5 is 4.75."""
    got = winnings(Decimal(5), BANKER, minor_unit=Decimal(1), rounding=rounding)
    assert got == Decimal(expected)
    assert str(got) == expected


@pytest.mark.parametrize(
    ("units", "down", "half_up", "half_even", "up"),
    [
        (Fraction(0), 0, 0, 0, 0),
        (Fraction(7), 7, 7, 7, 7),
        (Fraction(1, 2), 0, 1, 0, 1),
        (Fraction(3, 2), 1, 2, 2, 2),
        (Fraction(5, 2), 2, 3, 2, 3),
        (Fraction(19, 20), 0, 1, 1, 1),
        (Fraction(9, 20), 0, 0, 0, 1),
        (Fraction(2001, 1000), 2, 2, 2, 3),
    ],
)
def test_rounding_round(units: Fraction, down: int, half_up: int, half_even: int, up: int) -> None:
    assert (D.round(units), HU.round(units), HE.round(units), U.round(units)) == (
        down,
        half_up,
        half_even,
        up,
    )


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("100", Decimal("100")),
        ("12.50", Decimal("12.50")),
        ("0.01", Decimal("0.01")),
        (" 7 ", Decimal("7")),
        (25, Decimal("25")),
        (Decimal("3.10"), Decimal("3.10")),
        ("12.5", Decimal("12.5")),
    ],
)
def test_parse_stake_accepts_whole_minor_units(text: str | int | Decimal, amount: Decimal) -> None:
    assert parse_stake(text) == amount


@pytest.mark.parametrize("text", ["12.345", "0.001", "0.005", "1.999"])
def test_stake_that_is_not_whole_cents_is_refused(text: str) -> None:
    with pytest.raises(WagerError, match=r"not a whole number of minor units \(0\.01\)") as caught:
        parse_stake(text)
    assert repr(text) in str(caught.value)
    assert "round it to 0.01" in str(caught.value)


@pytest.mark.parametrize("text", ["0", "-5", "-0.01", "0.00"])
def test_stake_must_be_positive(text: str) -> None:
    with pytest.raises(WagerError, match="must be a positive amount"):
        parse_stake(text)


@pytest.mark.parametrize("text", ["abc", "", "1,000", "ten"])
def test_stake_must_be_money(text: str) -> None:
    with pytest.raises(WagerError, match="is not an amount of money"):
        parse_stake(text)


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity"])
def test_stake_must_be_finite(text: str) -> None:
    with pytest.raises(WagerError):
        parse_stake(text)


def test_parse_stake_with_another_minor_unit() -> None:
    assert parse_stake("25", Decimal(5)) == Decimal(25)
    with pytest.raises(WagerError, match=r"\(1\)"):
        parse_stake("12.50", Decimal(1))


def test_format_money() -> None:
    assert format_money(Decimal("1E+2")) == "100.00"
    assert format_money(Decimal("-4.5")) == "-4.50"
    assert format_money(Decimal("0")) == "0.00"
    assert format_money(Decimal("95"), Decimal(1)) == "95"
    assert Decimal("0.01") == CENT


# --- rounding through settlement -------------------------------------------------------

BANKER_WINS = Coup.parse("2H 9C 3D KS")  # Player 5 v Banker 9 (a Natural)
BANKER_WINS_ON_SIX = Coup.parse("TH 3C TD 3S 5D")  # Player 0+5 v Banker 6, who stands


def test_settlement_coups_are_as_described() -> None:
    assert (BANKER_WINS.player.total, BANKER_WINS.banker.total) == (5, 9)
    assert BANKER_WINS.natural
    assert (BANKER_WINS_ON_SIX.player.total, BANKER_WINS_ON_SIX.banker.total) == (5, 6)
    assert BANKER_WINS_ON_SIX.banker.card_count == 2


@pytest.mark.parametrize(
    ("rounding", "net"), [(D, "0.09"), (HU, "0.10"), (HE, "0.10"), (U, "0.10")]
)
def test_tiger_baccarat_4_1_banker_commission_rounding_in_settlement(
    rounding: Rounding, net: str
) -> None:
    game = get_game("tiger-baccarat")
    result = settle(game, BANKER_WINS, [Bet("banker", Decimal("0.10"))], rounding=rounding)
    (r,) = result.results
    assert r.outcome is Outcome.WIN
    assert r.net == Decimal(net)
    assert result.net == Decimal(net)


def test_settlement_default_rounding_keeps_the_fraction_for_the_house() -> None:
    game = get_game("tiger-baccarat")
    result = settle(game, BANKER_WINS, [Bet("banker", Decimal("0.01"))])
    (r,) = result.results
    assert r.outcome is Outcome.WIN
    assert r.net == Decimal("0.00")


@pytest.mark.parametrize(
    ("rounding", "net"), [(D, "0.00"), (HU, "0.01"), (HE, "0.00"), (U, "0.01")]
)
def test_tiger_no_commission_banker_wins_on_six_pays_1_to_2_rounded(
    rounding: Rounding, net: str
) -> None:
    game = get_game("tiger-no-commission")
    result = settle(game, BANKER_WINS_ON_SIX, [Bet("banker", Decimal("0.01"))], rounding=rounding)
    (r,) = result.results
    assert r.event == "win_on_six"
    assert r.outcome is Outcome.WIN
    assert r.net == Decimal(net)


@pytest.mark.parametrize(
    "text",
    ["1E+2", "1e2", "1_000", "١٠٠", "１００", "+5", "1.", ".5", "1..2", "12,50", "0x10", "½"],
)
def test_tiger_baccarat_3_5_1_stake_is_ascii_digits_with_one_decimal_point(text: str) -> None:
    """A wager's amount (MBS 3.5.1: within the displayed minimum and maximum) is
    read only as a cage writes money: ASCII digits and at most one point.
    ``Decimal()`` alone would read every one of these as some number."""
    with pytest.raises(WagerError, match="is not an amount of money") as caught:
        parse_stake(text)
    assert "ASCII digits" in str(caught.value)


@pytest.mark.parametrize("value", [True, False, 12.5, 100.0, None, [100], {"a": 1}])
def test_tiger_baccarat_3_5_1_stake_is_not_a_bool_or_a_float(value: object) -> None:
    with pytest.raises(WagerError, match="is not an amount of money"):
        parse_stake(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["12.500", "100.00000"])
def test_tiger_baccarat_3_5_1_stake_has_at_most_two_decimals(text: str) -> None:
    with pytest.raises(WagerError, match="has more than 2 decimals") as caught:
        parse_stake(text)
    assert "write it as" in str(caught.value)


@pytest.mark.parametrize(
    "value",
    ["1" + "0" * 15, 10**15, 10**5000, "9" * 5000],
    ids=["16 digits", "10**15", "10**5000", "5000 nines"],
)
def test_tiger_baccarat_3_5_1_stake_of_more_than_fifteen_digits_is_refused(
    value: str | int,
) -> None:
    with pytest.raises(WagerError) as caught:
        parse_stake(value)
    assert len(str(caught.value)) < 200, "the refusal quotes the amount cut short"
    assert parse_stake("9" * 15 + ".99") == Decimal("999999999999999.99")
