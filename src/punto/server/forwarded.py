"""A forwarded request's answer as it travels back (:mod:`punto.server.cluster.forwarding`):
its channel, how it is packed, and which forwarded request the running task
answers -- so that a bet's answer can be announced by the very transaction
that commits the bet.

>>> packed = pack(201, [["content-type", "application/json"]], b'{"ok":true}')
>>> unpack(packed)
(201, [['content-type', 'application/json']], b'{"ok":true}')
>>> notice(7, packed) == "7 " + packed
True
>>> notice(7, "x" * 8000)
'7'
"""

from __future__ import annotations

import base64
import json
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from punto.server.notices import FRAME

__all__ = ["ANSWERING", "ANSWERS", "Answering", "notice", "pack", "unpack"]

#: The channel answers are announced on (see :mod:`punto.server.notices`).
ANSWERS = "punto_table_answers"


@dataclass
class Answering:
    """A forwarded request being answered here."""

    request_id: int
    #: set once its answer went out with the commit that made it (no second notice)
    announced: bool = False


#: The forwarded request the current task answers, set by the process that
#: runs the table while it answers one; None for a request of its own.
ANSWERING: ContextVar[Answering | None] = ContextVar("punto_answering", default=None)


def pack(status: int, headers: list[list[str]], body: bytes) -> str:
    """An answer (status, headers, body) as text, for a row or a notice."""
    return json.dumps(
        {"status": status, "headers": headers, "body": base64.b64encode(body).decode("ascii")}
    )


def unpack(answer: str) -> tuple[int, list[Any], bytes]:
    """A packed answer: status, headers, body."""
    data = json.loads(answer)
    return int(data["status"]), data["headers"], base64.b64decode(data["body"])


def notice(request_id: int, answer: str) -> str:
    """The notice announcing ``answer`` to request ``request_id``: the answer
    itself when it fits one, else only the id (the row is then read)."""
    whole = f"{request_id} {answer}"
    return whole if len(whole) <= FRAME else str(request_id)
