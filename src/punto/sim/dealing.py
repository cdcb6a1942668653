"""Which kernel deals a run's shoes: C, numba or plain Python -- the same integers.

``punto.sim._kernel`` is a small C extension built when the package is
installed (``setup.py``), as the exact analysis's is.  It deals the very
shoes of :func:`punto.sim.kernel.simulate_shoes` (numba) and
:func:`punto.sim.plain.simulate_shoes` from the same random state, faster than
either and without numba's start-up (importing numba and loading the compiled
kernel from its cache: about 0.7 s before the first shoe).  When it is
missing -- no C compiler at install -- runs fall back silently to numba, and
small runs (up to :data:`punto.sim.run.PLAIN_COUPS` coups) to plain Python, for which numba's
start-up would cost more than the dealing.  ``PUNTO_PURE_PYTHON=1`` (as for
the exact analysis) leaves the C kernel out.

>>> dealing_kernel(small=True).__name__ in ("punto.sim._kernel", "punto.sim.plain")
True
"""

from __future__ import annotations

import os
from types import ModuleType


def compiled() -> ModuleType | None:
    """The C kernel, unless it is missing or ``PUNTO_PURE_PYTHON`` is set."""
    if os.environ.get("PUNTO_PURE_PYTHON"):
        return None
    try:
        from punto.sim import _kernel
    except ImportError:  # the extension is optional
        return None
    return _kernel


def dealing_kernel(*, small: bool) -> ModuleType:
    """The module whose ``simulate_shoes`` deals a run: the C kernel when
    present; otherwise plain Python for a ``small`` run, numba for the rest."""
    module = compiled()
    if module is not None:
        return module
    if small:
        from punto.sim import plain

        return plain
    from punto.sim import kernel

    return kernel
