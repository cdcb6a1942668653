"""Exact enumeration in plain Python: the fallback and the reference.

Two enumerators count the ordered six-card sequences of a shoe by how the
coup goes.  Both read the Table of Play from :mod:`punto.rules.tableau` (through
:func:`draws_table`) and nothing else about the game.

* :func:`path_counts` / :func:`class_counts` take the first two cards of each
  hand as unordered pairs of point values (55 x 55), the way the compiled
  kernel does; they are the fallback when the kernel is not built.
* :func:`reference_class_counts` deals card after card in shoe order, one
  point value at a time, with nothing clever at all: the reference the fast
  enumerators are checked against.

A *path* is (Player two-card total, Banker two-card total, Player third card,
Banker third card), a third card being 10 when the hand stood; a *coup class*
is (Player total, Banker total, Player cards, Banker cards), indexed by
:func:`class_index`.

>>> from punto.analysis.composition import Composition
>>> counts = class_counts(Composition.of_decks(1).counts)
>>> sum(counts) == Composition.of_decks(1).sequences
True
>>> counts == reference_class_counts(Composition.of_decks(1).counts)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from punto.rules.cards import Rank
from punto.rules.tableau import banker_draws, player_draws

#: Number of coup classes: 10 x 10 totals x 2 x 2 card counts.
NCLASSES = 400
#: Number of paths: 10 x 10 two-card totals x 11 x 11 third cards (10: none).
NPATHS = 12100
#: The third "card" of a hand that stood.
NONE = 10


def class_index(player: int, banker: int, player_cards: int, banker_cards: int) -> int:
    """Index of a coup class, 0-399.

    >>> class_index(0, 0, 2, 2), class_index(9, 9, 3, 3)
    (0, 399)
    """
    return ((player * 10 + banker) * 2 + player_cards - 2) * 2 + banker_cards - 2


def class_of_index(index: int) -> tuple[int, int, int, int]:
    """The coup class (player total, banker total, player cards, banker cards).

    >>> class_of_index(class_index(6, 7, 3, 2))
    (6, 7, 3, 2)
    """
    rest, bc = divmod(index, 2)
    rest, pc = divmod(rest, 2)
    player, banker = divmod(rest, 10)
    return player, banker, pc + 2, bc + 2


def path_index(player: int, banker: int, player_third: int, banker_third: int) -> int:
    """Index of a path; a third card of :data:`NONE` means the hand stood."""
    return ((player * 10 + banker) * 11 + player_third) * 11 + banker_third


def path_class(index: int) -> int:
    """The coup class a path ends in."""
    rest, f = divmod(index, 11)
    rest, e = divmod(rest, 11)
    p2, b2 = divmod(rest, 10)
    player = p2 if e == NONE else (p2 + e) % 10
    banker = b2 if f == NONE else (b2 + f) % 10
    return class_index(player, banker, 2 if e == NONE else 3, 2 if f == NONE else 3)


@cache
def draws_table() -> bytes:
    """The Table of Play as the kernel reads it, built from :mod:`punto.rules.tableau`.

    Bytes 0-99: the Player draws on two-card totals (p, b), at ``p*10+b``;
    bytes 100-1199: the Banker draws on (p, b) and the Player's third card t
    (t = 10: the Player stood), at ``100+(p*10+b)*11+t``.

    >>> table = draws_table()
    >>> table[5 * 10 + 3], table[100 + (6 * 10 + 5) * 11 + 10]   # P5 draws; B5 v P6 stood draws
    (1, 1)
    """
    player = bytes(int(player_draws(p, b)) for p in range(10) for b in range(10))
    banker = bytes(
        int(banker_draws(p, b, None if t == NONE else t))
        for p in range(10)
        for b in range(10)
        for t in range(11)
    )
    return player + banker


def values_of(ranks: Sequence[int]) -> list[int]:
    """Cards of each point value 0-9 from 13 rank counts."""
    values = [0] * 10
    for rank, count in zip(Rank, ranks, strict=True):
        values[rank.points] += count
    return values


def path_counts(ranks: Sequence[int]) -> list[int]:
    """Ordered six-card sequences along each of the 12100 paths."""
    table = draws_table()
    n = values_of(ranks)
    total = sum(n)
    n4, n5 = total - 4, total - 5
    out = [0] * NPATHS
    used = [0] * 10
    for a in range(10):
        if n[a] <= 0:
            continue
        for c in range(a, 10):
            kc = n[c] - (c == a)
            if kc <= 0:
                continue
            wp = n[a] * kc * (1 if a == c else 2)
            p = (a + c) % 10
            used[a] += 1
            used[c] += 1
            for b in range(10):
                kb = n[b] - used[b]
                if kb <= 0:
                    continue
                for d in range(b, 10):
                    kd = n[d] - used[d] - (d == b)
                    if kd <= 0:
                        continue
                    w4 = wp * kb * kd * (1 if b == d else 2)
                    bt = (b + d) % 10
                    used[b] += 1
                    used[d] += 1
                    left = [n[v] - used[v] for v in range(10)]
                    pb = p * 10 + bt
                    base = pb * 121
                    if not table[pb]:
                        if not table[100 + pb * 11 + NONE]:
                            out[base + NONE * 11 + NONE] += w4 * n4 * n5
                        else:
                            for f in range(10):
                                if left[f] > 0:
                                    out[base + NONE * 11 + f] += w4 * left[f] * n5
                    else:
                        for e in range(10):
                            if left[e] <= 0:
                                continue
                            if not table[100 + pb * 11 + e]:
                                out[base + e * 11 + NONE] += w4 * left[e] * n5
                            else:
                                we = w4 * left[e]
                                for f in range(10):
                                    kf = left[f] - (f == e)
                                    if kf > 0:
                                        out[base + e * 11 + f] += we * kf
                    used[b] -= 1
                    used[d] -= 1
            used[a] -= 1
            used[c] -= 1
    return out


def class_counts(ranks: Sequence[int]) -> list[int]:
    """Ordered six-card sequences of each of the 400 coup classes."""
    out = [0] * NCLASSES
    for index, count in enumerate(path_counts(ranks)):
        if count:
            out[path_class(index)] += count
    return out


def reference_class_counts(ranks: Sequence[int]) -> list[int]:
    """The 400 class counts, dealing one card at a time in shoe order.

    Cards go Player, Banker, Player, Banker, then to whichever hand
    :func:`punto.rules.tableau.player_draws` and :func:`punto.rules.tableau.banker_draws`
    say; each way a coup can go is weighted by the cards there are of each
    point value as it is dealt, and by the falling product of the cards left
    for the positions of the six it does not use.
    """
    n = values_of(ranks)
    total = sum(n)
    out = [0] * NCLASSES

    def draw(v: int) -> int:
        k = n[v]
        n[v] -= 1
        return k

    for a in range(10):
        wa = draw(a)
        for b in range(10):
            wb = wa * draw(b)
            for c in range(10):
                wc = wb * draw(c)
                for d in range(10):
                    w = wc * draw(d)
                    if w > 0:
                        p, t = (a + c) % 10, (b + d) % 10
                        _deal_third_cards(n, total, p, t, w, out)
                    n[d] += 1
                n[c] += 1
            n[b] += 1
        n[a] += 1
    return out


def _deal_third_cards(n: list[int], total: int, p: int, t: int, w: int, out: list[int]) -> None:
    if player_draws(p, t):
        for e in range(10):
            we = w * n[e]
            if we <= 0:
                continue
            n[e] -= 1
            pe = (p + e) % 10
            if banker_draws(p, t, e):
                for f in range(10):
                    if n[f] > 0:
                        out[class_index(pe, (t + f) % 10, 3, 3)] += we * n[f]
            else:
                out[class_index(pe, t, 3, 2)] += we * (total - 5)
            n[e] += 1
    elif banker_draws(p, t, None):
        for f in range(10):
            if n[f] > 0:
                out[class_index(p, (t + f) % 10, 2, 3)] += w * n[f] * (total - 5)
    else:
        out[class_index(p, t, 2, 2)] += w * (total - 4) * (total - 5)


# -- the first four cards, by rank: pair patterns --------------------------------------

#: Ordered rank tuples of the first four cards (Player, Banker, Player, Banker).
NTUPLES = 13**4


def tuple_index(r1: int, r2: int, r3: int, r4: int) -> int:
    """Index of four ranks numbered 0 (Ace) to 12 (King) in a pattern table."""
    return ((r1 * 13 + r2) * 13 + r3) * 13 + r4


def pattern_table(categories: bytes) -> tuple[list[int], list[tuple[int, int, int, int]]]:
    """Pattern id of every ordered rank tuple, and a representative of each.

    ``categories`` gives each rank a code 0-3; ranks with the same code are
    renamed freely.  A pattern is which positions share a rank, and the code
    of each rank (see the kernel's ``pattern_table``, which this mirrors).
    """
    ids: dict[tuple[tuple[int, int], ...], int] = {}
    table = [0] * NTUPLES
    reps: list[tuple[int, int, int, int]] = []
    for i in range(NTUPLES):
        ranks = (i // 2197, (i // 169) % 13, (i // 13) % 13, i % 13)
        ordinal: dict[int, int] = {}
        per_code = [0, 0, 0, 0]
        key = []
        for r in ranks:
            code = categories[r]
            if r not in ordinal:
                ordinal[r] = per_code[code]
                per_code[code] += 1
            key.append((code, ordinal[r]))
        found = ids.setdefault(tuple(key), len(ids))
        if found == len(reps):
            reps.append(ranks)
        table[i] = found
    return table, reps


def pattern_counts(
    ranks: Sequence[int], table: Sequence[int], npatterns: int, symmetric: bool
) -> list[int]:
    """Ordered six-card sequences by the pattern of the first four ranks.

    With ``symmetric``, each hand's two cards are taken as an unordered pair
    (valid when every wager asked about reads them as a set).
    """
    r = list(ranks)
    total = sum(r)
    rest = (total - 4) * (total - 5)
    out = [0] * npatterns
    used = [0] * 13
    for r1 in range(13):
        if r[r1] <= 0:
            continue
        used[r1] += 1
        for r2 in range(13):
            k2 = r[r2] - used[r2]
            if k2 <= 0:
                continue
            w2 = r[r1] * k2
            used[r2] += 1
            for r3 in range(r1 if symmetric else 0, 13):
                k3 = r[r3] - used[r3]
                if k3 <= 0:
                    continue
                w3 = w2 * k3 * (2 if symmetric and r3 != r1 else 1)
                used[r3] += 1
                base = tuple_index(r1, r2, r3, 0)
                for r4 in range(r2 if symmetric else 0, 13):
                    k4 = r[r4] - used[r4]
                    if k4 > 0:
                        out[table[base + r4]] += (
                            w3 * k4 * (2 if symmetric and r4 != r2 else 1) * rest
                        )
                used[r3] -= 1
            used[r2] -= 1
        used[r1] -= 1
    return out
