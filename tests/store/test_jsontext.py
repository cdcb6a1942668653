"""JSON text by orjson is the text the standard library writes (punto.jsontext):
stored events, ledger rows, answers and their hashes do not change with the
library that wrote them."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import punto
from punto import jsontext

#: JSON values as punto writes them (no floats: money is never one)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def standard(value: Any, sort_keys: bool = False) -> str:
    return json.dumps(value, sort_keys=sort_keys, separators=(",", ":"), ensure_ascii=False)


@given(VALUES, st.booleans())
def test_the_text_is_the_standard_librarys(value: Any, sort_keys: bool) -> None:
    assert importlib.util.find_spec("orjson") is not None  # the store extra is installed here
    assert jsontext.dumps(value, sort_keys=sort_keys) == standard(value, sort_keys)
    assert jsontext.dumps_bytes(value, sort_keys=sort_keys) == standard(value, sort_keys).encode()
    assert jsontext.loads(jsontext.dumps(value)) == value


@given(VALUES)
def test_the_canonical_ascii_text_hashes_as_before(value: Any) -> None:
    assert jsontext.ascii_dumps(value) == json.dumps(value, sort_keys=True, separators=(",", ":"))


#: punto.jsontext with orjson unimportable (as in the core install): values in argv[1]
_WITHOUT_ORJSON = """
import json, sys

class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "orjson":
            raise ModuleNotFoundError(name=name)

sys.meta_path.insert(0, Blocker())
import punto
from punto import jsontext

assert "orjson" not in sys.modules
for value in json.loads(sys.argv[1]):
    for sort_keys in (False, True):
        text = json.dumps(value, sort_keys=sort_keys, separators=(",", ":"), ensure_ascii=False)
        assert jsontext.dumps(value, sort_keys=sort_keys) == text, value
        assert jsontext.dumps_bytes(value, sort_keys=sort_keys) == text.encode(), value
    assert jsontext.loads(jsontext.dumps(value)) == value
    assert jsontext.ascii_dumps(value) == json.dumps(value, sort_keys=True, separators=(",", ":"))
print("ok")
"""


def test_without_orjson_the_standard_library_writes_the_same() -> None:
    values = [{"b": [1, None, True], "a": "é\u2028\x00"}, [2**70, {"z": {}}], "x", None]
    source = str(Path(punto.__file__).resolve().parent.parent)
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_ORJSON, json.dumps(values)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": source},
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "ok\n", "")


def test_what_orjson_cannot_write_the_standard_library_does() -> None:
    big = {"amount": 2**70, "ids": {1: "a"}}
    assert jsontext.dumps(big) == json.dumps(big, separators=(",", ":"))
    assert jsontext.dumps_bytes([2**64]) == b"[18446744073709551616]"


def test_a_default_turns_the_ledgers_values_into_text() -> None:
    at = datetime(2026, 11, 28, 1, 2, 3, 4, tzinfo=UTC)

    def default(value: Any) -> str:
        if isinstance(value, datetime):
            return value.isoformat()
        if isinstance(value, Decimal):
            return str(value)
        raise TypeError(type(value).__name__)

    rows = [{"at": at, "at_whole_second": at.replace(microsecond=0), "held": Decimal("2.50")}]
    assert jsontext.dumps(rows, default=default) == json.dumps(
        rows, default=default, separators=(",", ":"), ensure_ascii=False
    )
    with pytest.raises(TypeError):
        jsontext.dumps([object()])


def test_text_that_is_not_json_is_a_value_error() -> None:
    with pytest.raises(jsontext.JSONDecodeError):
        jsontext.loads("{not json")
