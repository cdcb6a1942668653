"""The shoe in a replay: ``new_shoe`` and ``replace_shoe`` declare the shoes a
table dealt from, and the replay then checks every card against them as a
live table checks its own (``punto.table.shoe_state.ShoeState``).

Money, unless a test says otherwise: a Player bet wins 1 to 1, a Banker bet
0.95 to 1 (Banker wins here are never on a 6, so the Tiger Baccarat 6 rule
does not come in); a voided or withdrawn bet nets 0.

The cards of a ``card`` action go to the hands as the Table of Play deals
them: Player, Banker, Player, Banker, then any third cards.  The deals used:

* ``9H 2C KD 3S``: Player 9+K = 9, Banker 2+3 = 5 -- Player wins, a Natural.
* ``2H 9C 3D KS``: Player 2+3 = 5, Banker 9+K = 9 -- Banker wins, a Natural.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from punto.cli import main
from punto.errors import PhaseError, RoleError, ShoeError
from punto.rules.cards import DECK, format_cards, parse_cards
from punto.rules.games import get_game
from punto.table.events import CardDealt, ShoeStarted, event_from_json
from punto.table.replay import Replay, ReplayError, run_replay
from punto.table.shoe_state import DeviceCardsError

LIMITS = {"minimum": "10", "maximum": "1000"}

PLAYER_NATURAL = "9H 2C KD 3S"
BANKER_NATURAL = "2H 9C 3D KS"


def replay(game: str, actions: Sequence[dict[str, Any]], **header: Any) -> Replay:
    layout = {"layout": "A"} if game == "tiger-buffalo" else {}
    return run_replay({"game": game, "limits": LIMITS, **layout, **header, "actions": actions})


def refused(game: str, actions: Sequence[dict[str, Any]]) -> ReplayError:
    with pytest.raises(ReplayError) as error:
        replay(game, actions)
    return error.value


def players(result: Replay) -> dict[str, str]:
    report = result.report()
    totals: dict[str, str] = report["players"]
    return totals


def round_of(bets: Sequence[tuple[str, str, str]], cards: str) -> list[dict[str, Any]]:
    """open, the bets (player, wager, stake), 'No more bets', the cards, settle."""
    return [
        {"action": "open"},
        *(
            {"action": "bet", "player": p, "position": n, "wager": w, "stake": s}
            for n, (p, w, s) in enumerate(bets, 1)
        ),
        {"action": "no_more_bets"},
        {"action": "card", "cards": cards},
        {"action": "settle"},
    ]


def first_round_ended_by_cut_card(game: str) -> list[dict[str, Any]]:
    """A shoe whose cutting card is 6 cards deep: round one deals 4 cards,
    round two 4 more, the cutting card appearing after its second card."""
    return [
        {"action": "new_shoe", "decks": 8, "cut_card": 6},
        *round_of([("ann", "player", "100"), ("bob", "banker", "100")], PLAYER_NATURAL),
        {"action": "open"},
        {"action": "bet", "player": "ann", "position": 1, "wager": "player", "stake": "50"},
        {"action": "no_more_bets"},
        {"action": "card", "cards": "2H 9C"},
        {"action": "cut_card", "role": "dealer"},
        {"action": "card", "cards": "3D KS"},
        {"action": "settle"},
    ]


# -- the cutting card (MBS 3.22, 3.22.1; Dragon Tiger 3.17, 3.17.1) ------------------------


def test_tiger_baccarat_3_22_cut_card_ends_the_shoe_after_the_round() -> None:
    actions = first_round_ended_by_cut_card("tiger-baccarat")
    done = replay("tiger-baccarat", actions)
    # round one: ann's Player 100 wins +100, bob's Banker 100 loses; round two
    # is completed after the cutting card: ann's Player 50 loses to a Natural 9
    assert players(done) == {"ann": "50.00", "bob": "-100.00"}
    assert done.report()["house_net"] == "50.00"
    assert done.report()["shoes"] == [
        {
            "shoe": "s1",
            "decks": 8,
            "order": "unknown",
            "cut_card": 6,
            "clause": None,
            "rounds": ["r1", "r2"],
            "cards_out": 8,
            "held": [],
            "ended": True,
        }
    ]
    error = refused("tiger-baccarat", [*actions, {"action": "open"}])
    assert (error.index, error.action, error.clause) == (len(actions), "open", "3.22")
    assert isinstance(error.error, PhaseError)
    assert "the cutting card came out" in str(error)
    assert error.hint == "begin a new shoe"
    again = replay(
        "tiger-baccarat",
        [
            *actions,
            {"action": "new_shoe", "decks": 8},
            *round_of([("ann", "player", "100")], PLAYER_NATURAL),
        ],
    )
    assert players(again) == {"ann": "150.00", "bob": "-100.00"}
    assert [s["rounds"] for s in again.report()["shoes"]] == [["r1", "r2"], ["r3"]]


def test_tiger_baccarat_3_22_cut_card_comes_out_with_the_card_behind_it_unreported() -> None:
    # nobody reports it: the replay knows it from the depth (6) and the 8 cards out
    actions = [
        a
        for a in first_round_ended_by_cut_card("tiger-baccarat")
        if a != {"action": "cut_card", "role": "dealer"}
    ]
    assert players(replay("tiger-baccarat", actions)) == {"ann": "50.00", "bob": "-100.00"}
    error = refused("tiger-baccarat", [*actions, {"action": "open"}])
    assert error.clause == "3.22"


def test_tiger_baccarat_3_22_cut_card_reported_twice_in_one_round_refused() -> None:
    actions = first_round_ended_by_cut_card("tiger-baccarat")
    at = actions.index({"action": "cut_card", "role": "dealer"}) + 1
    error = refused("tiger-baccarat", [*actions[:at], {"action": "cut_card", "role": "dealer"}])
    assert (error.index, error.action, error.clause) == (at, "cut_card", "3.22")
    assert "already removed in this round" in str(error)


def test_tiger_baccarat_3_22_cut_card_reported_before_the_shoe_reaches_it_refused() -> None:
    actions: list[dict[str, Any]] = [
        {"action": "new_shoe", "decks": 8, "cut_card": 6},
        {"action": "open"},
        {"action": "bet", "player": "ann", "position": 1, "wager": "player", "stake": "100"},
        {"action": "no_more_bets"},
        {"action": "card", "cards": "9H 2C"},
        {"action": "cut_card", "role": "dealer"},
    ]
    error = refused("tiger-baccarat", actions)
    assert (error.index, error.clause) == (5, "3.22")
    assert "6 cards deep and only 2 cards are out" in str(error)


def test_tiger_baccarat_3_22_new_shoe_refused_while_the_shoe_in_use_has_not_ended() -> None:
    actions = [
        {"action": "new_shoe", "decks": 8, "cut_card": 6},
        *round_of([("ann", "player", "100")], PLAYER_NATURAL),
        {"action": "new_shoe", "decks": 8},
    ]
    error = refused("tiger-baccarat", actions)
    assert (error.index, error.action, error.clause) == (6, "new_shoe", "3.22")
    assert error.hint is not None
    assert "5.11.5, 5.12.2, 5.13: replace_shoe" in error.hint


def test_tiger_baccarat_3_22_new_shoe_refused_while_a_round_is_in_play() -> None:
    actions = [
        *first_round_ended_by_cut_card("tiger-baccarat")[:-1],
        {"action": "new_shoe", "decks": 8},
    ]
    error = refused("tiger-baccarat", actions)
    assert (error.action, error.clause) == ("new_shoe", "3.22")
    assert "round r2 is still in play (result): it is completed before the shoe changes" in str(
        error
    )


def test_dragon_tiger_3_17_cut_card_ends_the_shoe_after_the_round() -> None:
    actions = first_round_ended_by_cut_card("dragon-tiger")
    assert players(replay("dragon-tiger", actions)) == {"ann": "50.00", "bob": "-100.00"}
    error = refused("dragon-tiger", [*actions, {"action": "open"}])
    assert (error.action, error.clause) == ("open", "3.17")


def _cut_card_first(hlga_round: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cutting card 4 deep: round one deals exactly the 4 cards in front of
    it; round two's first card brings it out."""
    return [
        {"action": "new_shoe", "decks": 8, "cut_card": 4},
        *round_of([("ann", "player", "100")], PLAYER_NATURAL),
        {"action": "open"},
        {"action": "bet", "player": "ann", "position": 1, "wager": "player", "stake": "50"},
        {"action": "bet", "player": "bob", "position": 2, "wager": "player", "stake": "200"},
        {"action": "no_more_bets"},
        *hlga_round,
        {"action": "card", "cards": BANKER_NATURAL},
        {"action": "settle"},
    ]


def test_dragon_tiger_3_17_1_cut_card_first_withdrawal_in_hlga() -> None:
    actions = _cut_card_first(
        [
            {"action": "cut_card_first", "hlga": True, "role": "dealer"},
            {"action": "withdraw_player", "player": "bob"},
        ]
    )
    done = replay("dragon-tiger", actions)
    # ann: +100, then her Player 50 loses; bob took the option: his 200 is returned
    assert players(done) == {"ann": "50.00", "bob": "0.00"}
    assert done.report()["house_net"] == "-50.00"
    assert done.report()["rounds"][1]["irregularities"][0]["withdrawn"] == ["bob"]
    error = refused("dragon-tiger", [*actions, {"action": "open"}])
    assert (error.action, error.clause) == ("open", "3.17")


def test_tiger_baccarat_3_22_1_cut_card_first_withdrawal_in_hlga() -> None:
    actions = _cut_card_first(
        [
            {"action": "cut_card_first", "hlga": True, "role": "dealer"},
            {"action": "withdraw_player", "player": "ann"},
        ]
    )
    done = replay("tiger-baccarat", actions)
    # ann: +100, then withdraws her 50; bob's Player 200 loses to a Natural 9
    assert players(done) == {"ann": "100.00", "bob": "-200.00"}
    assert done.report()["shoes"][0]["ended"] is True


def test_dragon_tiger_3_17_1_cut_card_first_refused_when_it_is_not_the_next_card() -> None:
    actions = _cut_card_first([{"action": "cut_card_first", "hlga": True, "role": "dealer"}])
    actions[0] = {"action": "new_shoe", "decks": 8, "cut_card": 6}
    error = refused("dragon-tiger", actions)
    assert (error.action, error.clause) == ("cut_card_first", "3.17.1")
    assert "is 6 cards deep and 4 cards are out" in str(error)


# -- the shoe holds what its decks hold (2.1) ---------------------------------------------------


def test_tiger_baccarat_2_1_a_card_the_decks_no_longer_hold_is_refused() -> None:
    # four decks hold four Queens of Hearts; round one deals all of them:
    # Player Q+Q = 0 draws 9 = 9, Banker Q+Q = 0 draws 9 = 9: a Tie, the Player
    # and Banker bets stand off (returned)
    actions = [
        {"action": "new_shoe", "decks": 4},
        *round_of([("ann", "player", "100"), ("bob", "tie", "10")], "QH QH QH QH 9C 9D"),
    ]
    done = replay("tiger-baccarat", actions)
    # the Tie 10 pays 8 to 1
    assert players(done) == {"ann": "0.00", "bob": "80.00"}
    error = refused(
        "tiger-baccarat", [*actions, *round_of([("ann", "player", "100")], "QH 2C 2D KS")]
    )
    assert isinstance(error.error, DeviceCardsError)
    assert (error.action, error.clause) == ("card", "2.1")
    assert "QH cannot come out of shoe s1: its 4 decks hold 4 and 4 are already out" in str(error)


def test_tiger_baccarat_2_1_shoe_of_too_few_decks_or_incomplete_decks_refused() -> None:
    error = refused("tiger-baccarat", [{"action": "new_shoe", "decks": 3}])
    assert (error.index, error.action, error.clause) == (0, "new_shoe", "2.1")
    short = format_cards(DECK * 4)[3:]  # four decks less the first card
    error = refused("tiger-baccarat", [{"action": "new_shoe", "cards": short}])
    assert (error.action, error.clause) == ("new_shoe", "2.1")
    assert "the 207 cards given are not complete decks" in str(error)


def test_tiger_baccarat_3_22_recorded_shoe_deals_in_its_order_and_ends_at_its_cut_card() -> None:
    # The shoe shuffled from seed "recorded" begins AC 5S 4C 6H 3H 4C: Player
    # A+4 = 5 draws 3 = 8, Banker 5+6 = 1 draws 4 = 5 -- Player wins 8 to 5.
    order = get_game("tiger-baccarat").new_shoe(8, seed="recorded").order
    assert format_cards(order[:6]) == "AC 5S 4C 6H 3H 4C"
    play = round_of([("ann", "player", "100"), ("bob", "banker", "100")], "AC 5S 4C 6H 3H 4C")
    recorded = [{"action": "new_shoe", "cards": format_cards(order), "cut_card": 3}, *play]
    seeded = [{"action": "new_shoe", "decks": 8, "seed": "recorded", "cut_card": 3}, *play]
    for actions in (recorded, seeded):
        done = replay("tiger-baccarat", actions)
        assert players(done) == {"ann": "100.00", "bob": "-100.00"}
        shoe = done.report()["shoes"][0]
        assert (shoe["order"], shoe["cards_out"], shoe["ended"]) == ("known", 6, True)
        error = refused("tiger-baccarat", [*actions, {"action": "open"}])
        assert (error.action, error.clause) == ("open", "3.22")
    wrong = [*seeded[:-2], {"action": "card", "cards": "AC 5S 4C 6H 4C 3H"}]
    error = refused("tiger-baccarat", wrong)
    assert isinstance(error.error, DeviceCardsError)
    assert (error.index, error.action) == (5, "card")
    assert "4C is not the next card out of shoe s1" in str(error)


# -- cards held for the next round (RWS 5.8) --------------------------------------------------


def _excess_then_next_round(next_cards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"action": "new_shoe", "decks": 8},
        {"action": "open"},
        {"action": "bet", "player": "ann", "position": 1, "wager": "player", "stake": "100"},
        {"action": "no_more_bets"},
        {"action": "card", "cards": PLAYER_NATURAL},
        {"action": "excess_cards", "cards": "5D", "role": "dealer"},
        {"action": "settle"},
        {"action": "open"},
        {"action": "bet", "player": "ann", "position": 1, "wager": "player", "stake": "50"},
        {"action": "bet", "player": "bob", "position": 2, "wager": "banker", "stake": "100"},
        {"action": "no_more_bets"},
        *next_cards,
        {"action": "settle"},
    ]


def test_tiger_buffalo_5_8_held_card_dealt_first_in_the_next_round() -> None:
    # round two: Player 5D (held) + 3D = 8, Banker 9C + KS = 9, a Natural
    actions = _excess_then_next_round(
        [
            {"action": "card", "card": "5D", "source": "held"},
            {"action": "card", "cards": "9C 3D KS"},
        ]
    )
    done = replay("tiger-buffalo", actions)
    # ann +100 then -50; bob's Banker 100 wins 0.95 to 1
    assert players(done) == {"ann": "50.00", "bob": "95.00"}
    assert done.report()["rounds"][0]["irregularities"][0]["next_round"] == ["5D"]
    dealt = [e for _, e in done.log if isinstance(e, CardDealt)]
    assert (str(dealt[4].card), dealt[4].source) == ("5D", "held")


def test_tiger_buffalo_5_8_card_of_the_shoe_refused_while_a_card_is_held() -> None:
    actions = _excess_then_next_round([{"action": "card", "cards": "2H 9C 3D KS"}])
    error = refused("tiger-buffalo", actions)
    assert (error.action, error.clause) == ("card", "5.8")
    assert "5D before any card of the shoe" in str(error)
    assert error.hint == 'deal 5D with source "held"'
    wrong = _excess_then_next_round([{"action": "card", "card": "6D", "source": "held"}])
    error = refused("tiger-buffalo", wrong)
    assert (error.action, error.clause) == ("card", "5.8")
    assert "6D is not the next card held from the previous round: 5D is" in str(error)


def test_tiger_buffalo_5_8_held_cards_followed_without_a_declared_shoe() -> None:
    actions = _excess_then_next_round([{"action": "card", "cards": "2H 9C 3D KS"}])[1:]
    error = refused("tiger-buffalo", actions)
    assert (error.action, error.clause) == ("card", "5.8")


# -- replacing the cards (RWS 5.11.2; MBS 5.11.5, 5.12.2, 5.13) ---------------------------------


def _simultaneous_then(replace: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Player 2H, Banker 3C; 4D and 2S come out together (order known): Player
    2+4 = 6 stands, Banker 3+2 = 5 draws -- after the cards are replaced."""
    return [
        {"action": "new_shoe", "decks": 8},
        {"action": "open"},
        {"action": "bet", "player": "ann", "position": 1, "wager": "player", "stake": "100"},
        {"action": "bet", "player": "bob", "position": 2, "wager": "banker", "stake": "100"},
        {"action": "no_more_bets"},
        {"action": "card", "cards": "2H 3C"},
        {"action": "simultaneous_draw", "cards": "4D 2S", "order_known": True, "role": "dealer"},
        *replace,
        {"action": "card", "card": "4C"},
        {"action": "settle"},
    ]


def test_tiger_buffalo_5_11_2_shoe_replaced_mid_round() -> None:
    actions = _simultaneous_then(
        [{"action": "replace_shoe", "clause": "5.11.2", "role": "pit_supervisor"}]
    )
    done = replay("tiger-buffalo", actions)
    # Banker 3+2+4 = 9 beats Player 6: ann -100, bob +95
    assert players(done) == {"ann": "-100.00", "bob": "95.00"}
    shoes = done.report()["shoes"]
    assert [(s["shoe"], s["clause"], s["rounds"], s["decks"]) for s in shoes] == [
        ("s1", None, ["r1"], 8),
        ("s2", "5.11.2", ["r1"], 8),
    ]
    assert shoes[1]["cards_out"] == 1
    started = [e for _, e in done.log if isinstance(e, ShoeStarted)]
    assert [(e.clause, e.role.value) for e in started] == [
        ("", "dealer"),
        ("5.11.2", "pit_supervisor"),
    ]


def test_tiger_buffalo_5_11_2_dealer_cannot_replace_the_cards() -> None:
    error = refused(
        "tiger-buffalo", _simultaneous_then([{"action": "replace_shoe", "clause": "5.11.2"}])
    )
    assert isinstance(error.error, RoleError)
    assert (error.action, error.clause) == ("replace_shoe", "5.11.2")


def test_tiger_buffalo_5_11_2_not_without_a_simultaneous_draw() -> None:
    actions: list[dict[str, Any]] = [
        {"action": "new_shoe", "decks": 8},
        {"action": "open"},
        {"action": "replace_shoe", "clause": "5.11.2", "role": "pit_supervisor"},
    ]
    error = refused("tiger-buffalo", actions)
    assert (error.action, error.clause) == ("replace_shoe", "5.11.2")
    assert "after cards were drawn simultaneously (5.11)" in str(error)


def _method_c_void() -> list[dict[str, Any]]:
    return [
        {"action": "new_shoe", "decks": 8},
        {"action": "open"},
        # Method C is the round's own (3.9.2): 5.12.2 applies only to it
        {"action": "method", "method": "C", "hlga": True, "role": "assistant_casino_manager"},
        {"action": "bet", "player": "ann", "position": 1, "wager": "player", "stake": "100"},
        {"action": "no_more_bets"},
        {"action": "card", "card": "9H"},
        {"action": "order_altered", "reconstructable": False, "method_c": True, "role": "dealer"},
    ]


def test_tiger_baccarat_5_12_2_next_round_refused_until_the_cards_are_replaced() -> None:
    error = refused("tiger-baccarat", [*_method_c_void(), {"action": "open"}])
    assert (error.index, error.action, error.clause) == (7, "open", "5.12.2")
    assert "replaced before the next round of play commences" in str(error)
    done = replay(
        "tiger-baccarat",
        [
            *_method_c_void(),
            {"action": "replace_shoe", "clause": "5.12.2"},
            *round_of([("ann", "player", "100")], PLAYER_NATURAL),
        ],
    )
    # the void round returns ann's 100 (0); the next round's Player 100 wins
    assert players(done) == {"ann": "100.00"}
    assert [s["clause"] for s in done.report()["shoes"]] == [None, "5.12.2"]


def test_dragon_tiger_5_13_cards_may_be_replaced_after_a_void_only() -> None:
    void = replay(
        "dragon-tiger",
        [
            *_method_c_void(),
            {"action": "replace_shoe", "clause": "5.13"},
            *round_of([("ann", "player", "100")], PLAYER_NATURAL),
        ],
    )
    assert players(void) == {"ann": "100.00"}
    actions = [
        {"action": "new_shoe", "decks": 8},
        *round_of([("ann", "player", "100")], PLAYER_NATURAL),
        {"action": "replace_shoe", "clause": "5.13"},
    ]
    error = refused("dragon-tiger", actions)
    assert (error.action, error.clause) == ("replace_shoe", "5.13")
    assert "after a round is voided" in str(error)


def test_tiger_baccarat_5_13_replace_shoe_under_a_clause_that_replaces_nothing_refused() -> None:
    error = refused("tiger-baccarat", [{"action": "replace_shoe", "clause": "3.22"}])
    assert (error.action, error.clause) == ("replace_shoe", "3.22")
    assert error.hint is not None
    assert "5.11.5, 5.12.2, 5.13" in error.hint


def test_tiger_baccarat_3_22_shoe_with_both_cards_and_seed_refused() -> None:
    error = refused(
        "tiger-baccarat",
        [{"action": "new_shoe", "seed": "x", "cards": format_cards(DECK * 4)}],
    )
    assert isinstance(error.error, ShoeError)
    assert "recorded (cards) or shuffled from a seed, not both" in str(error)


# -- the golden whole shoe ---------------------------------------------------------------------

GOLDEN = Path(__file__).parents[1] / "golden" / "replay" / "dragon_tiger_shoe_cut_card_first.json"


def test_dragon_tiger_3_17_1_and_5_12_2_golden_whole_shoe_totals_and_shoe_events(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = json.loads(GOLDEN.with_suffix(".out.json").read_text())
    assert (report["players"], report["house_net"]) == (
        {"ann": "145.00", "bob": "-100.00"},
        "-45.00",
    )
    assert [r["players"] for r in report["rounds"]] == [
        {"ann": "100.00", "bob": "-100.00"},
        {"ann": "-50.00", "bob": "0.00"},
        {"ann": "0.00"},
        {"ann": "95.00"},
    ]
    assert [(s["shoe"], s["clause"], s["rounds"]) for s in report["shoes"]] == [
        ("s1", None, ["r1", "r2"]),
        ("s2", None, ["r3"]),
        ("s3", "5.12.2", ["r4"]),
    ]
    assert main(["replay", "--events", str(GOLDEN)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    shoes = [line for line in lines if line["type"] == "shoe_started"]
    assert [(s["round"], s["shoe_id"], s["clause"], s["decks"], s["cards"]) for s in shoes] == [
        ("", "s1", "", 8, []),
        ("", "s2", "", 8, []),
        ("", "s3", "5.12.2", 8, []),
    ]
    assert all(isinstance(event_from_json(s), ShoeStarted) for s in shoes)


# -- a player leaves with cards (MBS 5.11) -----------------------------------------------------


def _left_with_cards() -> list[dict[str, Any]]:
    """Four decks.  Round one deals 9H 2C KD 3S (the discards).  In round two
    the Player's second card leaves the table with a player; the Banker's
    second is 4D.  The Gaming Shift Manager has 7H 8H set aside (5.11.1), the
    rest sorted (5.11.2): 3C is missing (5.11.2.1) and replaced (5.11.3):
    Player 5+3 = 8, a Natural, over Banker 6+4 = 0; the set-aside cards are
    not needed (5.11.4)."""
    out = Counter(parse_cards("9H 2C KD 3S 5S 6S 4D 7H 8H 3C"))
    remaining = Counter(DECK * 4) - out
    return [
        {"action": "new_shoe", "decks": 4},
        *round_of([("ann", "player", "100")], PLAYER_NATURAL),
        {"action": "open"},
        {"action": "bet", "player": "ann", "position": 1, "wager": "player", "stake": "100"},
        {"action": "bet", "player": "bob", "position": 2, "wager": "banker", "stake": "100"},
        {"action": "no_more_bets"},
        {"action": "card", "cards": "5S 6S"},
        {
            "action": "left_with_cards",
            "on_table": "5S 6S ? 4D",
            "set_aside": "7H 8H",
            "remaining": format_cards(list(remaining.elements())),
            "role": "shift_manager",
        },
        {"action": "settle"},
    ]


def test_dragon_tiger_5_11_5_next_round_refused_until_the_cards_are_replaced() -> None:
    actions = _left_with_cards()
    done = replay("dragon-tiger", actions)
    ruling = done.report()["rounds"][1]["irregularities"][0]
    assert (ruling["clause"], ruling["missing"], ruling["unused"]) == (
        "5.11",
        ["3C"],
        ["7H", "8H"],
    )
    # the decks and the discards came from the declared shoe
    assert players(done) == {"ann": "200.00", "bob": "-100.00"}
    error = refused("dragon-tiger", [*actions, {"action": "open"}])
    assert (error.index, error.action, error.clause) == (len(actions), "open", "5.11.5")
    again = replay(
        "dragon-tiger",
        [
            *actions,
            {"action": "replace_shoe", "clause": "5.11.5"},
            *round_of([("ann", "player", "100")], PLAYER_NATURAL),
        ],
    )
    assert players(again) == {"ann": "300.00", "bob": "-100.00"}
    shoes = again.report()["shoes"]
    assert [(s["shoe"], s["clause"], s["decks"], s["rounds"]) for s in shoes] == [
        ("s1", None, 4, ["r1", "r2"]),
        ("s2", "5.11.5", 4, ["r3"]),
    ]


def test_dragon_tiger_5_11_2_1_discards_that_disagree_with_the_shoe_refused() -> None:
    # the declared shoe says 9H 2C KD 3S were discarded: a file that says
    # otherwise has one card too many on the table
    actions = _left_with_cards()
    at = next(n for n, a in enumerate(actions) if a["action"] == "left_with_cards")
    actions[at] = {**actions[at], "discards": "9H 2C KD 3S 3C"}
    error = refused("dragon-tiger", actions)
    assert (error.index, error.action, error.clause) == (at, "left_with_cards", "5.11.2.1")


def test_dragon_tiger_3_17_1_cut_card_first_after_the_cutting_card_was_reported_refused() -> None:
    # round two: the Dealer reports the cutting card (3.17), then would also
    # give the first-card withdrawal option (3.17.1): one cutting card, once
    actions = _cut_card_first(
        [
            {"action": "cut_card", "role": "dealer"},
            {"action": "cut_card_first", "hlga": True, "role": "dealer"},
        ]
    )
    error = refused("dragon-tiger", actions)
    assert (error.index, error.action, error.clause) == (11, "cut_card_first", "3.17.1")
    assert "already removed in this round" in str(error)
    # reported once, the round is completed: ann +100, then her Player 50 and
    # bob's Player 200 lose to Banker's Natural 9
    once = [a for a in actions if a["action"] != "cut_card_first"]
    assert players(replay("dragon-tiger", once)) == {"ann": "50.00", "bob": "-200.00"}


def test_dragon_tiger_3_17_1_cut_card_first_twice_in_a_round_refused() -> None:
    actions = _cut_card_first(
        [
            {"action": "cut_card_first", "hlga": True, "role": "dealer"},
            {"action": "cut_card_first", "hlga": True, "role": "dealer"},
        ]
    )
    error = refused("dragon-tiger", actions)
    assert (error.index, error.action, error.clause) == (11, "cut_card_first", "3.17.1")
    assert "already removed in this round" in str(error)


# -- a shoe declared wrongly, refused whole -------------------------------------------------------


@pytest.mark.parametrize(
    ("declared", "refusal"),
    [
        (
            {"cards": DECK * 8, "seed": "a"},
            "a shoe's order is recorded (cards) or shuffled from a seed, not both; "
            "give cards or seed",
        ),
        (
            {"cards": DECK * 8 + DECK[:1]},
            "the 417 cards given are not complete decks (clause 2.1); "
            "give every card of the shoe, in dealing order",
        ),
        (  # 416 cards, but the ace of spades twice and one card missing
            {"cards": DECK * 7 + DECK[:51] + DECK[:1]},
            "the 416 cards given are not complete decks (clause 2.1); "
            "give every card of the shoe, in dealing order",
        ),
        ({"cards": DECK * 8, "decks": 6}, "the cards given are 8 decks, not 6; give one"),
        ({}, "how many decks does the shoe hold?; give decks (and cards or seed if known)"),
        (
            {"decks": 8, "cut_card": -1},
            "the cutting card cannot go -1 cards deep in a shoe of 416 cards; "
            "cut_card: the cards in front of it, 0 to 416",
        ),
        (
            {"decks": 8, "cut_card": 417},
            "the cutting card cannot go 417 cards deep in a shoe of 416 cards; "
            "cut_card: the cards in front of it, 0 to 416",
        ),
    ],
)
def test_a_shoe_declared_wrongly_is_refused_saying_what_to_give(
    declared: dict[str, Any], refusal: str
) -> None:
    """A shoe in a replay is the record every card is checked against: one
    that cannot be a shoe of the game's decks (2.1) is refused, saying what
    to give instead."""
    from punto.table.shoe_state import shoe_started

    with pytest.raises(ShoeError) as refused_shoe:
        shoe_started(get_game("tiger-baccarat"), "s1", **declared)
    assert str(refused_shoe.value) == refusal


def test_a_shoe_declared_in_full_with_its_cutting_card_at_either_end() -> None:
    """Complete decks with the matching count are a shoe; the cutting card
    may stand in front of the first card (0) or behind the last (416)."""
    from punto.table.shoe_state import shoe_started

    game = get_game("tiger-baccarat")
    order = tuple(DECK * 8)
    assert shoe_started(game, "s1", cards=order, decks=8, cut_card=416).cards == order
    assert shoe_started(game, "s1", decks=8, cut_card=0).cut_card == 0
    seeded = shoe_started(game, "s1", decks=8, seed="a")
    assert Counter(seeded.cards) == Counter(order)
    assert seeded.commitment


def test_a_recorded_shoe_is_reported_in_whole_decks_with_its_held_cards_by_name() -> None:
    """The replay's report of a recorded shoe: its decks a whole number, the
    card held for the next round (RWS 5.8) named."""
    first = parse_cards(PLAYER_NATURAL + " 5D")
    rest = Counter(DECK * 8) - Counter(first)
    order = list(first)
    for card in DECK * 8:
        if rest[card]:
            rest[card] -= 1
            order.append(card)
    actions = _excess_then_next_round([])[:7]
    actions[0] = {"action": "new_shoe", "cards": format_cards(order)}
    report = replay("tiger-buffalo", actions).report()
    (shoe,) = report["shoes"]
    assert json.dumps(shoe["decks"]) == "8"
    assert shoe["held"] == ["5D"]
