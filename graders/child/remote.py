"""The line between the trusted probe process and the student's process (both inside the sandbox).

The harness forks before the student's file is executed. The parent keeps everything worth forging:
the result channel and its nonce, the acknowledgement pipe of timing marks, the real recursion-limit
setter, and the *trusted* probes (``@probe(..., trusted=True)``) with the graphs they build and the
counters on them. The child (the student's process) loads the student's file and holds one pipe pair
to the parent, nothing else of the harness.

A trusted probe calls the student's functions (the problem's swap symbols) through `RemoteFunction`:
the call travels to the student's process, whose objects are *proxies* of the trusted process's
(`Proxy`): every use of one (`v.parents`, `v.chain_rule(d)`, `v.accumulate_derivative(x)`, ...) is a
request the trusted process answers from its own object, so what is counted there is counted where
graded code cannot write. Only what the probes declare of a class crosses the line (`expose`: the
course's Variable protocol, never a counter); attributes the student's code sets itself are kept on
the trusted object and read back. Values cross by value (numbers, strings, lists, tuples, dicts,
NumPy arrays), objects by reference.

Messages are JSON objects in frames (a marker, the length, a CRC-32): the trusted side bounds and
validates everything the student's process sends (it may be forged), skips bytes that are no frame
(graded code writing junk on every descriptor it has; `Pipe.skipped` counts them), and a student's
process that breaks the protocol or ends fails the probe that was running, never the trusted process.

What the student's process measures about itself (the depth of its stack while it used a trusted
object: `LAST_CALL`; its recursion limit) stays its own evidence: no process but itself can see its
Python stack (README "What the sandbox does not stop").
"""

from __future__ import annotations

import base64
import builtins
import itertools
import json
import math
import os
import struct
import sys
import threading
import zlib
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

#: a frame: this marker, the body's length and CRC-32, the body (JSON)
_MARKER = b"\xf3\x9aGr"
_HEADER = struct.Struct(">4sII")
#: the largest message either side accepts (the parent's result lines are capped the same)
MAX_MESSAGE = 4 * 1024 * 1024
#: bytes that are no frame the trusted side skips (junk graded code writes on every descriptor it has) before
#: it counts the student's process as breaking the protocol: skipping gigabytes would take the probes' time
MAX_SKIPPED = 64 * 1024 * 1024
#: nesting of values beyond which a value is not sent (a hostile value cannot exhaust either side's stack)
MAX_DEPTH = 50
#: items of an iterable the student's function returns that are sent back (a generator may never end)
MAX_ITEMS = 250_000


#: Python's default recursion limit (the student's process has no setter: its limit stays this one), and the
#: stack depth at which a use of a trusted object counts as deep: only a traversal recursing once per node of a
#: deep chain comes near the limit (an iterative one stays a few dozen frames deep, a recursive one on the
#: probes' other graphs a few hundred at most)
DEFAULT_RECURSION_LIMIT = 1000
DEEP_FRAMES = 900
#: the student's process's evidence about the trusted process's last call of a student's function: whether a
#: trusted object was used with DEEP_FRAMES or more Python frames on the stack (a recursion that met the
#: default limit, or went past it because the limit was moved)
LAST_CALL = {"deep": False}
_getframe = sys._getframe
#: uses of proxies since the stack was last looked at: every 16th use looks (a traversal that comes near the
#: limit makes hundreds of uses there)
_USES = [0]


def _look_at_depth() -> None:
    """Whether the stack is DEEP_FRAMES deep now (Proxy.__getattr__ looks at every 16th use of a proxy)."""
    try:
        _getframe(DEEP_FRAMES)
    except ValueError:
        return
    LAST_CALL["deep"] = True


class ProtocolError(Exception):
    """The other side sent something the protocol never sends (from the student's process: it may be forged)."""


class StudentGone(Exception):
    """The student's process ended (its end of the pipe closed) while the trusted process waited for it."""


class GraderAbort(BaseException):
    """Raised in the student's code when the trusted process stops a call (a work budget was exceeded).

    A BaseException, so a student's `except Exception` does not swallow it; code that swallows it anyway
    gets the same answer to every further request until its call returns."""


class Pipe:
    """One end of the framed-JSON pipe pair."""

    def __init__(self, read_fd: int, write_fd: int, trusted_peer: bool = False):
        self.read_fd, self.write_fd = read_fd, write_fd
        self._buffer = bytearray()
        #: bytes read that were no frame (junk graded code wrote on the descriptor)
        self.skipped = 0
        #: the student's process's end reads only the trusted process's messages: a RecursionError there is the
        #: student's own recursion reaching its limit (it is raised as such)
        self.trusted_peer = trusted_peer
        self._writing = threading.Lock()

    def send(self, message: Dict[str, Any]) -> None:
        data = json.dumps(message, separators=(",", ":"), allow_nan=False).encode()
        view = memoryview(_HEADER.pack(_MARKER, len(data), zlib.crc32(data)) + data)
        with self._writing:  # a frame is written whole, whichever thread sends another
            while view:
                view = view[os.write(self.write_fd, view):]

    def receive(self) -> Optional[Dict[str, Any]]:
        """The next frame's message, None at end of file; bytes before it that are no frame are skipped (and
        counted); ProtocolError for a frame whose body is not a bounded JSON object."""
        body = self._frame()
        if body is None:
            return None
        try:
            message = json.loads(body)
        except RecursionError as exc:
            if self.trusted_peer:
                raise
            raise ProtocolError("a message nested too deeply") from exc
        except ValueError as exc:
            raise ProtocolError("a message that is not JSON") from exc
        if not isinstance(message, dict):
            raise ProtocolError("a message that is not a JSON object")
        return message

    def _frame(self) -> Optional[bytes]:
        buffer = self._buffer
        while True:
            if not self._fill(_HEADER.size):
                return None
            start = buffer.find(_MARKER)
            if start != 0:
                cut = start if start > 0 else len(buffer) - len(_MARKER) + 1
                self._skip(cut)
                continue
            _, size, crc = _HEADER.unpack_from(buffer)
            if size > MAX_MESSAGE:
                self._skip(1)
                continue
            if not self._fill(_HEADER.size + size):
                return None
            body = bytes(buffer[_HEADER.size:_HEADER.size + size])
            if zlib.crc32(body) != crc:
                self._skip(1)
                self._charge(size)  # its body was read and checked: junk made of headers costs what it claims
                continue
            del buffer[:_HEADER.size + size]
            return body

    def _skip(self, count: int) -> None:
        del self._buffer[:count]
        self._charge(count)

    def _charge(self, count: int) -> None:
        """Count `count` bytes of junk; past MAX_SKIPPED from the student's process, it broke the protocol."""
        self.skipped += count
        if self.skipped > MAX_SKIPPED and not self.trusted_peer:
            raise ProtocolError(f"more than {MAX_SKIPPED >> 20} MiB written on the grader's pipe that are no "
                                "message of the harness")

    def _fill(self, size: int) -> bool:
        """At least `size` bytes in the buffer (one read usually brings a whole frame): False at end of file."""
        while len(self._buffer) < size:
            chunk = os.read(self.read_fd, 1 << 16)
            if not chunk:
                return False
            self._buffer += chunk
        return True


# ----------------------------------------------------------------------------- values both sides send


#: numbers that are JSON numbers as they are (when finite: `v - v == 0`)
_EXACT_NUMBERS = (int, float, bool)


def _number(value: Any) -> Any:
    """A number of any numeric type as a JSON number (NaN and infinities as {"f": repr}), else NotImplemented."""
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        value = float(value)
        return value if math.isfinite(value) else {"f": repr(value)}
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, numpy.generic):
        return _number(value.item())
    return NotImplemented


def _plain_value(value: Any, depth: int, reference: Callable[[Any], Any]) -> Any:
    """`value` as JSON: numbers, strings, lists, tuples ({"t"}), dicts ({"d": [[key, value], ...]}), NumPy arrays
    (their bytes: {"b", "dt", "sh"}); anything else as `reference(value)`."""
    if depth > MAX_DEPTH:
        raise ProtocolError("a value nested too deeply to send")
    t = type(value)
    if value is None or t is str or t is int or t is bool:  # the commonest first, by their exact types
        return value
    if t is float:
        return value if value - value == 0 else {"f": repr(value)}
    if t is list:  # a graph's weights: plain finite numbers kept as they are, without a call each
        return [v if type(v) in _EXACT_NUMBERS and v - v == 0 else _plain_value(v, depth + 1, reference)
                for v in value]
    if t is tuple:
        return {"t": [_plain_value(v, depth + 1, reference) for v in value]}
    if t is dict:
        return {"d": [[_plain_value(k, depth + 1, reference), _plain_value(v, depth + 1, reference)]
                      for k, v in value.items()]}
    number = _number(value)  # subclasses of the numbers, NumPy's scalars
    if number is not NotImplemented:
        return number
    numpy = sys.modules.get("numpy")
    if numpy is not None and t is numpy.ndarray and value.dtype.kind in "biuf":
        # its bytes, not its numbers: exact, NaN and infinities included, and no JSON number per element
        return {"b": base64.b64encode(numpy.ascontiguousarray(value).tobytes()).decode("ascii"),
                "dt": value.dtype.str, "sh": list(value.shape)}
    return reference(value)


#: the JSON values that are themselves
_PLAIN = (bool, int, float, str)
#: the values `_plain_value` sends as they are, whatever their value (a float may be NaN: not one of them)
_SELF_SENT = frozenset((type(None), bool, int, str))


def _load_value(data: Any, depth: int, resolve: Callable[[Dict[str, Any]], Any]) -> Any:
    """The value `_plain_value` sent; a {"r": ...} (or other marker) is `resolve`d."""
    if depth > MAX_DEPTH:
        raise ProtocolError("a value nested too deeply")
    if data is None or type(data) in _PLAIN:
        return data
    if type(data) is list:  # a graph's parents and weights: their items read here, not by a call each
        return [v if v is None or type(v) in _PLAIN else resolve(v) if type(v) is dict and "r" in v and len(v) == 1
                else _load_value(v, depth + 1, resolve) for v in data]
    if type(data) is not dict:
        raise ProtocolError("an unknown value")
    if "r" in data and len(data) == 1:  # the commonest marker (a graph's parents): straight to `resolve`
        return resolve(data)
    if "t" in data and isinstance(data["t"], list):
        return tuple(_load_value(v, depth + 1, resolve) for v in data["t"])
    if "d" in data and isinstance(data["d"], list):
        out = {}
        for pair in data["d"]:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise ProtocolError("a malformed dict")
            key = _load_value(pair[0], depth + 1, resolve)
            try:
                out[key] = _load_value(pair[1], depth + 1, resolve)
            except TypeError as exc:  # an unhashable key
                raise ProtocolError("a dict with an unhashable key") from exc
        return out
    if "f" in data and data["f"] in ("nan", "inf", "-inf"):
        return float(data["f"])
    if "b" in data and isinstance(data.get("dt"), str) and isinstance(data.get("sh"), list):
        return _array(data["b"], data["dt"], data["sh"])
    return resolve(data)


def _array(encoded: Any, dtype: str, shape: List[Any]) -> Any:
    """The NumPy array `_plain_value` sent as its bytes (a copy the receiver owns)."""
    import numpy

    try:
        kind = numpy.dtype(dtype)
        raw = base64.b64decode(str(encoded), validate=True)
        if kind.kind not in "biuf" or not all(isinstance(n, int) and n >= 0 for n in shape) or \
                len(raw) != kind.itemsize * math.prod(shape):
            raise ValueError("an array whose bytes do not fit its type and shape")
        return numpy.frombuffer(raw, dtype=kind).reshape(shape).copy()
    except (TypeError, ValueError) as exc:
        raise ProtocolError("a malformed array") from exc


def describe_exception(exc: BaseException) -> Dict[str, Any]:
    """Type, message and the names of its class's bases (nearest first), as plain data."""
    try:
        message = str(exc)[:2000]
    except BaseException:
        message = "<unprintable message>"
    try:
        ancestors = [str(c.__name__) for c in type(exc).__mro__[1:17]]
    except BaseException:
        ancestors = []
    return {"type": type(exc).__name__, "message": message, "ancestors": ancestors}


def _builtin_exception(names: Iterable[Any]) -> type:
    """The first of `names` that is a built-in exception class (Exception when none is)."""
    for name in names:
        found = getattr(builtins, name, None) if isinstance(name, str) else None
        if isinstance(found, type) and issubclass(found, BaseException):
            return found
    return Exception


# ----------------------------------------------------------------------------- the trusted side


class RemoteException:
    """Mixed into the exceptions the trusted side raises for an exception of the student's code: `record`
    (type, message, student line, ancestors) is the student's process's description of it."""

    record: Dict[str, Any]


_REMOTE_CLASSES: Dict[tuple, type] = {}


def remote_exception(record: Dict[str, Any]) -> BaseException:
    """An exception standing for the student's: an instance of the built-in class it is (an AssertionError of
    the student's code is caught by `except AssertionError`), named as the student's, carrying its record."""
    name = str(record.get("type") or "Error")[:200]
    ancestors = [a for a in record.get("ancestors") or [] if isinstance(a, str)][:16]
    base = _builtin_exception([name] + ancestors)
    key = (name, base)
    if key not in _REMOTE_CLASSES:
        _REMOTE_CLASSES[key] = type(name, (base, RemoteException), {})
    exc = _REMOTE_CLASSES[key](str(record.get("message") or "")[:2000])
    exc.record = {"type": name, "message": str(record.get("message") or "")[:2000],
                  "line": record.get("line") if isinstance(record.get("line"), int) else None,
                  "ancestors": ancestors}
    return exc


class Opaque:
    """What the trusted side holds for a value of the student's process that cannot cross by value."""

    def __init__(self, type_name: str):
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"<{self.type_name} of the student's process>"


@dataclass(frozen=True)
class Exposure:
    """What of a class's objects the student's process may use (`expose`)."""

    #: attribute and method names it may get, call or (see `writable`) set
    surface: frozenset
    #: attributes whose values never change: sent with the object, read there without a request
    static: Tuple[str, ...] = ()
    #: methods without arguments whose results never change: sent with the object, answered there
    pure: Tuple[str, ...] = ()
    #: surface attributes it may set (attributes the class does not have it may always set, and read back)
    writable: Tuple[str, ...] = ()
    #: (method, parents attribute, weights attribute): the method is d -> [(parent_i, d * weight_i)], computed
    #: there from the static parents and weights (a chain of thousands of nodes without a request per node)
    linear: Optional[Tuple[str, str, str]] = None
    #: attributes whose values never change, fetched on first use (one request) and kept there: what is too
    #: costly to send with every object but is read many times by code that reads it at all (a node's history)
    kept: Tuple[str, ...] = ()


_EXPOSED: Dict[type, Exposure] = {}


def expose(cls: type, surface: Iterable[str], static: Iterable[str] = (), pure: Iterable[str] = (),
           writable: Iterable[str] = (), linear: Optional[Tuple[str, str, str]] = None,
           kept: Iterable[str] = ()) -> None:
    """Declare what the student's process may use of `cls`'s objects (and subclasses'); for a class handed over
    itself (a Function class in a history), its own surface. Anything not declared is absent there. A name listed
    twice counts once (an object's values cross in one column per name)."""
    _EXPOSED[cls] = Exposure(frozenset(surface), tuple(dict.fromkeys(static)), tuple(dict.fromkeys(pure)),
                             tuple(writable), linear, tuple(kept))


_NOTHING = Exposure(frozenset())


def exposure(obj: Any) -> Exposure:
    """The declared exposure of `obj` (of a class: its own; of an instance: its class's, along the MRO)."""
    if isinstance(obj, type) and obj in _EXPOSED:
        return _EXPOSED[obj]
    for klass in type(obj).__mro__:
        if klass in _EXPOSED:
            return _EXPOSED[klass]
    return _NOTHING


def _methods(cls: type) -> List[str]:
    """The surface names that are methods on instances of `cls` (called in one request, never fetched)."""
    import types

    found = []
    for name in exposure_of_class(cls).surface:
        for klass in cls.__mro__:
            if name in vars(klass):
                if isinstance(vars(klass)[name], (types.FunctionType, staticmethod, classmethod)):
                    found.append(name)
                break
    return sorted(found)


def exposure_of_class(cls: type) -> Exposure:
    for klass in cls.__mro__:
        if klass in _EXPOSED:
            return _EXPOSED[klass]
    return _NOTHING


class StudentProcess:
    """The trusted side's handle on the student's process: calls into it and answers its requests.

    `relay(message)` receives the events (policy uses, ...) the student's process sends at any time.
    Objects handed to the student's process are kept (by reference number) until `reset()`, at the end
    of every probe; a message that hands over new ones describes them all in its "new" list (flat: a chain
    of thousands of nodes whose parents are sent with them nests nothing; one entry per class, in columns).
    """

    def __init__(self, pipe: Pipe, pid: int, relay: Callable[[Dict[str, Any]], None]):
        self.pipe, self.pid, self.relay = pipe, pid, relay
        self.objects: Dict[int, Any] = {}
        self.numbers: Dict[int, int] = {}
        self.classes: Dict[type, int] = {}
        self.written: Dict[int, set] = {}
        self._pending: List[Any] = []
        #: the parent's answer to a checkpoint of the untrusted probe running there (probekit.checkpoint; set by the
        #: harness): whether the probe may stop
        self.checkpoint: Callable[[Any], bool] = lambda evidence: False
        #: the protocol break met in an exchange with the student's process, if any: a trusted probe that catches
        #: everything its calls raise still does not go on talking over a pipe that is out of step
        self.broken: Optional[ProtocolError] = None

    # -- values

    def message(self, **fields: Any) -> Dict[str, Any]:
        """A message whose values (`fields`) are exported, with the descriptions of the objects they hand over."""
        out = {key: (self.export(value) if key in ("v", "args", "kwargs") else value)
               for key, value in fields.items()}
        new = self._describe_pending()
        if new:
            out["new"] = new
        return out

    def export(self, value: Any) -> Any:
        return _plain_value(value, 0, self._reference)

    def _reference(self, obj: Any) -> Dict[str, Any]:
        if isinstance(obj, Opaque):
            raise TypeError(f"{obj!r} cannot be handed back to the student's process")
        number = self.numbers.get(id(obj))
        if number is None or self.objects.get(number) is not obj:
            number = len(self.objects) + 1
            self.objects[number] = obj
            self.numbers[id(obj)] = number
            self._pending.append(obj)
        return {"r": number}

    def _describe_pending(self) -> List[Dict[str, Any]]:
        """Descriptions of the objects handed over since the last message (their static values may hand over
        more: a worklist, never a recursion). The instances of one class are described together, in columns: one
        entry with their numbers (`"r": [...]`) and, per static value and pure method, the list of theirs in the
        same order (a chain of 10,000 nodes is one entry, not 10,000 objects of JSON). An entry names its class by
        number; the first entry of a class also carries what is the same for all of its objects (name, methods,
        callable, linear method). A class handed over itself is an entry of its own (`"r"` one number). Classes
        first described here are taken as described only once every entry is made: a description that fails
        drops the whole message, the entries that named their classes with it, and the numbers of the objects it
        handed over (the next message that hands one of them over describes it)."""
        described: List[Dict[str, Any]] = []
        batches: Dict[type, Tuple[Dict[str, Any], Exposure]] = {}
        fresh: Dict[type, int] = {}
        handed: List[Any] = []  # taken off the worklist; with those left on it, what this message numbered
        try:
            self._describe(described, batches, fresh, handed)
        except BaseException:
            for obj in handed + self._pending:
                self.objects.pop(self.numbers.pop(id(obj), -1), None)
            self._pending.clear()
            raise
        self.classes.update(fresh)
        return described

    def _describe(self, described: List[Dict[str, Any]], batches: Dict[type, Tuple[Dict[str, Any], Exposure]],
                  fresh: Dict[type, int], handed: List[Any]) -> None:
        """`_describe_pending`'s worklist: each pending object into its entry (`handed`: the objects taken)."""
        while self._pending:
            obj = self._pending.pop()
            handed.append(obj)
            number = self.numbers[id(obj)]
            if isinstance(obj, type):
                described.append({"r": number, "n": getattr(obj, "__name__", "object"), "call": callable(obj)})
                continue
            found = batches.get(type(obj))
            if found is None:
                found = batches[type(obj)] = self._batch(obj, fresh)
                described.append(found[0])
            batch, shown = found
            batch["r"].append(number)
            for name in shown.static:
                value = getattr(obj, name)
                batch["s"][name].append(value if type(value) in _SELF_SENT else self.export(value))
            for name in shown.pure:
                value = getattr(obj, name)()
                batch["p"][name].append(value if type(value) in _SELF_SENT else self.export(value))

    def _batch(self, first: Any, fresh: Dict[type, int]) -> Tuple[Dict[str, Any], Exposure]:
        """The entry, still empty, of the instances of `first`'s class in one message (with the class's own
        description the first time it is handed over), and their exposure."""
        kind, shown = type(first), exposure(first)
        entry: Dict[str, Any] = {"r": [], "c": self.classes.get(kind)}  # one entry per class and message
        if entry["c"] is None:  # the class's first objects
            fresh[kind] = len(self.classes) + len(fresh) + 1
            entry.update(c=fresh[kind], n=getattr(kind, "__name__", "object"), call=callable(first), k=_methods(kind))
            if shown.linear is not None:
                entry["lin"] = list(shown.linear)
            if shown.kept:
                entry["kp"] = list(shown.kept)
        if shown.static:
            entry["s"] = {name: [] for name in shown.static}
        if shown.pure:
            entry["p"] = {name: [] for name in shown.pure}
        return entry, shown

    def load(self, data: Any) -> Any:
        return _load_value(data, 0, self._resolve)

    def _resolve(self, data: Dict[str, Any]) -> Any:
        if "r" in data:
            obj = self.objects.get(data["r"]) if isinstance(data["r"], int) else None
            if obj is None:
                raise ProtocolError("a reference to an object the trusted process never handed out")
            return obj
        if "o" in data:
            return Opaque(str(data["o"])[:100])
        raise ProtocolError("an unknown value")

    # -- calls into the student's process

    def call(self, symbol: str, args: tuple, kwargs: Dict[str, Any], max_items: int = MAX_ITEMS) -> Any:
        """`symbol(*args, **kwargs)` in the student's process (its swapped-in function)."""
        return self._exchange(lambda: self._call(self.message(op="call", symbol=symbol, max_items=int(max_items),
                                                              args=list(args), kwargs=dict(kwargs))))

    def _exchange(self, exchange: Callable[[], Any]) -> Any:
        """`exchange()`, a protocol break it meets remembered (`broken`)."""
        try:
            return exchange()
        except ProtocolError as exc:
            self.broken = self.broken or exc
            raise

    def local(self, function: str, args: tuple) -> Any:
        """A probe helper (`module.function` of the probes) run in the student's process, with plain arguments."""
        return self._exchange(lambda: self._call(self.message(op="local", function=function, args=list(args),
                                                              kwargs={}, max_items=MAX_ITEMS)))

    def run_probe(self, probe_id: str) -> Dict[str, Any]:
        """Run an untrusted probe in the student's process: its result message (checked by the caller)."""
        self.pipe.send({"op": "probe", "id": probe_id})
        while True:
            message = self._next()
            if message.get("op") == "result":
                return message
            if message.get("op") == "checkpoint":
                self.pipe.send({"v": bool(self.checkpoint(message.get("evidence")))})
                continue
            self._answer(message, None)

    def reset(self) -> None:
        """Forget every object handed out (the end of a probe): the student's process drops its proxies."""
        self.objects.clear()
        self.numbers.clear()
        self.classes.clear()
        self.written.clear()
        self._pending.clear()
        self.pipe.send({"op": "reset"})

    def _next(self) -> Dict[str, Any]:
        message = self.pipe.receive()
        if message is None:
            raise StudentGone("the student's process ended")
        while message.get("op") == "event":
            self.relay(message)
            message = self.pipe.receive()
            if message is None:
                raise StudentGone("the student's process ended")
        return message

    def _call(self, request: Dict[str, Any]) -> Any:
        self.pipe.send(request)
        aborted: Optional[BaseException] = None
        while True:
            message = self._next()
            op = message.get("op")
            if op in ("return", "raise"):
                if aborted is not None:
                    raise aborted
                if op == "return":
                    return self.load(message.get("v"))
                record = message.get("error")
                raise remote_exception(record if isinstance(record, dict) else {})
            aborted = self._answer(message, aborted)

    def _answer(self, message: Dict[str, Any], aborted: Optional[BaseException]) -> Optional[BaseException]:
        """Answer one request of the student's process; returns the exception that stopped the call (if any)."""
        if aborted is not None:
            self.pipe.send({"abort": str(aborted)})
            return aborted
        try:
            value = self._perform(message)
        except ProtocolError:
            raise
        except Exception as exc:  # the trusted object's own answer: AttributeError, AssertionError, TypeError, ...
            self.pipe.send({"raise": describe_exception(exc)})
            return None
        except BaseException as exc:  # a work budget exceeded (or another probe-level stop): stop the call
            self.pipe.send({"abort": str(exc)})
            return exc
        try:
            self.pipe.send(value)
        except (TypeError, ValueError) as exc:  # an answer that cannot be sent is an error, never a silence
            self.pipe.send({"raise": describe_exception(exc)})
        return None

    def _perform(self, message: Dict[str, Any]) -> Dict[str, Any]:
        op, name = message.get("op"), message.get("name")
        obj = self._resolve({"r": message.get("ref")})
        if op == "repr":
            return {"v": repr(obj)[:1000] if name == "repr" else str(obj)[:1000]}
        if op == "invoke":
            target = obj if name is None else self._attribute(obj, name)
            args = self.load(message.get("args"))
            kwargs = self.load(message.get("kwargs"))
            if not isinstance(args, list) or not isinstance(kwargs, dict) or \
                    not all(isinstance(k, str) for k in kwargs):
                raise ProtocolError("malformed call arguments")
            if name is None and not callable(target):
                raise TypeError(f"'{type(target).__name__}' object is not callable")
            return self.message(v=target(*args, **kwargs))
        if not isinstance(name, str) or len(name) > 200:
            raise ProtocolError("a malformed attribute name")
        if op == "get":
            value = self._attribute(obj, name)
            if callable(value) and getattr(value, "__self__", None) is obj and name in exposure(obj).surface:
                return {"m": name}
            return self.message(v=value)
        if op == "set":
            shown = exposure(obj)
            if name not in shown.writable and (name in shown.surface or hasattr(obj, name)) and \
                    name not in self.written.get(id(obj), ()):
                raise AttributeError(f"cannot set attribute '{name}' of '{type(obj).__name__}' object")
            setattr(obj, name, self.load(message.get("v")))
            if name not in shown.writable:
                self.written.setdefault(id(obj), set()).add(name)
            return {"v": None}
        if op == "del":
            if name not in self.written.get(id(obj), ()):
                raise AttributeError(name)
            delattr(obj, name)
            self.written[id(obj)].discard(name)
            return {"v": None}
        raise ProtocolError(f"an unknown request {str(op)[:40]!r}")

    def _attribute(self, obj: Any, name: str) -> Any:
        shown = exposure(obj)
        if name not in shown.surface and name not in self.written.get(id(obj), ()) and name not in shown.writable:
            raise AttributeError(f"'{getattr(obj, '__name__', type(obj).__name__)}' object has no attribute '{name}'")
        return getattr(obj, name)


class RemoteFunction:
    """A swap symbol in the trusted process: calling it calls the student's function in the student's process."""

    def __init__(self, student: StudentProcess, symbol: str):
        self.student, self.symbol = student, symbol
        self.__name__ = symbol.rpartition(".")[2]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.student.call(self.symbol, args, kwargs)

    def first(self, count: int, *args: Any) -> List[Any]:
        """The first `count` items of the iterable the function returns (a generator stops there)."""
        return list(self.student.call(self.symbol, args, {}, max_items=count))[:count]


# ----------------------------------------------------------------------------- the student's side


class Proxy:
    """An object of the trusted process, as the student's code sees it (one proxy per object)."""

    __slots__ = ("_remote", "_number", "_static", "_methods", "_kept", "__weakref__")

    def __getattr__(self, name: str) -> Any:
        _USES[0] += 1  # _note_depth, inlined: the student's code reads an attribute per step of its traversal
        if not (_USES[0] & 15 or LAST_CALL["deep"]):
            _look_at_depth()
        static = object.__getattribute__(self, "_static")
        if name in static:  # static values, and the pure and linear methods answered here
            return static[name]
        if name in object.__getattribute__(self, "_methods"):
            return RemoteMethod(self, name)
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        value = object.__getattribute__(self, "_remote").request({"op": "get", "name": name}, self)
        if name in object.__getattribute__(self, "_kept"):
            static[name] = value
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        remote = object.__getattribute__(self, "_remote")
        remote.request({"op": "set", "name": name, "v": remote.value(value)}, self)
        object.__getattribute__(self, "_static").pop(name, None)

    def __delattr__(self, name: str) -> None:
        object.__getattribute__(self, "_remote").request({"op": "del", "name": name}, self)

    def __repr__(self) -> str:
        return object.__getattribute__(self, "_remote").request({"op": "repr", "name": "repr"}, self)

    def __str__(self) -> str:
        return object.__getattribute__(self, "_remote").request({"op": "repr", "name": "str"}, self)


class CallableProxy(Proxy):
    """A proxy of a callable object of the trusted process (a function, a class)."""

    __slots__ = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        remote = object.__getattribute__(self, "_remote")
        return remote.request({"op": "invoke", "name": None, "args": remote.value(list(args)),
                               "kwargs": remote.value(kwargs)}, self)


class RemoteMethod:
    """A bound method of a trusted object: calling it is one request."""

    __slots__ = ("__self__", "__name__")

    def __init__(self, owner: Proxy, name: str):
        self.__self__, self.__name__ = owner, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        remote = object.__getattribute__(self.__self__, "_remote")
        return remote.request({"op": "invoke", "name": self.__name__, "args": remote.value(list(args)),
                               "kwargs": remote.value(kwargs)}, self.__self__)

    def __repr__(self) -> str:
        return f"<bound method {self.__name__}>"


@dataclass(frozen=True)
class _ProxyClass:
    """What every proxy of one trusted class shares (the student's process's side)."""

    proxy: type
    methods: frozenset
    #: (method, parents attribute, weights attribute) of a linear method (`Exposure.linear`), else None
    linear: Optional[Tuple[str, str, str]]
    #: attributes kept once fetched (`Exposure.kept`)
    kept: frozenset = frozenset()


class TrustedObjects:
    """The student's process's end: proxies for the trusted process's objects, requests about them, and the
    trusted process's calls (`serve_call`) of the student's functions (the swap symbols of `reference`, the
    module they were installed in) and of probe helpers (functions of the `probes` modules, by name);
    `describe` turns an exception of the student's code into its record."""

    def __init__(self, pipe: Pipe, reference: Any = None, probes: Optional[Dict[str, Any]] = None,
                 describe: Callable[[BaseException], Dict[str, Any]] = describe_exception):
        self.pipe = pipe
        self.reference, self.probes, self.describe = reference, probes or {}, describe
        self.proxies: Dict[int, Proxy] = {}
        #: held for a whole request and its reply, and by the serving loop while it waits for a message
        self.lock = threading.RLock()
        self.kinds: Dict[tuple, type] = {}
        self.classes: Dict[Any, _ProxyClass] = {}

    # -- values

    def value(self, value: Any) -> Any:
        return _plain_value(value, 0, self._reference)

    def _reference(self, obj: Any) -> Dict[str, Any]:
        if isinstance(obj, Proxy):
            return {"r": object.__getattribute__(obj, "_number")}
        return {"o": type(obj).__name__}

    def load(self, data: Any) -> Any:
        return _load_value(data, 0, self._proxy)

    def _proxy(self, data: Dict[str, Any]) -> Any:
        number = data.get("r")
        proxy = self.proxies.get(number) if isinstance(number, int) else None
        if proxy is None:
            raise ProtocolError("a reference to an object never described")
        return proxy

    def introduce(self, message: Dict[str, Any]) -> None:
        """Make the proxies a message's "new" list describes (all first: their static values refer to each other).
        An entry describes one object (`"r"` its number: a class handed over) or the objects of one class in
        columns (`"r"` their numbers, each static value and pure method's result a list in that order)."""
        new = message.get("new")
        if not isinstance(new, list):
            return
        made = []
        for entry in new:
            numbers = entry.get("r")
            kind = self._class_of(entry)
            proxies = []
            for number in numbers if type(numbers) is list else [numbers]:
                proxy: Proxy = object.__new__(kind.proxy)
                object.__setattr__(proxy, "_remote", self)
                object.__setattr__(proxy, "_number", number)
                object.__setattr__(proxy, "_methods", kind.methods)
                object.__setattr__(proxy, "_kept", kind.kept)
                self.proxies[number] = proxy
                proxies.append(proxy)
            made.append((entry, kind.linear, proxies))
        load = self.load
        for entry, linear, proxies in made:
            statics: List[Dict[str, Any]] = [{} for _ in proxies]
            for name, column in (entry.get("s") or {}).items():
                for static, v in zip(statics, column):
                    static[name] = v if v is None or type(v) in _PLAIN else load(v)
            for name, column in (entry.get("p") or {}).items():
                for static, v in zip(statics, column):
                    static[name] = _CONSTANTS[v] if type(v) is bool else _constant(load(v))
            for proxy, static in zip(proxies, statics):
                if linear is not None:
                    parents, weights = static.get(linear[1]), static.get(linear[2])
                    static[linear[0]] = _linear([] if parents is None else parents, [] if weights is None else weights)
                object.__setattr__(proxy, "_static", static)

    def _class_of(self, entry: Dict[str, Any]) -> _ProxyClass:
        """What the proxies of an entry's class share: described in the class's first entry, named by number in
        the others (an entry without a class number, a class handed over itself, describes its own)."""
        known = self.classes.get(entry.get("c"))
        if known is not None:
            return known
        name, call = str(entry.get("n") or "object"), bool(entry.get("call"))
        if (name, call) not in self.kinds:
            self.kinds[(name, call)] = type(name, (CallableProxy if call else Proxy,), {"__slots__": ()})
        methods = frozenset(n for n in entry.get("k") or () if isinstance(n, str))
        linear = entry.get("lin")
        shared = _ProxyClass(self.kinds[(name, call)], methods,
                             (str(linear[0]), str(linear[1]), str(linear[2]))
                             if isinstance(linear, list) and len(linear) == 3 else None,
                             frozenset(n for n in entry.get("kp") or () if isinstance(n, str)))
        if entry.get("c") is not None:
            self.classes[entry.get("c")] = shared
        return shared

    # -- requests about trusted objects

    def request(self, message: Dict[str, Any], owner: Proxy) -> Any:
        message["ref"] = object.__getattribute__(owner, "_number")
        try:
            with self.lock:  # one exchange at a time: threads of the student's code take turns on the pipe
                self.pipe.send(message)
                reply = self._reply()
                self.introduce(reply)
        except RecursionError:  # the student's own recursion met its limit here: its error, in its words
            raise RecursionError("maximum recursion depth exceeded") from None
        if "m" in reply:
            return RemoteMethod(owner, str(reply["m"]))
        if "raise" in reply:
            record = reply["raise"] if isinstance(reply["raise"], dict) else {}
            raise _builtin_exception([record.get("type")] + list(record.get("ancestors") or []))(
                str(record.get("message") or ""))
        if "abort" in reply:
            raise GraderAbort(str(reply["abort"]))
        return self.load(reply.get("v"))

    def _reply(self) -> Dict[str, Any]:
        """The trusted process's answer (it may first make calls of its own: they are served here)."""
        while True:
            message = self.pipe.receive()
            if message is None:
                os._exit(0)  # the trusted process is gone: nothing is left to grade
            if message.get("op") in ("call", "local"):
                self.serve_call(message)
                continue
            return message

    # -- requests of the trusted process

    def serve_call(self, message: Dict[str, Any]) -> None:
        """Run the function a "call" or "local" message names and send its return value (or its exception)."""
        asked = message.get("max_items")
        limit = asked if isinstance(asked, int) else MAX_ITEMS
        if message.get("op") == "call":
            LAST_CALL["deep"] = False
        try:
            self.introduce(message)
            function = self._function(message)
            args = self.load(message.get("args"))
            kwargs = self.load(message.get("kwargs")) if message.get("kwargs") is not None else {}
            value = _materialised(function(*args, **kwargs), limit)
            reply = {"op": "return", "v": self.value(value)}
        except BaseException as exc:  # the student's exception, whatever it is, is the call's outcome
            reply = {"op": "raise", "error": self.describe(exc)}
        try:
            self.pipe.send(reply)
        except (TypeError, ValueError) as exc:  # a value that cannot be sent: the call's outcome is that error
            self.pipe.send({"op": "raise", "error": self.describe(exc)})

    def _function(self, message: Dict[str, Any]) -> Callable:
        if message.get("op") == "call":
            owner = self.reference
            for part in str(message.get("symbol")).split("."):
                owner = getattr(owner, part)
            return owner
        module, _, name = str(message.get("function")).rpartition(".")
        return getattr(self.probes[module], name)

    def clear(self) -> None:
        self.proxies.clear()
        self.classes.clear()


#: the pure methods that answer True or False (is_leaf, is_constant, ...): one function each, shared
_CONSTANTS = {True: lambda: True, False: lambda: False}


def _constant(value: Any) -> Callable[[], Any]:
    """A pure method: its result, answered without a request."""
    return lambda: value


def _linear(parents: List[Any], weights: List[Any]) -> Callable[[Any], List[Any]]:
    """A linear local derivative: d -> [(parent_i, d * weight_i)], answered without a request."""
    return lambda d: [(p, d * w) for p, w in zip(parents, weights)]


def _materialised(value: Any, limit: int) -> Any:
    """A returned iterable that is not a plain container (a generator, a deque, ...) as a list of at most `limit`
    items; a list or tuple cut to `limit` items."""
    if isinstance(value, (list, tuple)):
        return value[:limit] if len(value) > limit else value
    if value is None or isinstance(value, (str, bytes, dict, Proxy, int, float)) or hasattr(value, "__array__"):
        return value
    try:
        iterator = iter(value)
    except TypeError:
        return value
    return list(itertools.islice(iterator, limit))
