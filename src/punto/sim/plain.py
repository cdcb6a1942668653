"""The dealing kernel of :func:`punto.sim.kernel.simulate_shoes` in plain Python.

A small run (``punto simulate --coups 1000``) would spend most of its time
importing numba and loading the compiled kernel from its cache (about 0.6 s
on an idle machine, before the first shoe).  This module deals the same
shoes from the same random state with the same arithmetic -- xoshiro256++,
16 bits at a time, Lemire's bounded numbers with the same rejections, the
same partial Fisher-Yates, burn and cut card -- so it leaves the same counts
and the same final state in the same arrays, only about 300 times more
slowly.  Without the C kernel (:mod:`punto.sim.dealing`), :mod:`punto.sim.run`
uses it for runs too small for numba's start-up to pay;
``tests/maths/test_sim_plain.py`` checks that both give the same integers.
"""

from __future__ import annotations

from typing import Any

_M64 = (1 << 64) - 1


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
    """:func:`punto.sim.kernel.simulate_shoes`, argument for argument."""
    shoe_ranks: list[int] = [int(x) for x in template]
    n = len(shoe_ranks)
    m = min(n, cut + 6)
    codes: list[int] = outcome.tolist()
    value: list[int] = values.tolist()
    pattern_of: list[int] = pattern.tolist() if pairs else []
    s0, s1, s2, s3 = (int(x) for x in state[:4])
    width = counts.shape[1]
    row_counts = [0] * width
    row = 0
    coups = 0
    for shoe in range(nshoes):
        if shoe // batch_shoes != row:
            _flush(counts, row, row_counts)
            row = shoe // batch_shoes
            row_counts = [0] * width
        deck = shoe_ranks[:]
        buf = 0
        left = 0
        for i in range(m):
            bound = n - i
            if left == 0:
                buf, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
                left = 4
            prod = (buf & 0xFFFF) * bound
            buf >>= 16
            left -= 1
            low = prod & 0xFFFF
            if low < bound:
                threshold = (65536 - bound) % bound
                while low < threshold:
                    fresh, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
                    prod = (fresh >> 48) * bound
                    low = prod & 0xFFFF
            j = i + (prod >> 16)
            deck[i], deck[j] = deck[j], deck[i]
        pos = 0
        if burn:
            shown = value[deck[0]]
            pos = 1 + (10 if shown == 0 else shown)
        while pos <= cut:
            r0, r1, r2, r3 = deck[pos], deck[pos + 1], deck[pos + 2], deck[pos + 3]
            p = (value[r0] + value[r2]) % 10
            b = (value[r1] + value[r3]) % 10
            code = codes[((p * 10 + b) * 10 + value[deck[pos + 4]]) * 10 + value[deck[pos + 5]]]
            row_counts[code & 0x1FF] += 1
            if pairs:
                row_counts[400 + pattern_of[((r0 * 13 + r1) * 13 + r2) * 13 + r3]] += 1
            pos += 4 + (code >> 9)
            coups += 1
    if nshoes:
        _flush(counts, row, row_counts)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return coups


def _next(s0: int, s1: int, s2: int, s3: int) -> tuple[int, int, int, int, int]:
    """One xoshiro256++ output and the next state (as the compiled ``_next``)."""
    total = (s0 + s3) & _M64
    result = (((total << 23) | (total >> 41)) + s0) & _M64
    t = (s1 << 17) & _M64
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = ((s3 << 45) | (s3 >> 19)) & _M64
    return result, s0, s1, s2, s3


def _flush(counts: Any, row: int, row_counts: list[int]) -> None:
    counts[row, : len(row_counts)] += row_counts
