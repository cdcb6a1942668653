"""Which wagers the cards so far have already decided ("outcome established").

A wager is decided when every way the coup can still end gives it the same
event.  This is computed from the cards, never entered by hand: MBS 5.17 and
RWS 5.4 (power failure), the withdrawal options and the live table all ask it.

Non-pair wagers look only at the coup class, so the search follows point
values through the Table of Play and meets each reachable class once.  Pair
wagers look only at the first four ranks, so the search tries, for each
missing card of the initial deal, the ranks already on the table, the four
zero-value ranks and enough fresh ranks to stand for all the others.

>>> from punto.rules.cards import parse_cards
>>> from punto.rules.games import get_game
>>> game = get_game("tiger-baccarat")
>>> deal = Deal(parse_cards("7S 5H 9D 2C"))   # Player 6, Banker 7: both stand
>>> sorted(decided(game, deal).items())[:3]
[('banker', 'win'), ('big_tiger', None), ('player', None)]
>>> decided(game, Deal(parse_cards("7S 5H")))
{}
"""

from __future__ import annotations

from collections.abc import Iterator

from punto.rules.cards import Card, Rank, Suit
from punto.rules.coup import Coup, Deal
from punto.rules.game import Game
from punto.rules.tableau import point_total
from punto.rules.wagers import Basis, PairRule

_VALUE_CARDS = tuple(Card(Rank.TEN if v == 0 else Rank(v), Suit.SPADES) for v in range(10))
_ZERO_RANKS = (Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING)


def decided(
    game: Game,
    deal: Deal,
    *,
    layout: str | None = None,
    pair_rule: PairRule | None = None,
) -> dict[str, str | None]:
    """Each offered wager whose result is already certain, with its event
    (None: it has lost).  Insurance Plus bets are priced per offer and are
    not listed here."""
    rule = pair_rule or game.pair_rule
    result: dict[str, str | None] = {}
    by_basis = {
        basis: [w for w in game.offered(layout).values() if w.kind and w.kind.basis is basis]
        for basis in Basis
    }
    for basis, wagers in by_basis.items():
        if not wagers:
            continue
        coups = class_representatives(deal) if basis is Basis.CLASS else pair_completions(deal)
        seen: dict[str, str | None] = {}
        open_ids = {w.id for w in wagers}
        for coup in coups:
            for w in wagers:
                if w.id not in open_ids:
                    continue
                assert w.kind is not None
                event = w.kind(coup, rule)
                if w.id not in seen:
                    seen[w.id] = event
                elif seen[w.id] != event:
                    open_ids.discard(w.id)
            if not open_ids:
                break
        result.update({wid: seen[wid] for wid in open_ids if wid in seen})
    return {wid: result[wid] for wid in game.offered(layout) if wid in result}


def outcome_established(
    game: Game, deal: Deal, *, layout: str | None = None, pair_rule: PairRule | None = None
) -> bool:
    """Whether any available wager has conclusively won or lost (MBS 5.17, RWS 5.4)."""
    return bool(decided(game, deal, layout=layout, pair_rule=pair_rule))


def class_representatives(deal: Deal) -> list[Coup]:
    """One finished coup for each coup class still reachable from ``deal``."""
    return [Coup((*deal.cards, *suffix)) for suffix in _reach(deal.cards).values()]


#: The coup classes reachable from each state of a deal (see :func:`_reach`),
#: kept for the process: there are a few thousand states, the same for every
#: game and shoe, and the search from a deal's first cards visits most of them.
_REACHABLE: dict[tuple[int, ...], dict[tuple[int, ...], tuple[Card, ...]]] = {}


def _reach(cards: tuple[Card, ...]) -> dict[tuple[int, ...], tuple[Card, ...]]:
    """The coup classes reachable from ``cards``, each with cards that reach it.

    What lies ahead depends only on how many cards are out, the two hands'
    running totals and the third cards, so states are shared.
    """
    n = len(cards)
    key = (
        n,
        point_total(sum(c.value for c in cards[0:4:2])),
        point_total(sum(c.value for c in cards[1:4:2])),
        *(c.value for c in cards[4:]),  # each third card decides a class of its own
    )
    found = _REACHABLE.get(key)
    if found is None:
        if Deal(cards).is_complete:
            found = {Coup(cards).coup_class: ()}
        else:
            found = {}
            for card in _VALUE_CARDS:
                for klass, suffix in _reach((*cards, card)).items():
                    found.setdefault(klass, (card, *suffix))
        # (two threads may both work a state out: they find the same classes)
        _REACHABLE[key] = found
    return found


def pair_completions(deal: Deal) -> Iterator[Coup]:
    """Finished coups covering every pair pattern the first four cards can still make."""
    dealt = deal.cards[:4]
    missing = 4 - len(dealt)
    present = {card.rank for card in dealt}
    fresh = [r for r in Rank if r not in present and r.points != 0][:missing]
    candidates = sorted(present | set(_ZERO_RANKS) | set(fresh))
    for ranks in _products(candidates, missing):
        cards = (*dealt, *(Card(r, Suit.HEARTS) for r in ranks))
        state = Deal(cards) if missing else deal
        while not state.is_complete:
            state = state.add(_VALUE_CARDS[0])
        yield state.to_coup()


def _products(items: list[Rank], repeat: int) -> Iterator[tuple[Rank, ...]]:
    if repeat == 0:
        yield ()
        return
    for head in items:
        for tail in _products(items, repeat - 1):
            yield (head, *tail)
