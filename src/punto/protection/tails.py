"""Exact tails of the tests of :mod:`.anomalies` and :mod:`.rulings`."""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["binomial_upper_tail"]


def binomial_upper_tail(k: int, n: int, p: Fraction) -> float:
    """P(X >= k) for X ~ Binomial(n, p), summed in logarithms (no overflow).

    >>> round(binomial_upper_tail(3, 10, Fraction(1, 10)), 6)
    0.070191
    >>> binomial_upper_tail(0, 10, Fraction(1, 2)), binomial_upper_tail(11, 10, Fraction(1, 2))
    (1.0, 0.0)
    """
    if k <= 0:
        return 1.0
    if k > n or p == 0:
        return 0.0
    if p == 1:
        return 1.0
    lp, lq = math.log(p), math.log(1 - p)
    terms = [
        math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp + (n - i) * lq
        for i in range(k, n + 1)
    ]
    top = max(terms)
    return min(1.0, math.exp(top) * math.fsum(math.exp(t - top) for t in terms))


def _log_poisson_cdf(x: int, mu: float) -> float:
    """log P(X <= x) for X ~ Poisson(mu), summed in logarithms."""
    if x < 0:
        return -math.inf
    if mu == 0:
        return 0.0
    lm = math.log(mu)
    terms = [i * lm - mu - math.lgamma(i + 1) for i in range(x + 1)]
    top = max(terms)
    return top + math.log(math.fsum(math.exp(t - top) for t in terms))


def poisson_interval(k: int, confidence: float = 0.95) -> tuple[float, float]:
    """The exact (Garwood) interval for a Poisson mean after ``k`` events,
    solved on the logarithm of the distribution function (no underflow at
    thousands of events, where ``exp(-mu)`` is 0 in a float).

    >>> [round(x, 4) for x in poisson_interval(0)]
    [0.0, 3.6889]
    >>> [round(x, 2) for x in poisson_interval(10)]
    [4.8, 18.39]
    >>> lo, hi = poisson_interval(1000)
    >>> round(lo, 1), round(hi, 1)
    (939.0, 1064.0)
    """
    if k < 0 or not 0 < confidence < 1:
        raise ValueError(f"no interval for {k} events at confidence {confidence}")
    log_a = math.log((1 - confidence) / 2)

    def solve(above: bool, x: int) -> float:
        # P(X <= x; mu) falls as mu grows: bisect for where its log meets log_a
        lo, hi = 0.0, 10.0 * k + 50.0
        for _ in range(200):
            mid = (lo + hi) / 2
            log_cdf = _log_poisson_cdf(x, mid)
            value = _log_complement(log_cdf) if above else log_cdf
            if (value < log_a) == above:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    # lower: P(X >= k; mu) = a, i.e. 1 - P(X <= k - 1); upper: P(X <= k; mu) = a
    lower = 0.0 if k == 0 else solve(True, k - 1)
    upper = solve(False, k)
    return lower, upper


def _log_complement(log_p: float) -> float:
    """log(1 - p) from log p."""
    return -math.inf if log_p >= 0 else math.log1p(-math.exp(log_p))
