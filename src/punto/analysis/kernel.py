"""The compiled kernel, or the same integers from plain Python.

``punto.analysis._kernel`` is a small C extension built when the package is
installed (see ``setup.py``).  When it is missing -- or for shoes beyond its
64-bit counts (more than 1,627 cards, where the six-card sequences pass 2^64) -- every function here
falls back to :mod:`punto.analysis.enumeration`, which gives identical
integers.  Set ``PUNTO_PURE_PYTHON=1`` to force the fallback.

>>> from punto.analysis.composition import Composition
>>> counts = Composition.of_decks(8).counts
>>> class_counts(counts) == enumeration.class_counts(counts)
True
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Sequence
from types import ModuleType

from punto.analysis import enumeration
from punto.analysis.composition import falling
from punto.analysis.enumeration import draws_table

_compiled: ModuleType | None
try:
    from punto.analysis import _kernel as _compiled
except ImportError:  # pragma: no cover - the extension is optional
    _compiled = None

#: The largest shoe the compiled kernel takes.
MAX_COMPILED_CARDS = 1627


def compiled() -> ModuleType | None:
    """The C extension, unless it is missing or ``PUNTO_PURE_PYTHON`` is set."""
    if os.environ.get("PUNTO_PURE_PYTHON"):
        return None
    return _compiled


def _kernel_for(ranks: Sequence[int]) -> ModuleType | None:
    module = compiled()
    if module is None or sum(ranks) > MAX_COMPILED_CARDS:
        return None
    return module


def class_counts(ranks: Sequence[int]) -> list[int]:
    """Ordered six-card sequences of each of the 400 coup classes."""
    module = _kernel_for(ranks)
    if module is None:
        return enumeration.class_counts(ranks)
    result: list[int] = module.class_counts(tuple(ranks), draws_table())
    return result


def path_counts(ranks: Sequence[int]) -> list[int]:
    """Ordered six-card sequences along each of the 12100 paths."""
    module = _kernel_for(ranks)
    if module is None:
        return enumeration.path_counts(ranks)
    result: list[int] = module.path_counts(tuple(ranks), draws_table())
    return result


def pattern_table(categories: bytes) -> tuple[bytes, list[tuple[int, int, int, int]]]:
    """Pattern ids of the 13^4 rank tuples (uint16, native order) and representatives."""
    module = compiled()
    if module is None:
        table, reps = enumeration.pattern_table(categories)
        return array("H", table).tobytes(), reps
    result: tuple[bytes, list[tuple[int, int, int, int]]] = module.pattern_table(categories)
    return result


def pattern_counts(
    ranks: Sequence[int], table: bytes, npatterns: int, symmetric: bool
) -> list[int]:
    """Ordered six-card sequences by the pair pattern of the first four cards."""
    module = _kernel_for(ranks)
    if module is None:
        ids = memoryview(table).cast("H")
        return enumeration.pattern_counts(ranks, ids, npatterns, symmetric)
    result: list[int] = module.pattern_counts(tuple(ranks), table, npatterns, symmetric)
    return result


def evaluate(
    ranks: Sequence[int],
    plan: bytes,
    class_pairs: Sequence[tuple[int, int]],
    pattern_pairs: Sequence[tuple[int, int]],
    nslots: int,
    table: bytes | None,
    npatterns: int,
    symmetric: bool,
) -> tuple[int, ...]:
    """(total, then the count of each slot) for a plan; see :mod:`punto.analysis.plan`."""
    module = _kernel_for(ranks)
    if module is not None:
        result: tuple[int, ...] = module.evaluate(tuple(ranks), draws_table(), plan, table)
        return result
    slots = [0] * nslots
    if class_pairs:
        classes = enumeration.class_counts(ranks)
        for cls, slot in class_pairs:
            slots[slot] += classes[cls]
    if pattern_pairs:
        assert table is not None
        pats = pattern_counts(ranks, table, npatterns, symmetric)
        for pat, slot in pattern_pairs:
            slots[slot] += pats[pat]
    return (falling(sum(ranks), 6), *slots)
