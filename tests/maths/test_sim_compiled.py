"""The C dealing kernel (punto.sim._kernel) leaves the numba kernel's
integers, refuses arrays it could overrun, and its absence falls back to
numba (or plain Python for a small run) silently with the same counts."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

import punto.sim
from punto.rules.games import get_game
from punto.sim import dealing, kernel, plain
from punto.sim.run import ShoeRules, SimJob, chunk_state, simulate, simulate_chunks
from punto.sim.tables import outcome_table, pattern_ids, rank_values, shoe_template, sim_tables
from tests.maths.test_sim_plain import GAMES, deal
from tests.maths.test_sim_plain import RULES as PLAIN_RULES

compiled = pytest.importorskip("punto.sim._kernel", reason="the C kernel is not built")

# The shoe rules of the plain kernel's test, and one more with a burn.
RULES = (*PLAIN_RULES, ShoeRules(3, 30, burn=True))


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.decks}d-{r.behind}-{r.burn}")
def test_compiled_kernel_deals_the_numba_kernel_shoes(game_id: str, rules: ShoeRules) -> None:
    """The same coups, batch rows, pair patterns and final random state (all
    eight words: the C kernel leaves the sampling stream's four alone, as
    numba's does), for shoe counts odd and even (shoes are shuffled one
    ahead of the one dealt)."""
    for seed, shoes in ((1, 1), (2026, 2), (7, 41)):
        here = deal(compiled, game_id, rules, seed, shoes)
        assert here[0] > 0
        assert here == deal(kernel, game_id, rules, seed, shoes)


def test_compiled_kernel_deals_whole_chunks_as_numba_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two chunks of ``punto simulate`` (12,775 shoes and the rest), through
    the run's own code, by each kernel."""
    job = SimJob("tiger-buffalo", None, "rank", ShoeRules(8, 14), seed=5, shoes=13_000)
    by: dict[str, Any] = {}
    for name, module in (("numba", kernel), ("C", compiled)):
        monkeypatch.setattr(dealing, "dealing_kernel", lambda *, small, m=module: m)
        by[name] = simulate_chunks(job, [0, 1])
    assert by["numba"].coups > 1_000_000
    assert by["C"].same_as(by["numba"])


def test_compiled_kernel_takes_the_rejection_path_as_numba() -> None:
    """Bounds close to 2^16, where Lemire's rejection runs on most draws."""
    template = (np.arange(60_000) % 13).astype(np.uint8)
    results = []
    for module in (compiled, kernel, plain):
        state = chunk_state(3, 0)
        counts = np.zeros((1, 400), dtype=np.int32)
        coups = module.simulate_shoes(
            state, template, 3, 59_000, False, 3, outcome_table(), rank_values(),
            pattern_ids()[0], False, counts,
        )  # fmt: skip
        results.append((int(coups), state.tolist(), counts.tolist()))
    assert results[0] == results[1] == results[2]


def test_compiled_kernel_deals_no_shoe_for_zero() -> None:
    assert deal(compiled, "dragon-tiger", ShoeRules(8, 14), 4, 0) == deal(
        kernel, "dragon-tiger", ShoeRules(8, 14), 4, 0
    )


def _arguments(**changes: Any) -> list[Any]:
    game = get_game("tiger-baccarat")
    tables = sim_tables(game, None, game.pair_rule)
    given = {
        "state": chunk_state(1, 0),
        "template": shoe_template(8),
        "nshoes": 10,
        "cut": 402,
        "burn": False,
        "batch": 5,
        "outcome": outcome_table(),
        "values": rank_values(),
        "pattern": pattern_ids()[0],
        "pairs": tables.pairs,
        "counts": np.zeros((2, tables.nkeys), dtype=np.int32),
    }
    given.update(changes)
    return list(given.values())


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"counts": np.zeros((1, 626), dtype=np.int32)}, "a row per batch"),
        ({"counts": np.zeros((2, 500), dtype=np.int32)}, "pattern id has no column"),
        ({"counts": np.zeros((2, 626), dtype=np.int64)}, "4-byte items"),
        ({"counts": np.zeros(1252, dtype=np.int32)}, "two dimensions"),
        ({"cut": 411}, "cut <= cards - 6"),
        ({"batch": 0}, "batch_shoes >= 1"),
        ({"template": np.full(416, 13, dtype=np.uint8)}, "ranks 0 to 12"),
        ({"outcome": np.full(10_000, 400, dtype=np.uint16)}, "class below 400"),
        ({"values": np.full(13, 10, dtype=np.uint8)}, "point values"),
        ({"state": np.zeros(3, dtype=np.uint64)}, "4 words"),
    ],
)
def test_compiled_kernel_refuses_arrays_it_would_overrun(
    changes: dict[str, Any], message: str
) -> None:
    """The loop indexes without checks, so every array is checked first:
    a wrong one is a ValueError, never a write out of bounds."""
    with pytest.raises(ValueError, match=message):
        compiled.simulate_shoes(*_arguments(**changes))


def test_compiled_kernel_refuses_a_read_only_state() -> None:
    state = chunk_state(1, 0)
    state.flags.writeable = False
    with pytest.raises((ValueError, BufferError, TypeError)):
        compiled.simulate_shoes(*_arguments(state=state))


def test_runs_use_the_compiled_kernel_when_it_is_there() -> None:
    assert dealing.compiled() is compiled
    assert dealing.dealing_kernel(small=True) is compiled
    assert dealing.dealing_kernel(small=False) is compiled


def test_without_the_compiled_kernel_runs_fall_back_silently(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As when it was never built: the import fails, small runs go to plain
    Python and the rest to numba, nothing is printed, and the counts are the
    compiled kernel's."""
    small = SimJob("tiger-baccarat", None, "literal", ShoeRules(8, 14), seed=21, shoes=60)
    big = SimJob("tiger-baccarat", None, "literal", ShoeRules(8, 14), seed=21, shoes=13_000)
    assert small.small
    assert not big.small
    with_c = simulate(small, workers=1).counts
    big_with_c = simulate_chunks(big, [0])
    monkeypatch.setitem(sys.modules, "punto.sim._kernel", None)  # import raises ImportError
    monkeypatch.delattr(punto.sim, "_kernel")
    assert dealing.compiled() is None
    assert dealing.dealing_kernel(small=True) is plain
    assert dealing.dealing_kernel(small=False) is kernel
    assert simulate(small, workers=1).counts.same_as(with_c)
    assert simulate_chunks(big, [0]).same_as(big_with_c)
    assert capsys.readouterr() == ("", "")


def test_pure_python_setting_leaves_the_compiled_kernel_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PUNTO_PURE_PYTHON", "1")
    assert dealing.compiled() is None
    assert dealing.dealing_kernel(small=False) is kernel
