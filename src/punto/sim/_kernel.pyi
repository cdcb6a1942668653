"""Type stubs for the compiled dealing kernel (see _kernel.c)."""

from typing import Any

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
    /,
) -> int: ...
