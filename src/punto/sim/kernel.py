"""Compiled simulation kernels (numba, cached on disk).

The kernels deal whole shoes and report, for each coup, its class and pair
pattern -- nothing about any wager.  :func:`simulate_shoes` has a C twin,
``punto.sim._kernel``, which runs use instead when it was built at install
(:mod:`punto.sim.dealing`): the same shoes, without numba's start-up.  Every rule comes in as an array built by
:mod:`punto.sim.tables` from :mod:`punto.rules.tableau` and the exact analysis.

How a shoe goes (all kernels alike):

1. **Shuffle.**  The shoe (ranks 0-12) is shuffled by Fisher-Yates, but only
   the positions that can be dealt: at most ``cut + 6`` of them (the last
   coup starts at card ``cut`` at the latest and takes at most six cards).  The
   random numbers come from xoshiro256++ (Blackman and Vigna), 16 bits at a
   time, turned into a position by Lemire's nearly-divisionless bounded
   random number (unbiased: the rare low products are rejected).
2. **Burn** (optional, not in the approved rules): the first card is shown
   and as many cards as its point value (ten for a zero) are burned face down.
3. **Coups** while the cut card has not come out: ``cut`` cards lie in front
   of it, and it comes out when the card behind it is drawn (as
   :attr:`punto.rules.shoe.Shoe.cut_card_reached`), so a coup starts at card
   ``pos`` while ``pos <= cut`` -- a coup starting at ``cut`` is the one whose
   first card brings it out (3.22.1).  The round in which the cut card comes
   out is completed and ends the shoe (3.22).  Each coup reads six cards; the
   outcome table says how many of them it takes.

The random state lives in registers while a kernel runs and is written back
to the caller's array at the end, so a chunk continues where it stopped.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, uint64

#: xoshiro256++ reference output for the state (1, 2, 3, 4) (first draws).
XOSHIRO_CHECK = (41943041, 58720359, 3588806011781223, 3591011842654386)

_U16 = uint64(16)
_U17 = uint64(17)
_U23 = uint64(23)
_U45 = uint64(45)
_U48 = uint64(48)
_U64 = uint64(64)
_M16 = uint64(0xFFFF)
_R16 = uint64(65536)


@njit(inline="always", cache=True)
def _rotl(x: Any, k: Any) -> Any:
    return (x << k) | (x >> (_U64 - k))


@njit(inline="always", cache=True)
def _next(s0: Any, s1: Any, s2: Any, s3: Any) -> Any:
    """One xoshiro256++ output and the next state."""
    result = _rotl(s0 + s3, _U23) + s0
    t = s1 << _U17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, _U45)
    return result, s0, s1, s2, s3


@njit(cache=True, nogil=True)
def xoshiro_outputs(state: Any, count: int) -> Any:
    """``count`` raw outputs (a test of the generator)."""
    out = np.empty(count, dtype=np.uint64)
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for i in range(count):
        out[i], s0, s1, s2, s3 = _next(s0, s1, s2, s3)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return out


@njit(inline="always", cache=True)
def _shuffle(deck: Any, template: Any, m: int, s0: Any, s1: Any, s2: Any, s3: Any) -> Any:
    """Copy ``template`` into ``deck`` and shuffle its first ``m`` positions
    (a partial Fisher-Yates: position i gets a uniform card of the n - i left)."""
    n = template.size
    for i in range(n):
        deck[i] = template[i]
    buf = uint64(0)
    left = 0
    for i in range(m):
        bound = uint64(n - i)
        if left == 0:
            buf, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
            left = 4
        prod = (buf & _M16) * bound
        buf >>= _U16
        left -= 1
        low = prod & _M16
        if low < bound:
            threshold = (_R16 - bound) % bound
            while low < threshold:
                fresh, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
                prod = (fresh >> _U48) * bound
                low = prod & _M16
        j = i + int(prod >> _U16)
        card = deck[j]
        deck[j] = deck[i]
        deck[i] = card
    return s0, s1, s2, s3


@njit(inline="always", cache=True)
def _first_coup(deck: Any, values: Any, burn: bool) -> int:
    """Where the first coup starts: after the burn, if any."""
    if not burn:
        return 0
    shown = int(values[deck[0]])
    return 1 + (10 if shown == 0 else shown)


@njit(inline="always", cache=True)
def _coup_code(deck: Any, pos: int, values: Any, outcome: Any) -> int:
    """The outcome code of the coup starting at ``pos`` (its class in the low
    nine bits, the cards it takes beyond four above): the two-card totals and
    the values of the fifth and sixth cards index the outcome table."""
    p = (values[deck[pos]] + values[deck[pos + 2]]) % 10
    b = (values[deck[pos + 1]] + values[deck[pos + 3]]) % 10
    return int(outcome[((p * 10 + b) * 10 + values[deck[pos + 4]]) * 10 + values[deck[pos + 5]]])


@njit(inline="always", cache=True)
def _pattern_of(deck: Any, pos: int, pattern: Any) -> int:
    """The pair pattern of the coup starting at ``pos`` (its first four ranks)."""
    key = ((np.intp(deck[pos]) * 13 + deck[pos + 1]) * 13 + deck[pos + 2]) * 13 + deck[pos + 3]
    return int(pattern[key])


@njit(cache=True, nogil=True)
def simulate_shoes(
    state: Any,
    template: Any,
    nshoes: int,
    cut: int,
    burn: bool,
    batch_shoes: int,
    outcome: Any,
    values: Any,
    pattern: Any,
    pairs: bool,
    counts: Any,
) -> int:
    """Deal ``nshoes`` shoes; add each coup to ``counts[shoe // batch_shoes,
    class]`` and, with ``pairs``, to ``counts[..., 400 + pattern]``.

    Returns the number of coups.  ``cut`` is the number of cards in front
    of the cut card (at most ``template.size - 6``).
    """
    n = template.size
    deck = np.empty(n, dtype=np.uint8)
    m = min(n, cut + 6)
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    coups = 0
    for shoe in range(nshoes):
        s0, s1, s2, s3 = _shuffle(deck, template, m, s0, s1, s2, s3)
        row = shoe // batch_shoes
        pos = _first_coup(deck, values, burn)
        while pos <= cut:
            code = _coup_code(deck, pos, values, outcome)
            counts[row, code & 0x1FF] += 1
            if pairs:
                counts[row, 400 + _pattern_of(deck, pos, pattern)] += 1
            pos += 4 + (code >> 9)
            coups += 1
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return coups


@njit(cache=True, nogil=True)
def settle_shoes(
    state: Any,
    template: Any,
    nshoes: int,
    cut: int,
    burn: bool,
    outcome: Any,
    values: Any,
    pattern: Any,
    slot: Any,
    events: Any,
) -> int:
    """The same shoes as :func:`simulate_shoes`, but every wager settled coup
    by coup: ``events[w, slot[w, key]] += 1`` for each wager ``w`` (key: the
    class, or 400 + the pair pattern for a wager on pairs).  For the benchmark
    and as a check that settling by class counts is the same thing."""
    n = template.size
    deck = np.empty(n, dtype=np.uint8)
    m = min(n, cut + 6)
    nw = slot.shape[0]
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    coups = 0
    for _shoe in range(nshoes):
        s0, s1, s2, s3 = _shuffle(deck, template, m, s0, s1, s2, s3)
        pos = _first_coup(deck, values, burn)
        while pos <= cut:
            code = _coup_code(deck, pos, values, outcome)
            cls = code & 0x1FF
            pat = 400 + _pattern_of(deck, pos, pattern)
            for w in range(nw):
                # a wager's slots are 0 on the keys of the other basis
                events[w, slot[w, cls] + slot[w, pat]] += 1
            pos += 4 + (code >> 9)
            coups += 1
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return coups


@njit(cache=True, nogil=True)
def shuffled_shoes(state: Any, template: Any, nshoes: int, cut: int) -> Any:
    """The shoes :func:`simulate_shoes` would deal from the same state, in
    dealing order (only the first ``cut + 6`` positions are shuffled)."""
    n = template.size
    out = np.empty((nshoes, n), dtype=np.uint8)
    deck = np.empty(n, dtype=np.uint8)
    m = min(n, cut + 6)
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for shoe in range(nshoes):
        s0, s1, s2, s3 = _shuffle(deck, template, m, s0, s1, s2, s3)
        out[shoe, :] = deck
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return out


@njit(cache=True, nogil=True)
def deal_order(deck: Any, cut: int, burn: bool, outcome: Any, values: Any, pattern: Any) -> Any:
    """The coups of one shoe in a given order: rows of (first card, cards
    taken, class, pattern), as :func:`simulate_shoes` deals them."""
    out = np.zeros((deck.size // 4 + 1, 4), dtype=np.int64)
    pos = _first_coup(deck, values, burn)
    k = 0
    while pos <= cut:
        code = _coup_code(deck, pos, values, outcome)
        out[k, 0] = pos
        out[k, 1] = 4 + (code >> 9)
        out[k, 2] = code & 0x1FF
        out[k, 3] = _pattern_of(deck, pos, pattern)
        pos += 4 + (code >> 9)
        k += 1
    return out[:k]


@njit(inline="always", cache=True)
def _heap_replace(keys: Any, slots: Any, key: Any) -> None:
    """Replace the largest key of the max-heap ``keys`` (its root) by ``key``
    and sift it down; ``slots`` moves along, the root's slot going with the
    new key (the caller has stored the new entry there)."""
    n = keys.size
    slot = slots[0]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n and keys[child + 1] > keys[child]:
            child += 1
        if keys[child] <= key:
            break
        keys[i] = keys[child]
        slots[i] = slots[child]
        i = child
    keys[i] = key
    slots[i] = slot


@njit(cache=True, nogil=True)
def count_shoes(
    state: Any,
    template: Any,
    nshoes: int,
    cut: int,
    burn: bool,
    outcome: Any,
    values: Any,
    pattern: Any,
    slot: Any,
    value: Any,
    tags: Any,
    exceeds: bool,
    bin_low: int,
    hist: Any,
    shoe_stats: Any,
    tail_stats: Any,
    keys: Any,
    slots: Any,
    samples: Any,
) -> int:
    """Deal ``nshoes`` shoes keeping a running count per wager.

    For each wager ``w`` (tags ``tags[w, rank]``): before every coup the true
    count is ``floor(52 * running count / cards left in the shoe)`` (the cards
    shown so far counted; burned cards face down are not), clamped into the
    bins ``bin_low .. bin_low + nbins - 1``.  With ``exceeds`` the bin is
    ``ceil(true count) - 1`` instead, so that "bin t and above" means "true
    count above t" rather than "at least t".  ``hist[w, bin, event]`` counts
    the coups by true count and event of ``w``.

    Per shoe and threshold ``t`` (bet when the true count is at least bin
    ``t``): N coups bet, R their scaled result, C the shoe's coups.
    ``tail_stats[w, t]`` adds up N, R, N^2, R^2, N R, N C, R C over shoes, and
    ``shoe_stats`` holds (shoes, sum C, sum C^2).

    States for the exact curve: every coup gets a random 64-bit key (its own
    stream, after the shoe stream's state in ``state[4:8]``); per wager and
    bin the ``K`` states with the smallest keys are kept, a uniform sample of
    the bin's coups that merges exactly across chunks: ``keys[w, bin]`` is a
    max-heap of the keys kept (all ones: none yet), ``slots[w, bin, k]`` where
    the state of heap entry ``k`` is in ``samples[w, bin, :, 13]`` (the ranks
    left).  The arrays may carry on from an earlier call.
    """
    n = template.size
    nw = slot.shape[0]
    nbins = hist.shape[1]
    # no samples kept (--samples 0): the heaps are empty, never to be read
    sampling = keys.shape[2] > 0
    deck = np.empty(n, dtype=np.uint8)
    m = min(n, cut + 6)
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    k0, k1, k2, k3 = state[4], state[5], state[6], state[7]
    offset = 1 if exceeds else 0
    rc = np.zeros(nw, dtype=np.int64)
    shoe_n = np.zeros((nw, nbins), dtype=np.int64)
    shoe_r = np.zeros((nw, nbins), dtype=np.int64)
    bin_lo = np.zeros(nw, dtype=np.int64)
    bin_hi = np.zeros(nw, dtype=np.int64)
    tail_add = np.zeros((nw, nbins, 7), dtype=np.int64)
    left = np.zeros(13, dtype=np.int64)
    coups = 0
    for _shoe in range(nshoes):
        s0, s1, s2, s3 = _shuffle(deck, template, m, s0, s1, s2, s3)
        for r in range(13):
            left[r] = 0
        for i in range(n):
            left[deck[i]] += 1
        for w in range(nw):
            rc[w] = 0
            bin_lo[w] = nbins
            bin_hi[w] = -1
        pos = _first_coup(deck, values, burn)
        if burn:
            for w in range(nw):
                rc[w] += tags[w, deck[0]]
            for i in range(pos):
                left[deck[i]] -= 1
        shoe_coups = 0
        while pos <= cut:
            remaining = n - pos
            r0 = deck[pos]  # the ranks, for the running counts below
            r1 = deck[pos + 1]
            r2 = deck[pos + 2]
            r3 = deck[pos + 3]
            r4 = deck[pos + 4]
            r5 = deck[pos + 5]
            code = _coup_code(deck, pos, values, outcome)
            cls = code & 0x1FF
            pat = 400 + _pattern_of(deck, pos, pattern)
            extra = code >> 9
            key, k0, k1, k2, k3 = _next(k0, k1, k2, k3)
            for w in range(nw):
                t = (rc[w] * 52 - offset) // remaining - bin_low
                if t < 0:
                    t = 0
                elif t >= nbins:
                    t = nbins - 1
                e = slot[w, cls] + slot[w, pat]
                hist[w, t, e] += 1
                shoe_n[w, t] += 1
                shoe_r[w, t] += value[w, e]
                if t < bin_lo[w]:
                    bin_lo[w] = t
                if t > bin_hi[w]:
                    bin_hi[w] = t
                if sampling and key < keys[w, t, 0]:
                    at = slots[w, t, 0]  # the largest key's storage, reused
                    for r in range(13):
                        samples[w, t, at, r] = left[r]
                    _heap_replace(keys[w, t], slots[w, t], key)
                used = tags[w, r0] + tags[w, r1] + tags[w, r2] + tags[w, r3]
                if extra > 0:
                    used += tags[w, r4]
                if extra > 1:
                    used += tags[w, r5]
                rc[w] += used
            left[r0] -= 1
            left[r1] -= 1
            left[r2] -= 1
            left[r3] -= 1
            if extra > 0:
                left[r4] -= 1
            if extra > 1:
                left[r5] -= 1
            pos += 4 + extra
            shoe_coups += 1
        coups += shoe_coups
        c = shoe_coups
        shoe_stats[0] += 1
        shoe_stats[1] += c
        shoe_stats[2] += c * c
        for w in range(nw):
            lo = bin_lo[w]
            hi = bin_hi[w]
            if hi < 0:
                continue
            # thresholds above hi: nothing bet; from hi down to lo: explicit;
            # at and below lo: the whole shoe, added once at lo and summed
            # downwards at the end of the chunk.
            cn = 0
            cr = 0
            for t in range(hi, lo - 1, -1):
                cn += shoe_n[w, t]
                cr += shoe_r[w, t]
                shoe_n[w, t] = 0
                shoe_r[w, t] = 0
                target = tail_add if t == lo else tail_stats
                target[w, t, 0] += cn
                target[w, t, 1] += cr
                target[w, t, 2] += cn * cn
                target[w, t, 3] += cr * cr
                target[w, t, 4] += cn * cr
                target[w, t, 5] += cn * c
                target[w, t, 6] += cr * c
    for w in range(nw):
        for j in range(7):
            acc = 0
            for t in range(nbins - 1, -1, -1):
                acc += tail_add[w, t, j]
                tail_stats[w, t, j] += acc
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    state[4], state[5], state[6], state[7] = k0, k1, k2, k3
    return coups
