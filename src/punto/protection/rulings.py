"""Who a ruling saved: the money each void, returned bet, withdrawal and
reconstruction moved, per player, against what the cards gave.

A dealer who voids at the pit's usual rate but only the rounds one player
loses is invisible to a count of voids and to the hold (a void's bets leave
the hold).  Each ruling is therefore weighed against the cards: the net each
of its bets would have had on the coup as it was dealt when the ruling was
made (the deal before the void or the reconstruction; for a bet returned or
a withdrawal in a round that went on, the coup the round settled on), the
net it had after the ruling, and the stake's value at placement.  A ruling
*saved* a player when it left them more than the cards gave.

The tests (:func:`ruling_tests`) compare a dealer, and each (dealer, player),
with the pit by exact binomial upper tails, like the counts of
:mod:`.anomalies`:

* **rulings that saved**: the rounds (of the dealer; of the player with the
  dealer) in which a ruling saved the player money, against the pit's pooled
  proportion of such rounds;
* **saved, of the rulings**: of the rulings that changed a player's money
  either way, those that saved them, against the pit's pooled share: rulings
  made without regard to who is losing save about as often as they cost.

Events of kinds this module does not know are left alone (the log may carry
more than it reads).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from punto.errors import PuntoError
from punto.protection.tails import binomial_upper_tail
from punto.rules.coup import Coup
from punto.rules.game import Game
from punto.rules.settlement import Bet, settle
from punto.table.events import (
    BetReturned,
    CardsReconstructed,
    Event,
    PlayerWithdrew,
    RoundVoided,
)
from punto.table.round import Round
from punto.table.round_state import Phase

__all__ = [
    "RULINGS",
    "PlayerRound",
    "PlayerRulings",
    "RuledStake",
    "RulingTest",
    "Rulings",
    "by_dealer_and_player",
    "pit_rates",
    "ruled_stakes",
    "rulings_of",
]

#: The events that move money by a ruling, and the names the evidence gives them.
RULINGS: Mapping[type[Event], str] = {
    RoundVoided: "void",
    BetReturned: "bet returned",
    PlayerWithdrew: "withdrawal",
    CardsReconstructed: "reconstruction",
}
#: How a bet ended when a ruling took it out of play.
_TAKEN_OUT = frozenset({"void", "returned"})
_PLAYED = frozenset({"win", "lose", "push"})


@dataclass(frozen=True)
class RuledStake:
    """One bet a ruling returned or changed: its stake, the net the cards
    gave it (None: the coup was not complete, nothing to settle on), its net
    after the ruling, and its return per unit at placement (None: not valued)."""

    round_id: str
    bet_id: str
    player: str
    wager: str
    stake: Decimal
    ruling: str
    clause: str | None
    as_dealt: Decimal | None
    net: Decimal
    value: Fraction | None

    @property
    def saved(self) -> Decimal | None:
        """What the ruling left the player beyond what the cards gave."""
        return None if self.as_dealt is None else self.net - self.as_dealt

    @property
    def value_at_placement(self) -> Fraction | None:
        """The stake's expected net to the player when placed (stake x value)."""
        return None if self.value is None else Fraction(self.stake) * self.value

    def to_json(self) -> dict[str, Any]:
        saved = self.saved
        return {
            "round_id": self.round_id,
            "bet_id": self.bet_id,
            "player": self.player,
            "wager": self.wager,
            "stake": str(self.stake),
            "ruling": self.ruling,
            "clause": self.clause,
            "as_dealt": None if self.as_dealt is None else str(self.as_dealt),
            "net": str(self.net),
            "saved": None if saved is None else str(saved),
            "value": None if self.value is None else str(self.value),
        }


def ruled_stakes(
    r: Round,
    game: Game,
    options: Mapping[str, Any],
    value_of: Callable[[str], Fraction | None] = lambda wager: None,
) -> tuple[RuledStake, ...]:
    """The bets of a finished round (settled or void) that a ruling returned
    or changed, with what the cards gave each; none when no ruling was made."""
    events = r.events
    found = [(i, RULINGS[type(e)]) for i, e in enumerate(events) if type(e) in RULINGS]
    if not found:
        return ()
    first = found[0][0]
    names = {name for _, name in found}
    withdrew = {e.player for e in events if isinstance(e, PlayerWithdrew)}
    returned = {e.bet_id for e in events if isinstance(e, BetReturned)}
    before = Round.replay(game, events[:first], **options)
    coup: Coup | None = None
    if before.deal.is_complete:
        coup = before.deal.to_coup()
    elif r.phase is Phase.SETTLED and "reconstruction" not in names:
        coup = r.deal.to_coup()
    dealt = _as_dealt(game, options, coup, before)
    out = []
    for s in r.results():
        bet = s.bet
        if s.outcome in _TAKEN_OUT:
            ruling = (
                "void"
                if s.outcome == "void"
                else "bet returned"
                if bet.bet_id in returned
                else "withdrawal"
                if bet.player in withdrew
                else None
            )
        elif s.outcome in _PLAYED and "reconstruction" in names:
            ruling = "reconstruction" if dealt.get(bet.bet_id) != s.net else None
        else:
            ruling = None
        if ruling is None:
            continue
        out.append(
            RuledStake(
                r.round_id,
                bet.bet_id,
                bet.player,
                bet.wager,
                bet.stake,
                ruling,
                s.clause,
                dealt.get(bet.bet_id),
                s.net,
                value_of(bet.wager) if bet.moment is None else None,
            )
        )
    return tuple(out)


def _as_dealt(
    game: Game, options: Mapping[str, Any], coup: Coup | None, before: Round
) -> dict[str, Decimal]:
    """Each bet standing before the first ruling, settled on ``coup``."""
    if coup is None:
        return {}
    by_player: dict[str, list[Any]] = defaultdict(list)
    for bet in before.bets:
        if bet.status == "active":
            by_player[bet.player].append(bet)
    out: dict[str, Decimal] = {}
    for bets in by_player.values():
        try:
            settlement = settle(
                game,
                coup,
                [Bet(b.wager, b.stake, b.moment) for b in bets],
                layout=options.get("layout"),
                pair_rule=options.get("pair_rule"),
                insurance_placed=True,
            )
        except PuntoError:
            continue  # not settleable as they stood (the ruling's reason): left unknown
        for b, result in zip(bets, settlement.results, strict=True):
            out[b.bet_id] = result.net
    return out


# -- the tests --------------------------------------------------------------------------------


@dataclass(frozen=True)
class RulingTest:
    """One exact test of the money rulings gave a dealer's players (or one player)."""

    statistic: str  # "rulings that saved" or "saved, of the rulings"
    count: int
    out_of: int
    pit_rate: Fraction
    p_value: float
    alert: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "statistic": self.statistic,
            "count": self.count,
            "out_of": self.out_of,
            "pit_rate": f"{self.pit_rate.numerator}/{self.pit_rate.denominator}",
            "p_value": self.p_value,
            "alert": self.alert,
        }


@dataclass(frozen=True)
class PlayerRound:
    """A player's part in one finished round: the rulings' bets on them."""

    round_id: str
    dealer: str
    player: str
    ruled: tuple[RuledStake, ...]

    @property
    def saved(self) -> Decimal | None:
        known = [s.saved for s in self.ruled if s.saved is not None]
        return sum(known, Decimal(0)) if known else None


def _saving(rounds: Iterable[PlayerRound]) -> tuple[int, int, int]:
    """(rounds, rounds a ruling saved the player, rulings that moved money either way)."""
    n = saved = moved = 0
    for pr in rounds:
        n += 1
        total = pr.saved
        if total is not None and total != 0:
            moved += 1
            saved += total > 0
    return n, saved, moved


def _ruling_tests(
    rounds: Sequence[PlayerRound], pit: tuple[Fraction, Fraction], alpha: float
) -> tuple[RulingTest, ...]:
    """The two tests of ``rounds`` (one dealer's player-rounds, or one player's
    with one dealer) against the pit's proportions (:func:`pit_rates`)."""
    n, saved, moved = _saving(rounds)
    rate, share = pit
    out = []
    for statistic, k, m, p in (
        ("rulings that saved", saved, n, rate),
        ("saved, of the rulings", saved, moved, share),
    ):
        p_value = binomial_upper_tail(k, m, p)
        out.append(RulingTest(statistic, k, m, p, p_value, k > 0 and p_value < alpha))
    return tuple(out)


def pit_rates(rounds: Sequence[PlayerRound]) -> tuple[Fraction, Fraction]:
    """The pit's pooled proportion of player-rounds a ruling saved, and of
    rulings that moved a player's money, the share that saved it."""
    n, saved, moved = _saving(rounds)
    return (
        Fraction(saved, n) if n else Fraction(0),
        Fraction(saved, moved) if moved else Fraction(0),
    )


#: The most ruled stakes an entity's evidence lists (the latest).
EVIDENCE_LIMIT = 200


@dataclass(frozen=True)
class Rulings:
    """What the money rulings gave a dealer's players, or one player with one
    dealer: the tests, the money saved against the cards (the rulings whose
    coup was known), the value at placement of the stakes ruled, and the
    ruled stakes (the latest :data:`EVIDENCE_LIMIT`)."""

    tests: tuple[RulingTest, ...]
    saved: Decimal
    value: Fraction
    stakes: int
    ruled: tuple[RuledStake, ...]

    @property
    def alert(self) -> bool:
        return any(t.alert for t in self.tests)

    def words(self, alpha: float) -> list[str]:
        """The alerts, in words."""
        return [
            f"{t.statistic}: {t.count} of {t.out_of} (pit {float(t.pit_rate):.2%}), "
            f"p = {t.p_value:.2g} < {alpha}; rulings saved {self.saved} against the cards"
            for t in self.tests
            if t.alert
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "tests": [t.to_json() for t in self.tests],
            "saved": str(self.saved),
            "value_at_placement": str(self.value),
            "stakes_ruled": self.stakes,
            "ruled": [r.to_json() for r in self.ruled],
        }


def rulings_of(
    rounds: Sequence[PlayerRound], pit: tuple[Fraction, Fraction], alpha: float
) -> Rulings:
    """The tests of ``rounds`` against the pit (:func:`pit_rates`) and their evidence."""
    ruled = [s for pr in rounds for s in pr.ruled]
    return Rulings(
        _ruling_tests(rounds, pit, alpha),
        sum((s.saved for s in ruled if s.saved is not None), Decimal(0)),
        sum((v for s in ruled if (v := s.value_at_placement) is not None), Fraction(0)),
        len(ruled),
        tuple(ruled[-EVIDENCE_LIMIT:]),
    )


@dataclass(frozen=True)
class PlayerRulings:
    """One player's rounds with one dealer, and what the rulings gave them."""

    dealer: str
    player: str
    rounds: int
    rulings: Rulings

    def to_json(self, alpha: float) -> dict[str, Any]:
        return {
            "dealer": self.dealer,
            "player": self.player,
            "rounds": self.rounds,
            **self.rulings.to_json(),
            "alerts": self.rulings.words(alpha),
        }


def by_dealer_and_player(
    rounds: Iterable[PlayerRound], pit: tuple[Fraction, Fraction], alpha: float
) -> tuple[PlayerRulings, ...]:
    """Every (dealer, player) a ruling touched, tested against the pit."""
    pairs: dict[tuple[str, str], list[PlayerRound]] = defaultdict(list)
    for pr in rounds:
        pairs[(pr.dealer, pr.player)].append(pr)
    return tuple(
        PlayerRulings(dealer, player, len(rs), rulings_of(rs, pit, alpha))
        for (dealer, player), rs in sorted(pairs.items())
        if any(pr.ruled for pr in rs)
    )
