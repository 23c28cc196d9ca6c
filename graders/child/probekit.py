"""Tools for writing probes (child side): the registry, parent-stamped timing marks, error records.

Nothing here knows an expected value: probes compute and return plain data,
and the parent judges it against the same probe run on the reference.
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any, Callable, Dict, Iterable, List, Optional

PROBES: Dict[str, Callable[[Optional[str]], Any]] = {}
#: the student's file in this run (set by the harness; None on the reference)
STUDENT_FILE: Optional[str] = None
#: the probe running now, the result channel and the parent's acknowledgement pipe (set by the harness)
CURRENT: Optional[str] = None
_CHANNEL = None
_ACK = None


#: taken when the harness imports this module, before any graded code runs: graded code that replaces
#: `sys._getframe` or `os.read` later changes nothing here (and replacing these names is caught by the
#: harness's seal on this module)
_getframe = sys._getframe
_read = os.read
#: Python's default recursion limit, at which the harness runs every probe (`sys.setrecursionlimit` is a
#: no-op for graded code): no code running under it can ever have more Python frames on its stack
DEFAULT_RECURSION_LIMIT = 1000


def connect(channel: Any, ack_fd: Optional[int]) -> None:
    global _CHANNEL, _ACK
    _CHANNEL, _ACK = channel, ack_fd


def mark(label: str) -> None:
    """Have the PARENT stamp this moment with its own clock (timing the student's code cannot fake).

    Waits for the parent's acknowledgement, so consecutive marks are stamped
    one at a time. Outside the harness (no channel) it does nothing.
    """
    if _CHANNEL is None or _ACK is None:
        return
    _CHANNEL.emit("mark", probe=CURRENT, label=label)
    _read(_ACK, 1)


def probe(probe_id: str) -> Callable:
    """Register `fn(inputs_dir)` as the probe `probe_id`."""

    def register(fn: Callable) -> Callable:
        if probe_id in PROBES:
            raise ValueError(f"duplicate probe id {probe_id}")
        PROBES[probe_id] = fn
        return fn

    return register


class WorkBudgetExceeded(BaseException):
    """Raised by instrumented nodes when a traversal does far more work than the graph has nodes.

    A BaseException, so a student's `except Exception` does not swallow it.
    """


def stack_beyond_limit() -> bool:
    """Whether the calling thread has more Python frames on its stack than the default recursion limit allows.

    The stack depth actually used, however the limit was moved (`sys.setrecursionlimit`, the C API through
    ctypes, the harness's own setter, a thread): a recursive traversal of a deep chain has one frame per
    node on the stack, an iterative one (a generator trampoline included) a constant number. One C-level
    walk of at most DEFAULT_RECURSION_LIMIT frames.
    """
    try:
        _getframe(DEFAULT_RECURSION_LIMIT + 1)
    except ValueError:
        return False
    return True


def floats(values: Iterable[Any]) -> List[Optional[float]]:
    """Float conversion of a list of derivatives (None stays None)."""
    return [None if v is None else float(v) for v in values]


def finite(x: float) -> Optional[float]:
    return x if math.isfinite(x) else None


#: base classes of an exception named in its record (a subclass is also its bases: judges may accept either)
MAX_ANCESTORS = 16


def error_record(exc: BaseException) -> Dict[str, Any]:
    """Plain description of an exception raised by student code: type, message, student line, and the names
    of its class's bases (`ancestors`, nearest first: a student's `MissingFeed(InvalidArgumentError)` is an
    InvalidArgumentError)."""
    import os
    import traceback

    line = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if STUDENT_FILE and os.path.abspath(frame.f_code.co_filename) == os.path.abspath(STUDENT_FILE):
            line = lineno
    try:
        message = str(exc)[:1000]
    except BaseException:
        message = "<unprintable message>"
    try:
        ancestors = [str(c.__name__) for c in type(exc).__mro__[1:MAX_ANCESTORS + 1]]
    except BaseException:
        ancestors = []
    return {"__error__": {"type": type(exc).__name__, "message": message, "line": line, "ancestors": ancestors}}


def capture(fn: Callable[[], Any]) -> Any:
    """fn()'s value, or an error record if it raises an Exception (BaseExceptions propagate)."""
    try:
        return fn()
    except WorkBudgetExceeded:
        raise
    except Exception as exc:
        return error_record(exc)
