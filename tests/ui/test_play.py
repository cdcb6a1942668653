"""``punto play``: a scripted person at the table.

Every session is fed a script of typed lines and a fixed seed; the expected
coups come from the same seeded shoe, dealt by :func:`punto.rules.coup.deal`, and the
expected money from :func:`punto.rules.settlement.settle`, so the table -- a live
table's rounds under its limits -- is checked against the plain rules, not
against itself.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Callable, Iterator
from decimal import Decimal

import pytest
from rich.console import Console

from punto.cli import main
from punto.money import format_money
from punto.rules.coup import Coup, Deal, Side, deal
from punto.rules.game import Game
from punto.rules.games import get_game
from punto.rules.insurance import InsuranceOffer, Moment, moment_of
from punto.rules.settlement import Bet, Settlement, settle
from punto.rules.shoe import Shoe, verify_commitment
from punto.table.limits import DEFAULT_LIMITS, TableLimits
from punto.ui.playtable import PlayOptions, PlayTable, console_input
from punto.ui.playtable_text import RoundRecord

SEED = 3


class Session:
    """A finished scripted session: the table, its transcript and its exit code."""

    def __init__(self, table: PlayTable, text: str, code: int) -> None:
        self.table = table
        self.text = text
        self.code = code

    @property
    def settlement_rows(self) -> list[list[str]]:
        """The rows of every settlement table printed, cell by cell."""
        rows = []
        for line in self.text.splitlines():
            if line.count("│") == 5:
                rows.append([cell.strip() for cell in line.split("│")])
        return rows

    def bankroll_lines(self) -> list[str]:
        return re.findall(r"Net this coup \S+ +Bankroll: (-?\d+\.\d\d)", self.text)


def play(
    game_id: str,
    script: str,
    *,
    layout: str | None = None,
    seed: int | str = SEED,
    sleep: Callable[[float], None] | None = None,
    decks: int = 8,
    bankroll: Decimal = Decimal(10000),
    cut_card: int = 14,
    delay: float = 0,
    limits: TableLimits = DEFAULT_LIMITS,
) -> Session:
    """Run a session on ``script`` (lines as typed) and capture what it printed."""
    out = Console(file=io.StringIO(), width=200, color_system=None)
    options = PlayOptions(
        decks=decks, seed=seed, bankroll=bankroll, cut_card=cut_card, delay=delay, limits=limits
    )
    table = PlayTable(
        get_game(game_id),
        layout=layout,
        console=out,
        input_fn=console_input(out, io.StringIO(script)),
        options=options,
        sleep=sleep if sleep is not None else _no_pause,
    )
    code = table.run()
    text = out.file.getvalue()  # type: ignore[attr-defined]
    return Session(table, text, code)


def _no_pause(seconds: float) -> None:
    raise AssertionError(f"paused {seconds}s with no delay set")


def reference_shoe(
    game: Game, seed: int | str = SEED, decks: int = 8, behind: int = 14, number: int = 1
) -> Shoe:
    """Shoe ``number`` of a session: the live table shuffles it from "SEED:N"."""
    return game.new_shoe(decks, seed=f"{seed}:{number}", cut_card=decks * 52 - behind)


def reference_coups(game: Game, seed: int | str = SEED, decks: int = 8) -> Iterator[Coup]:
    shoe = reference_shoe(game, seed, decks)
    while True:
        yield deal(shoe)


def signed(amount: Decimal) -> str:
    return f"+{format_money(amount)}" if amount > 0 else format_money(amount)


def engine_results(record: RoundRecord) -> list[tuple[str, Decimal, str, str | None, Decimal]]:
    """The round's settlement of a coup: wager, stake, outcome, event, net per bet."""
    return [(s.bet.wager, s.bet.stake, s.outcome, s.event, s.net) for s in record.results]


def expected_results(expected: Settlement) -> list[tuple[str, Decimal, str, str | None, Decimal]]:
    """What :func:`punto.rules.settlement.settle` says of the same bets on the same coup."""
    return [(r.bet.wager, r.bet.stake, r.outcome.value, r.event, r.net) for r in expected.results]


def first_seed(game: Game, wanted: Callable[[Coup], bool], limit: int = 2000) -> int:
    """The first seed whose first coup is ``wanted``."""
    for seed in range(limit):
        if wanted(next(reference_coups(game, seed))):
            return seed
    raise AssertionError("no seed found")  # pragma: no cover


# -- bets, deal and settlement ----------------------------------------------------


def test_settlement_and_bankroll_match_settle_on_the_same_shoe() -> None:
    game = get_game("tiger-baccarat")
    # A seed whose first coup is a Tiger (Banker wins with six), so winners pay odds.
    seed = first_seed(game, lambda c: c.winner.value == "banker" and c.banker.total == 6)
    # Stakes of at least the table minimum of 10 (3.5.1): the round refuses less.
    script = "banker 100\ntiger 10\ntiger_pair 10\ndeal\nplayer 50\ntie 10\ndeal\nquit\n"
    session = play("tiger-baccarat", script, seed=seed)
    assert session.code == 0

    coups = reference_coups(game, seed)
    rounds = [
        [Bet("banker", Decimal(100)), Bet("tiger", Decimal(10)), Bet("tiger_pair", Decimal(10))],
        [Bet("player", Decimal(50)), Bet("tie", Decimal(10))],
    ]
    bankroll = Decimal(10000)
    expected_rows = []
    expected_bankrolls = []
    for record, bets in zip(session.table.history, rounds, strict=True):
        coup = next(coups)
        assert record.coup == coup
        expected = settle(game, coup, bets, pair_rule=game.pair_rule)
        assert engine_results(record) == expected_results(expected)
        assert record.net == expected.net
        bankroll += expected.net
        assert record.bankroll == bankroll
        expected_bankrolls.append(format_money(bankroll))
        for r in expected.results:
            expected_rows.append(
                [
                    game.wagers[r.bet.wager].name,
                    format_money(r.bet.stake),
                    r.outcome.value,
                    r.event.replace("_", " ") if r.event else "-",
                    r.pays or "-",
                    signed(r.net),
                ]
            )
    # The first coup paid the Banker at 0.95 to 1 and the Tiger at its odds.
    assert expected_rows[0][2] == "win"
    assert expected_rows[0][5] == "+95.00"
    assert expected_rows[1][2] == "win"
    assert session.settlement_rows == expected_rows
    assert session.bankroll_lines() == expected_bankrolls
    assert session.table.bankroll == bankroll
    assert isinstance(session.table.bankroll, Decimal)
    assert f"net {signed(bankroll - 10000)}, bankroll {format_money(bankroll)}" in session.text
    assert "2 rounds in 1 shoe, staked 180.00" in session.text


def test_the_deal_is_shown_card_by_card_with_totals() -> None:
    game = get_game("tiger-baccarat")
    session = play("tiger-baccarat", "banker 10\ndeal\n")
    coup = next(reference_coups(game))
    state = Deal()
    lines = iter(session.text.splitlines())
    for card in coup.cards:
        side = state.next_side
        assert side is not None
        state = state.add(card)
        hand = state.player if side is Side.PLAYER else state.banker
        shown = " ".join(c.pretty() for c in hand.cards)
        pattern = rf"^\s+{side.value.title()}\s+{re.escape(card.pretty())}\s+{re.escape(shown)} = {hand.total}$"
        assert any(re.match(pattern, line) for line in lines), pattern
    assert f"Player {' '.join(c.pretty() for c in coup.player.cards)} ({coup.player.total})" in (
        session.text
    )


def test_fractional_commission_is_rounded_down_in_decimal_money() -> None:
    game = get_game("tiger-baccarat")
    seed = first_seed(game, lambda c: c.winner.value == "banker")
    session = play("tiger-baccarat", "banker 12.50\ndeal\n", seed=seed)
    # 12.50 at 0.95 to 1 is 11.875: paid 11.87 (money.Rounding.DOWN)
    assert session.settlement_rows == [["Banker", "12.50", "win", "win", "0.95 to 1", "+11.87"]]
    assert session.table.bankroll == Decimal("10011.87")
    assert "Bankroll: 10011.87" in session.text


def test_stakes_accumulate_and_can_be_cleared_and_repeated() -> None:
    # "banker 5" adds to the bet of 10 below the table minimum: the minimum
    # applies to the wager as a whole (3.5.1), so the 15 stands.
    script = (
        "banker 10\nbanker 5\nbets\nclear banker\nplayer 10\nclear\nbets\n"
        "big tiger 10\nban 20\n30 tie\ndeal\nrebet\ndeal\n"
    )
    session = play("tiger-baccarat", script)
    first, second = session.table.history
    assert first.bets == (
        Bet("big_tiger", Decimal(10)),
        Bet("banker", Decimal(20)),
        Bet("tie", Decimal(30)),
    )
    assert second.bets == first.bets
    assert "Banker: 15.00" in session.text
    assert "Bet on Banker taken back." in session.text
    assert "Bets cleared." in session.text
    assert "No bets on the table." in session.text


def test_a_coup_without_bets_is_dealt_to_watch() -> None:
    session = play("baccarat-tournament", "deal\n")
    (record,) = session.table.history
    assert record.coup == next(reference_coups(get_game("baccarat-tournament")))
    assert session.table.bankroll == Decimal(10000)
    assert "No bets: the coup is dealt for you to watch." in session.text


# -- bad input --------------------------------------------------------------------


def test_bad_input_is_refused_with_a_message_and_the_table_asks_again() -> None:
    bad = [
        ("foo", "unknown command 'foo'"),
        ("banker abc", "stake 'abc' is not an amount of money"),
        ("banker 12.345", "not a whole number of minor units"),
        ("banker -5", "must be a positive amount"),
        ("banker 0", "must be a positive amount"),
        ("banker NaN", "must be a positive amount"),
        # the table maximum (3.5.1) refuses it before the bankroll is asked
        ("banker 99999", "over its maximum of 10000.00 (clause 3.5.1)"),
        ("banker 5", "banker 5.00 is under the table minimum of 10.00 (clause 3.5.1)"),
        ("tie", "say how much to stake on Tie"),
        ("25", "which wager is the 25 on?"),
        ("dragon 10", "there is no wager 'dragon' at this table"),
        ("ti 10", "'ti' could be tie, tiger, tiger_pair, tiger_tie"),
        ("clear tiger", "there is no bet on Tiger to clear"),
        ("rebet", "there were no bets on the last coup"),
        ("bet", "which wager?"),
        ("deal now", "'deal' takes nothing after it"),
        ("[bold]x[/bold] 5", "there is no wager '[bold]x[/bold]'"),
        ("[/] 5", "there is no wager '[/]'"),
    ]
    script = "".join(f"{line}\n" for line, _ in bad) + "\n   \nbanker 10\ndeal\n"
    session = play("tiger-baccarat", script)
    assert session.code == 0
    for _, message in bad:
        assert message in session.text, message
    assert session.text.count("✗ ") == len(bad)
    # every line got a prompt, and one more prompt met the end of input
    assert session.text.count("bet> ") == len(bad) + 4 + 1
    (record,) = session.table.history
    assert record.bets == (Bet("banker", Decimal(10)),)


def test_help_lists_the_commands() -> None:
    session = play("dragon-tiger", "help\nwagers\nshoe\n")
    for command in ("clear", "rebet", "bets", "wagers", "shoe", "deal", "quit"):
        assert re.search(rf"^\s+{command}\b", session.text, re.MULTILINE), command
    assert session.text.count("Wagers on offer") == 2
    assert session.text.count("SHA-256 commitment") == 3  # start, 'shoe', reveal at the end


def test_a_stake_above_the_bankroll_is_refused() -> None:
    session = play(
        "tiger-baccarat", "banker 60\nplayer 50\nplayer 40\ndeal\n", bankroll=Decimal(100)
    )
    assert "a stake of 50.00 is more than your bankroll allows" in session.text
    assert "you can stake up to 40.00 more" in session.text
    (record,) = session.table.history
    assert record.bets == (Bet("banker", Decimal(60)), Bet("player", Decimal(40)))


def test_a_wager_of_another_layout_is_refused_with_its_clause() -> None:
    session = play("tiger-buffalo", "banker_big_7 10\nplayer_insurance 10\n", layout="A")
    assert "banker_big_7 is not offered on layout A of tiger-buffalo (clause 1.2, 4.1.7)" in (
        session.text
    )
    # The round refuses Insurance while betting is open: it is placed when offered (3.12).
    assert (
        "player_insurance is placed when offered, after the cards are out, not while betting "
        "(clause 3.12)" in session.text
    )


def test_end_of_input_ends_the_session_cleanly() -> None:
    session = play("tiger-baccarat", "")
    assert session.code == 0
    assert session.table.history == []
    assert "0 rounds in 1 shoe, staked 0.00, net 0.00, bankroll 10000.00" in session.text


def test_end_of_input_with_bets_on_the_table_deals_nothing() -> None:
    session = play("tiger-baccarat", "banker 100\n")
    assert session.code == 0
    assert session.table.history == []
    assert session.table.bankroll == Decimal(10000)


def test_quit_reveals_the_unfinished_shoe() -> None:
    game = get_game("tiger-baccarat")
    session = play("tiger-baccarat", "deal\nquit\nbanker 10\n")
    assert len(session.table.history) == 1  # nothing read after quit
    shoe = reference_shoe(game)
    (revealed,) = session.table.shoes
    assert revealed.commitment == shoe.commitment
    assert (revealed.nonce, revealed.order) == shoe.reveal()
    assert revealed.verified
    assert "The table closes with shoe 1 unfinished." in session.text


def test_the_pause_between_cards_uses_the_delay() -> None:
    pauses: list[float] = []
    session = play("tiger-baccarat", "deal\ndeal\n", sleep=pauses.append, delay=0.25)
    cards = sum(len(r.coup.cards) for r in session.table.history if r.coup)
    assert pauses == [0.25] * (cards - 2)  # none before the first card of a coup


def test_a_negative_delay_is_refused() -> None:
    with pytest.raises(Exception, match="delay of -1"):
        play("tiger-baccarat", "", delay=-1.0)


# -- Insurance Plus (Tiger Buffalo) -----------------------------------------------


def offers_in(game: Game, coup: Coup) -> list[InsuranceOffer]:
    """The offers made during ``coup``, in order, at both moments."""
    assert game.insurance is not None
    found = []
    for n in (4, 5):
        state = Deal(coup.cards[:n])
        if n <= len(coup.cards) and moment_of(state) is not None:
            found.extend(game.insurance.offers(state))
    return found


def test_tiger_buffalo_insurance_is_offered_with_odds_and_cap() -> None:
    game = get_game("tiger-buffalo")
    seed = first_seed(game, lambda c: any(o.insures is Side.PLAYER for o in offers_in(game, c)))
    coup = next(reference_coups(game, seed))
    offer = next(o for o in offers_in(game, coup) if o.insures is Side.PLAYER)
    # Over the cap first (refused, 3.12.2), then a stake within it.
    script = "player 100\ndeal\n150\nlots\n40\n"
    session = play("tiger-buffalo", script, layout="A", seed=seed)
    assert session.code == 0
    assert f"pays {offer.row.pays} if the Player hand loses" in session.text
    assert "Cap 100.00 (3.12.2: your Original Bet on Player is 100.00)" in session.text
    # the round's refusal of a stake over the cap (3.11, 3.12.2)
    assert (
        "you may stake at most 100.00 on Player Insurance now (clause 3.11, 3.12.2)" in session.text
    )
    assert "stake 'lots' is not an amount of money" in session.text
    assert session.text.count("insure player> ") == 3
    (record,) = session.table.history
    bets = (Bet("player", Decimal(100)), Bet("player_insurance", Decimal(40), offer.moment))
    assert record.bets == bets
    expected = settle(game, coup, bets, layout="A")
    assert engine_results(record) == expected_results(expected)
    assert record.bankroll == 10000 + expected.net
    insurance_row = next(r for r in session.settlement_rows if "Player Insurance" in r[0])
    assert insurance_row[0] == f"Player Insurance ({offer.moment.words})"
    assert insurance_row[5] == signed(expected.results[1].net)


def test_every_insurance_offer_on_a_hand_bet_on_is_made_and_can_be_passed() -> None:
    game = get_game("tiger-buffalo")
    # A coup with an offer after the Player's third card.
    seed = first_seed(
        game,
        lambda c: any(o.moment is Moment.PLAYER_THIRD_CARD for o in offers_in(game, c)),
    )
    coup = next(reference_coups(game, seed))
    offers = offers_in(game, coup)
    answers = ["max" if o.moment is Moment.PLAYER_THIRD_CARD else "pass" for o in offers]
    script = "player 100\nbanker 50\ndeal\n" + "".join(f"{a}\n" for a in answers)
    session = play("tiger-buffalo", script, layout="B", seed=seed)
    prompts = re.findall(r"insure (player|banker)> (\w+)", session.text)
    assert prompts == [(o.insures.value, a) for o, a in zip(offers, answers, strict=True)]
    (record,) = session.table.history
    caps = {Side.PLAYER: Decimal(100), Side.BANKER: Decimal(50)}
    taken = tuple(
        Bet(f"{o.insures.value}_insurance", caps[o.insures], o.moment)
        for o, a in zip(offers, answers, strict=True)
        if a == "max"
    )
    assert taken
    assert record.bets == (Bet("player", Decimal(100)), Bet("banker", Decimal(50)), *taken)
    assert record.net == settle(game, coup, record.bets, layout="B").net


def test_insurance_is_offered_only_on_a_hand_with_an_original_bet() -> None:
    game = get_game("tiger-buffalo")
    seed = first_seed(
        game,
        lambda c: (
            bool(offers_in(game, c)) and all(o.insures is Side.PLAYER for o in offers_in(game, c))
        ),
    )
    session = play("tiger-buffalo", "banker 100\ntie 5\ndeal\n", layout="A", seed=seed)
    assert "Insurance Plus on" not in session.text
    assert "insure " not in session.text
    assert len(session.table.history) == 1


def test_insurance_is_limited_by_the_bankroll() -> None:
    game = get_game("tiger-buffalo")
    seed = first_seed(game, lambda c: any(o.insures is Side.PLAYER for o in offers_in(game, c)))
    session = play(
        "tiger-buffalo",
        "player 60\ntie 20\ndeal\n30\nmax\n",
        layout="A",
        seed=seed,
        bankroll=Decimal(100),
    )
    assert "your bankroll leaves 20.00" in session.text
    assert "30.00 is more than your bankroll allows" in session.text
    (record,) = session.table.history
    assert record.bets[-1].stake == Decimal(20)


def test_end_of_input_at_an_insurance_offer_passes_and_completes_the_coup() -> None:
    game = get_game("tiger-buffalo")
    seed = first_seed(game, lambda c: any(o.insures is Side.PLAYER for o in offers_in(game, c)))
    session = play("tiger-buffalo", "player 100\ndeal\n", layout="A", seed=seed)
    assert session.code == 0
    assert "No answer: passed." in session.text
    (record,) = session.table.history
    assert record.coup == next(reference_coups(game, seed))
    assert record.bets == (Bet("player", Decimal(100)),)
    assert "Session summary" in session.text


def test_no_insurance_at_games_without_it() -> None:
    game = get_game("tiger-baccarat")
    session = play("tiger-baccarat", "player 100\nbanker 100\n" + "deal\n" * 20)
    assert len(session.table.history) == 20
    assert "Insurance" not in session.text
    for record in session.table.history:
        assert record.coup is not None
        assert record.net == settle(game, record.coup, record.bets).net
    assert game.insurance is None


# -- the table's limits ----------------------------------------------------------------


def test_tiger_baccarat_3_5_1_bets_are_held_to_the_play_tables_limits() -> None:
    limits = TableLimits(Decimal(25), Decimal(200))
    script = "banker 20\nbanker 250\nbanker 150\nbanker 100\ntiger 25\ndeal\n"
    session = play("tiger-baccarat", script, limits=limits)
    text = session.text
    assert "Table limits: minimum 25.00, maximum 200.00 (clause 3.5.1)" in text
    assert "banker 20.00 is under the table minimum of 25.00 (clause 3.5.1)" in text
    assert "over its maximum of 200.00 (clause 3.5.1)" in text
    # the second stake adds to the first: the wager as a whole is over the maximum
    assert (
        "banker 250.00 would take the banker area of position 1 to 250.00, over its maximum "
        "of 200.00 (clause 3.5.1); stake at most 200.00 there" in text
    )
    assert text.count("✗ ") == 3
    (record,) = session.table.history
    assert record.bets == (Bet("banker", Decimal(150)), Bet("tiger", Decimal(25)))
    assert record.coup is not None
    assert record.net == settle(get_game("tiger-baccarat"), record.coup, record.bets).net


def test_dragon_tiger_5_18_the_differential_is_kept_before_the_deal() -> None:
    limits = TableLimits(Decimal(10), Decimal(1000), differential=Decimal(200))
    script = "player 100\nbanker 500\ndeal\nclear banker\nbanker 250\ndeal\n"
    session = play("dragon-tiger", script, limits=limits)
    assert (
        "the table differential of 200.00 is exceeded (400.00) (clause 5.18); ask the heavier "
        "side to decrease" in session.text
    )
    (record,) = session.table.history  # dealt once the differential was kept
    assert record.bets == (Bet("player", Decimal(100)), Bet("banker", Decimal(250)))


def test_tiger_buffalo_5_1_a_box_holds_no_more_than_the_differential() -> None:
    limits = TableLimits(Decimal(10), Decimal(1000), differential=Decimal(200))
    session = play("tiger-buffalo", "banker 500\nbanker 200\ndeal\n", layout="A", limits=limits)
    assert (
        "banker 500.00 would take the seated bets of the banker box of position 1 to 500.00, "
        "over its maximum of 200.00 (clause 5.1)" in session.text
    )
    (record,) = session.table.history
    assert record.bets == (Bet("banker", Decimal(200)),)


def test_tiger_buffalo_3_12_2_insurance_at_10_to_1_takes_a_quarter_of_the_maximum() -> None:
    game = get_game("tiger-buffalo")
    seed = first_seed(
        game,
        lambda c: any(o.insures is Side.PLAYER and o.odds == 10 for o in offers_in(game, c)),
    )
    coup = next(reference_coups(game, seed))
    offer = next(o for o in offers_in(game, coup) if o.insures is Side.PLAYER and o.odds == 10)
    limits = TableLimits(Decimal(10), Decimal(200))
    session = play(
        "tiger-buffalo", "player 100\ndeal\n60\nmax\n", layout="A", seed=seed, limits=limits
    )
    assert (
        "Cap 50.00 (3.12.2: your Original Bet on Player is 100.00; at 10 to 1 no more than a "
        "quarter of the table maximum of 200.00)" in session.text
    )
    assert "you may stake at most 50.00 on Player Insurance now (clause 3.11, 3.12.2)" in (
        session.text
    )
    (record,) = session.table.history
    bets = (Bet("player", Decimal(100)), Bet("player_insurance", Decimal(50), offer.moment))
    assert record.bets == bets
    expected = settle(game, coup, bets, layout="A", table_maximum=Decimal(200))
    assert engine_results(record) == expected_results(expected)


def test_cli_play_takes_the_table_limits(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("banker 20\nbanker 30\ndeal\n"))
    args = ["play", "tiger-baccarat", "--seed", "1", "--delay", "0"]
    code = main([*args, "--minimum", "25", "--maximum", "500", "--differential", "300"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert "Table limits: minimum 25.00, maximum 500.00, differential 300.00" in out
    assert "banker 20.00 is under the table minimum of 25.00 (clause 3.5.1)" in out
    assert "1 round in 1 shoe, staked 30.00" in out


# -- the cut card and the commitment ------------------------------------------------


def test_the_cut_card_ends_the_shoe_and_the_commitment_verifies() -> None:
    game = get_game("tiger-baccarat")
    decks, behind = 4, 190  # the cut card after 18 cards: a few coups
    shoe = reference_shoe(game, decks=decks, behind=behind)
    published = shoe.commitment
    coups = []
    while not shoe.cut_card_reached:
        coups.append(deal(shoe))
    script = "deal\n" * len(coups) + "y\ndeal\nquit\n"
    session = play("tiger-baccarat", script, decks=decks, cut_card=behind)
    assert session.code == 0
    first_shoe = [r.coup for r in session.table.history if r.shoe == 1]
    assert first_shoe == coups

    text = session.text
    assert text.index(f"SHA-256 commitment: {published}") < text.index("Coup 1 · shoe 1")
    assert text.count("The cut card has come out") == 1
    announced = text.index("The cut card has come out")
    assert text.index(f"Coup {len(coups)} · shoe 1") < announced < text.index("End of shoe 1")
    assert "(clause 3.22)" in text
    assert f"The cut card ended the shoe with {len(shoe)} cards left unplayed." in text

    revealed = session.table.shoes[0]
    nonce, order = shoe.reveal()
    assert (revealed.commitment, revealed.nonce, revealed.order) == (published, nonce, order)
    assert verify_commitment(published, revealed.nonce, revealed.order)
    assert revealed.verified
    assert f"nonce: {nonce}" in text
    assert f"order: {order}" in text
    assert "The commitment verifies" in text

    # A new shoe: a fresh shuffle (its own commitment), dealt from the start.
    second = reference_shoe(game, decks=decks, behind=behind, number=2)
    assert text.index("End of shoe 1") < text.index(f"SHA-256 commitment: {second.commitment}")
    assert second.commitment != published
    last = session.table.history[-1]
    assert (last.shoe, last.coup) == (2, deal(second))
    assert session.table.shoes[1].verified
    assert f"{len(coups) + 1} rounds in 2 shoes" in text


def test_leaving_at_the_end_of_a_shoe() -> None:
    game = get_game("dragon-tiger")
    shoe = reference_shoe(game, decks=4, behind=180)
    coups = 0
    while not shoe.cut_card_reached:
        deal(shoe)
        coups += 1
    session = play("dragon-tiger", "deal\n" * coups + "maybe\nn\n", decks=4, cut_card=180)
    assert session.code == 0
    assert "(clause 3.17)" in session.text
    assert "answer y for a new shoe or n to leave the table" in session.text
    assert len(session.table.shoes) == 1
    assert "The table closes" not in session.text  # already revealed
    assert f"{coups} rounds in 1 shoe" in session.text


def test_a_shoe_that_runs_out_mid_coup_voids_the_round() -> None:
    game = get_game("tiger-baccarat")

    def runs_out(seed: int) -> int | None:
        shoe = reference_shoe(game, seed, decks=4, behind=0)
        coups = 0
        while True:
            try:
                deal(shoe)
            except Exception:
                return coups
            coups += 1
            if len(shoe) == 0:
                return None

    seed, coups = next((s, n) for s in range(100) if (n := runs_out(s)) is not None)
    session = play(
        "tiger-baccarat", "deal\n" * coups + "banker 10\ndeal\nn\n", seed=seed, decks=4, cut_card=0
    )
    void = session.table.history[-1]
    assert void.coup is None
    assert "the shoe has no cards left (clause 5.3)" in session.text
    assert "The coup is void (clause 5.3: insufficient cards: 0 left" in session.text
    assert "every bet is returned" in session.text
    assert [s.outcome for s in void.results] == ["void"]
    assert session.table.bankroll == session.table.history[-2].bankroll
    assert session.table.shoes[0].verified


def test_a_cut_card_deeper_than_the_shoe_is_refused() -> None:
    with pytest.raises(Exception, match="cut card cannot go 500 cards from the end"):
        play("tiger-baccarat", "", cut_card=500)


# -- the command line ---------------------------------------------------------------


def test_cli_play_reads_a_piped_script(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    game = get_game("tiger-baccarat")
    monkeypatch.setattr(sys, "stdin", io.StringIO("banker 100\ndeal\nnonsense\n"))
    code = main(["play", "tiger-baccarat", "--seed", str(SEED), "--delay", "0"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    shoe = reference_shoe(game)
    coup = deal(shoe)
    net = settle(game, coup, [Bet("banker", Decimal(100))]).net
    assert f"SHA-256 commitment: {shoe.commitment}" in out
    assert "bet> banker 100" in out  # piped lines are echoed after the prompt
    assert "unknown command 'nonsense'" in out
    assert f"Bankroll: {format_money(10000 + net)}" in out
    assert f"1 round in 1 shoe, staked 100.00, net {signed(net)}" in out


def test_cli_play_options(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("banker 600\nbanker 500\n"))
    args = ["play", "tiger-buffalo", "--layout", "m", "--seed", "x", "--decks", "6"]
    code = main([*args, "--bankroll", "500", "--cut-card", "20", "--delay", "0"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "layout M" in out
    assert "Banker Big 7" in out
    assert "Shoe 1: 6 decks, 312 cards left, cut card 20 from the end" in out
    assert (
        f"SHA-256 commitment: {get_game('tiger-buffalo').new_shoe(6, seed='x:1').commitment}" in out
    )
    assert "Bankroll: 500.00" in out
    assert "a stake of 600.00 is more than your bankroll allows" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tiger-buffalo"], "name one of its layouts"),
        (["tiger-baccarat", "--decks", "3"], "a shoe of 3 decks is not allowed"),
        (["tiger-baccarat", "--bankroll", "lots"], "--bankroll: stake 'lots' is not an amount"),
        (["tiger-baccarat", "--delay", "-1"], "a delay of -1.0 seconds is not possible"),
        (["tiger-baccarat", "--cut-card", "-1"], "the cut card cannot go -1 cards"),
        (["punto-banco"], "no game 'punto-banco'"),
        (["tiger-baccarat", "--minimum", "ten"], "--minimum: stake 'ten' is not an amount"),
        (["tiger-baccarat", "--maximum", "5"], "--maximum 5.00 is below --minimum 10.00"),
        (["tiger-baccarat", "--wagers-per-area", "5"], "restrict a playing area to fewer than 3"),
    ],
)
def test_cli_play_refuses_a_bad_table_before_printing(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("deal\n"))
    code = main(["play", *args])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.startswith("punto: error: ")
    assert message in err
    assert err.count("\n") == 1
