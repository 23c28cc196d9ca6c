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
#: the probes that run in the trusted process (`probe(..., trusted=True)`): they call the student's functions in
#: the student's process, on objects that stay here (graders/child/remote.py)
TRUSTED: set = set()
#: the trusted process's handle on the student's process (set by the harness; None when everything runs in one
#: process: the reference's own runs)
STUDENT: Any = None
#: the student's file in this run (set by the harness; None on the reference)
STUDENT_FILE: Optional[str] = None
#: the probe running now and the way to the parent (set by the harness)
CURRENT: Optional[str] = None
_CHANNEL = None
#: the probes whose evidence the parent judges while they run (`checkpoint`), in a student's run (set by the
#: harness; empty on the reference's runs: they always run to the end)
CHECKPOINTS: frozenset = frozenset()


#: taken when the harness imports this module, before any graded code runs: graded code that replaces
#: `sys._getframe` or `os.read` later changes nothing here (and replacing these names is caught by the
#: harness's seal on this module)
_getframe = sys._getframe
#: Python's default recursion limit, at which the harness runs every probe (`sys.setrecursionlimit` is a
#: no-op for graded code): no code running under it can ever have more Python frames on its stack
DEFAULT_RECURSION_LIMIT = 1000


def connect(channel: Any) -> None:
    global _CHANNEL
    _CHANNEL = channel


def mark(label: str) -> None:
    """Have the PARENT stamp this moment with its own clock (timing the student's code cannot fake).

    Waits for the parent's acknowledgement, so consecutive marks are stamped
    one at a time. Outside the harness (no channel) it does nothing.
    """
    if _CHANNEL is not None:
        _CHANNEL.mark(CURRENT, label)


def checkpointed() -> bool:
    """Whether the parent answers `checkpoint` for the running probe (else the probe runs to its end)."""
    return _CHANNEL is not None and CURRENT in CHECKPOINTS


def checkpoint(evidence: Any) -> bool:
    """Ask the PARENT whether the running probe's evidence so far (plain data) is complete: True means it may stop
    here. The parent judges it with what never enters the child (the held-out labels) and says one bit, a bounded
    number of times per probe (graders.probe: MAX_CHECKPOINTS); past that, or when it does not answer for this
    probe, False. Waits for the answer."""
    channel = _CHANNEL
    if channel is None or CURRENT not in CHECKPOINTS:
        return False
    return bool(channel.ask(CURRENT, evidence))


def probe(probe_id: str, trusted: bool = False) -> Callable:
    """Register `fn(inputs_dir)` as the probe `probe_id`.

    A `trusted` probe runs in the trusted process: the student's functions it calls run in the student's
    process, on proxies of this process's objects, so what it counts on them (uses, orders, calls) is counted
    where graded code cannot write. Its helpers that must run beside graded code (a timed run on a graph too
    big to cross the pipe) go through `in_student_process`."""

    def register(fn: Callable) -> Callable:
        if probe_id in PROBES:
            raise ValueError(f"duplicate probe id {probe_id}")
        PROBES[probe_id] = fn
        if trusted:
            TRUSTED.add(probe_id)
        return fn

    return register


def expose(cls: type, surface: Iterable[str], **declared: Any) -> None:
    """What the student's process may use of `cls`'s objects when a trusted probe hands them over: see
    graders/child/remote.py (`expose`: surface, static, pure, writable, linear)."""
    import remote

    remote.expose(cls, surface, **declared)


def in_student_process(function: Callable, *args: Any) -> Any:
    """`function(*args)` (a function of the probes, plain data in and out) in the student's process: in this
    process when there is no other."""
    if STUDENT is None:
        return function(*args)
    return STUDENT.local(f"{function.__module__}.{function.__name__}", args)


def first_items(function: Callable, count: int, *args: Any) -> List[Any]:
    """The first `count` items of the iterable `function(*args)` returns (a generator that never ends stops
    there, in whichever process the function runs)."""
    import itertools

    first = getattr(function, "first", None)
    if first is not None:
        return first(count, *args)
    return list(itertools.islice(function(*args), count))


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


#: the depth watch of the probe running now: [watching, a use was seen beyond the limit]. Module state of the
#: grader's own tools, never an attribute of an object handed to graded code (the counters and watches on its
#: graphs only call `note_depth`)
_DEPTH = [False, False]


class watching_depth:
    """`with watching_depth() as depth:` ... `depth.beyond_limit`: whether an instrumented graph was used with
    more Python frames on the stack than the default recursion limit allows while the block ran."""

    def __enter__(self) -> watching_depth:
        _DEPTH[:] = [True, False]
        return self

    def __exit__(self, *exc: Any) -> None:
        self.beyond_limit = _DEPTH[1]
        _DEPTH[:] = [False, False]


def note_depth() -> None:
    """Called on every use of an instrumented graph: checks the stack while a `watching_depth` block runs."""
    if _DEPTH[0] and not _DEPTH[1]:
        _DEPTH[1] = stack_beyond_limit()


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
    import traceback

    remote = sys.modules.get("remote")
    if remote is not None and isinstance(exc, remote.RemoteException):
        return {"__error__": dict(exc.record)}
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
