"""The line between the trusted probe process and the student's process (graders/child/remote.py), at its seam:
a real fork and pipe pair, the student's side running plain functions on proxies, no sandbox.

What is counted on a trusted graph is counted in the trusted process; only what a class declares crosses;
junk on the pipe is skipped and counted; the student's exceptions come back as the built-in class they are;
a work budget stops the call however the student's code catches it.
"""

from __future__ import annotations

import math
import os
import random
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "graders" / "child"), str(ROOT / "reference")]

import remote  # noqa: E402
from probekit import WorkBudgetExceeded  # noqa: E402


def _autodiff_graphs():
    """The autodiff probes' graph module on its own (not as `probes.graphs`: importing the `probes` package
    would register its probes in this process, which other tests import the probes into too)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("autodiff_graphs", ROOT / "problems/autodiff/probes/graphs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_graphs = _autodiff_graphs()
Counter, Graph, chain, diamond_chain = _graphs.Counter, _graphs.Graph, _graphs.chain, _graphs.diamond_chain


class Functions:
    """What a student's file puts in the module the trusted process calls into."""

    @staticmethod
    def order(variable):
        order, seen, stack = [], set(), [(variable, False)]
        while stack:
            v, done = stack.pop()
            if done:
                order.append(v)
            elif v.unique_id not in seen and not v.is_constant():
                seen.add(v.unique_id)
                stack.append((v, True))
                stack.extend((p, False) for p in v.parents)
        return list(reversed(order))

    @staticmethod
    def backpropagate(variable, deriv):
        adjoints = {variable.unique_id: deriv}
        for v in Functions.order(variable):
            d = adjoints.get(v.unique_id, 0.0)
            if v.is_leaf():
                v.accumulate_derivative(d)
            else:
                for p, dp in v.chain_rule(d):
                    if not p.is_constant():
                        adjoints[p.unique_id] = adjoints.get(p.unique_id, 0.0) + dp

    @staticmethod
    def every_path(variable, deriv):
        """Pushes adjoints along every path (exponential), swallowing whatever is raised at it."""
        try:
            if variable.is_leaf():
                variable.accumulate_derivative(deriv)
            else:
                for p, dp in variable.chain_rule(deriv):
                    Functions.every_path(p, dp)
        except BaseException:  # a hostile catch-all: the budget must still stop the call
            for p in variable.parents:
                _ = p.parents  # keeps asking

    @staticmethod
    def reach(variable, name):
        return getattr(variable, name)

    @staticmethod
    def write(variable, name, value):
        setattr(variable, name, value)
        return getattr(variable, name)

    @staticmethod
    def fails(variable):
        assert variable.unique_id < 0, "a student's assertion"

    @staticmethod
    def generator(variable):
        while True:
            yield variable

    @staticmethod
    def describe(items):
        """What the student's process sees of each item: its class's name, and of a node its id, kind and parents."""
        seen = []
        for item in items:
            node = hasattr(item, "unique_id")
            seen.append([type(item).__name__, item.unique_id if node else None,
                         [item.is_leaf(), item.is_constant(), [p.unique_id for p in item.parents]] if node else None])
        return seen

    @staticmethod
    def local_derivatives(variable, d):
        return [float(dp) for _, dp in variable.chain_rule(d)]

    @staticmethod
    def values(items):
        return [[item.uid, item.ident()] for item in items]

    @staticmethod
    def read_twice(variable, name):
        return [getattr(variable, name), getattr(variable, name)]

    #: (in the student's process) its pipe to the trusted process
    up_fd = -1

    @staticmethod
    def flood():
        """Bytes that are no frame on the pipe to the trusted process (only there: this process's other descriptors
        are the test runner's)."""
        os.write(Functions.up_fd, b"\x00garbage" * 1000)

    @staticmethod
    def class_name(variable):
        return type(variable).__name__

    @staticmethod
    def recurse(variable):
        return [variable] + Functions.recurse(variable.parents[0]) if not variable.is_leaf() else [variable]


@pytest.fixture
def student():
    """A student's process (a fork serving calls of `Functions`) and the trusted side's handle on it."""
    down_r, down_w = os.pipe()
    up_r, up_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(down_w)
            os.close(up_r)
            Functions.up_fd = up_w
            objects = remote.TrustedObjects(remote.Pipe(down_r, up_w, trusted_peer=True), Functions)
            while True:
                message = objects.pipe.receive()
                if message is None:
                    break
                if message.get("op") == "junk":
                    os.write(up_w, b"\x00garbage" * 1000)
                    objects.pipe.send({"op": "return", "v": None})
                elif message.get("op") == "call":
                    objects.serve_call(message)
                elif message.get("op") == "reset":
                    objects.clear()
        finally:
            os._exit(0)
    os.close(down_r)
    os.close(up_w)
    handle = remote.StudentProcess(remote.Pipe(up_r, down_w), pid, lambda message: None)
    yield handle
    os.close(down_w)
    os.waitpid(pid, 0)


def call(student, name, *args, **kwargs):
    return remote.RemoteFunction(student, name)(*args, **kwargs)


def test_uses_are_counted_in_the_trusted_process_and_derivatives_land_there(student):
    graph, x, out = diamond_chain(8, Counter())
    call(student, "backpropagate", out, 1.0)
    local = Counter()
    _twin, x2, out2 = diamond_chain(8, local)
    Functions.backpropagate(out2, 1.0)
    assert x.derivative == pytest.approx(x2.derivative, rel=1e-12)
    assert graph.counter.as_dict() == local.as_dict()  # every use made there was counted here


def test_only_the_declared_surface_crosses(student):
    _graph, x, out = chain(3, Counter())
    with pytest.raises(AttributeError, match="counter"):
        call(student, "reach", out, "counter")  # the counter is never reachable from the student's process
    with pytest.raises(AttributeError):
        call(student, "reach", out, "_inputs")
    assert call(student, "reach", out, "unique_id") == out.unique_id
    with pytest.raises(AttributeError, match="cannot set"):
        call(student, "write", out, "parents", [])
    assert call(student, "write", out, "visited", True) is True  # its own attribute, kept and read back
    assert call(student, "write", x, "derivative", 2.5) == 2.5 and x.derivative == 2.5  # declared writable


def test_a_students_exception_comes_back_as_the_builtin_it_is(student):
    _graph, _x, out = chain(2, Counter())
    with pytest.raises(AssertionError, match="a student's assertion") as caught:
        call(student, "fails", out)
    assert isinstance(caught.value, remote.RemoteException) and caught.value.record["type"] == "AssertionError"


def test_a_generator_is_cut_where_the_trusted_side_asks(student):
    _graph, _x, out = chain(2, Counter())
    first = remote.RemoteFunction(student, "generator").first(5, out)
    assert len(first) == 5 and all(v is out for v in first)


def test_a_work_budget_stops_the_call_even_when_the_students_code_catches_everything(student):
    counter = Counter(budget=500)
    _graph, _x, out = diamond_chain(32, counter)
    with pytest.raises(WorkBudgetExceeded):
        call(student, "every_path", out, 1.0)
    student.reset()
    _graph, _x, out = chain(3, Counter())
    assert call(student, "reach", out, "unique_id") == out.unique_id  # the line is usable again


def test_recursion_at_the_default_limit_is_the_students_recursionerror(student):
    _graph, _x, out = chain(3000, Counter())
    with pytest.raises(RecursionError) as caught:
        call(student, "recurse", out)
    assert "while decoding" not in str(caught.value)  # no word of the grader's machinery


def test_junk_on_the_pipe_is_skipped_and_counted(student):
    student.pipe.send({"op": "junk"})
    assert student.pipe.receive() == {"op": "return", "v": None}
    assert student.pipe.skipped == len(b"\x00garbage" * 1000)


def test_a_frame_that_is_not_a_json_object_is_a_protocol_error():
    read, write = os.pipe()
    sender, receiver = remote.Pipe(-1, write), remote.Pipe(read, -1)
    sender.send({"op": "x"})  # a good frame, then a well-framed body that is no object
    os.write(write, remote._HEADER.pack(remote._MARKER, 2, __import__("zlib").crc32(b"[]")) + b"[]")
    assert receiver.receive() == {"op": "x"}
    with pytest.raises(remote.ProtocolError):
        receiver.receive()
    os.close(write)
    assert receiver.receive() is None
    os.close(read)


def test_junk_past_the_cap_is_a_protocol_error_on_the_trusted_side(monkeypatch):
    """Up to MAX_SKIPPED bytes that are no frame are skipped; past it, the student's process broke the protocol
    (a gigabyte flood would otherwise cost the probes' time); the student's side, reading only the trusted
    process, has no such cap."""
    monkeypatch.setattr(remote, "MAX_SKIPPED", 4096)
    for trusted_peer, raises in ((False, True), (True, False)):
        read, write = os.pipe()
        sender, receiver = remote.Pipe(-1, write), remote.Pipe(read, -1, trusted_peer=trusted_peer)
        os.write(write, b"\x00junk" * 400)  # 2000 bytes: skipped
        sender.send({"op": "x"})
        assert receiver.receive() == {"op": "x"}
        os.write(write, b"\x00junk" * 800)  # 4000 more: past the cap
        sender.send({"op": "y"})
        if raises:
            with pytest.raises(remote.ProtocolError, match="no message of the harness"):
                receiver.receive()
        else:
            assert receiver.receive() == {"op": "y"}
        os.close(write)
        os.close(read)


def test_a_protocol_break_is_remembered_on_the_trusted_side(student, monkeypatch):
    """A trusted probe may catch what a call raises; the break stays known (`broken`), and the harness stops the run
    after that probe instead of talking on over a pipe that is out of step."""
    monkeypatch.setattr(remote, "MAX_SKIPPED", 4096)
    assert student.broken is None
    with pytest.raises(remote.ProtocolError):
        call(student, "flood")
    assert isinstance(student.broken, remote.ProtocolError)


def test_junk_made_of_frame_headers_is_charged_what_the_headers_claim(monkeypatch):
    """Headers one after the other, each claiming a 30000-byte body (the headers after it) whose checksum fails:
    each costs the reader that body (read, checked), so each is counted as junk in full and the cap is met after
    a few, not after thousands of 12-byte skips."""
    monkeypatch.setattr(remote, "MAX_SKIPPED", 100_000)
    read, write = os.pipe()
    receiver = remote.Pipe(read, -1)
    os.write(write, remote._HEADER.pack(remote._MARKER, 30_000, 0) * 5000)  # 60 KB: fits the pipe's buffer
    os.close(write)
    with pytest.raises(remote.ProtocolError, match="no message of the harness"):
        receiver.receive()
    assert receiver.skipped <= 4 * 30_100
    os.close(read)


def test_objects_the_trusted_side_hands_over_are_one_proxy_each(student):
    graph = Graph(Counter())
    a = graph.leaf()
    b = graph.op([a, a], [1.0, 2.0])
    order = call(student, "order", b)
    assert order == [b, a]  # identities come back: the proxies were one per object


def test_one_message_handing_over_objects_of_several_classes_gives_each_its_own_proxy(student):
    """Objects of one class cross as one entry, in columns (a chain's nodes); a message that hands over nodes of two
    classes (whose parents are each other's), a constant, another object and a class itself gives every proxy its own
    values, and a backward pass over them lands the trusted derivatives."""
    chain_graph, x, out = chain(5, Counter(), random.Random(3))
    graph = Graph(Counter(), id_start=5000)  # ids apart from the chain's
    a, k = graph.leaf(), graph.constant()
    b = graph.op([a, out, k], [1.0, 2.0, 3.0])  # a Node whose parents are a Node, a ChainNode and a constant
    items = [b, out, Flaky(bad=False), x, _graphs.NodeFunction, a]

    def seen_here(item):
        if isinstance(item, type):
            return [item.__name__, None, None]
        if not hasattr(item, "unique_id"):
            return [type(item).__name__, None, None]
        return [type(item).__name__, item.unique_id, [item.is_leaf(), item.is_constant(), [p.unique_id for p in item.parents]]]

    assert call(student, "describe", items) == [seen_here(i) for i in items]
    call(student, "backpropagate", b, 1.0)
    weights = [node._weights[0] for node in chain_graph.nodes[1:]]
    assert a.derivative == 1.0 and k.derivative is None
    assert x.derivative == pytest.approx(2.0 * math.prod(weights), rel=1e-12)


class Flaky:
    """A trusted class whose pure method fails for one object: describing that object fails partway."""

    def __init__(self, bad):
        self.bad = bad

    def is_ok(self):
        if self.bad:
            raise ValueError("cannot say")
        return True


remote.expose(Flaky, ("is_ok",), pure=("is_ok",))


def test_a_class_whose_first_description_failed_is_described_again_with_its_next_object(student):
    """The first object of a class carries what all of its objects share (name, methods): when describing it fails
    partway, the class is not taken as described, so the next object of it carries that again (else it would be a
    bare proxy of no class in the student's process)."""
    with pytest.raises(ValueError, match="cannot say"):
        call(student, "class_name", Flaky(bad=True))
    assert call(student, "class_name", Flaky(bad=False)) == "Flaky"


def test_a_message_whose_description_failed_after_its_class_was_described_names_the_class_again(student):
    """Two new objects of a class in one message: the one that names the class is described, the other fails, and
    the message is dropped with both: the class's next object names it again (helper-22's F1)."""
    with pytest.raises(ValueError, match="cannot say"):
        call(student, "class_name", [Flaky(bad=True), Flaky(bad=False)])
    assert call(student, "class_name", Flaky(bad=False)) == "Flaky"


def test_an_object_of_a_dropped_message_is_described_when_it_is_handed_over_again(student):
    """A message whose description fails is dropped with the numbers of the objects it handed over: one of them
    handed over again is described then (not sent as a reference to an object the student's process never saw)."""
    _graph, _x, out = chain(2, Counter())
    with pytest.raises(ValueError, match="cannot say"):
        call(student, "class_name", [Flaky(bad=True), out])  # out is described first, then Flaky fails
    assert call(student, "describe", [out]) == [["ChainNode", out.unique_id, [False, False, [out.parents[0].unique_id]]]]


class Twice:
    """A trusted class that declares its static value and its pure method twice."""

    def __init__(self, uid):
        self.uid = uid

    def ident(self):
        return 10 * self.uid


remote.expose(Twice, ("uid", "ident"), static=("uid", "uid"), pure=("ident", "ident"))


def test_a_name_declared_twice_still_gives_each_object_its_own_values(student):
    """Objects of one class cross in one column per name: a name listed twice in `expose` counts once (red team)."""
    assert call(student, "values", [Twice(1), Twice(2), Twice(3)]) == [[1, 10], [2, 20], [3, 30]]


class ArrayWeighted:
    """A trusted class whose linear method's weights are a NumPy array (its parents a list)."""

    def __init__(self, parents, weights):
        self.parents, self.weights = parents, weights

    def chain_rule(self, d):
        return [(p, d * w) for p, w in zip(self.parents, self.weights)]


remote.expose(ArrayWeighted, ("parents", "weights", "chain_rule"), static=("parents", "weights"),
              linear=("chain_rule", "parents", "weights"))


def test_a_linear_method_whose_weights_are_an_array_is_answered_there(student):
    """The weights of a linear method may be any sequence that crosses (an array: its truth is no test of it)."""
    import numpy as np

    leaf = ArrayWeighted([], np.array([]))
    node = ArrayWeighted([leaf, leaf], np.array([0.5, 2.0]))
    assert call(student, "local_derivatives", node, 3.0) == [1.5, 6.0]


class Holder:
    """A trusted class whose `history` never changes (kept once fetched) and whose `mood` may (fetched every time);
    each counts the reads the student's process asks for."""

    def __init__(self):
        self.reads = {"history": 0, "mood": 0}
        self._history = Flaky(bad=False)

    @property
    def history(self):
        self.reads["history"] += 1
        return self._history

    @property
    def mood(self):
        self.reads["mood"] += 1
        return "fine"


remote.expose(Holder, ("history", "mood"), kept=("history",))


def test_a_kept_attribute_is_fetched_once_and_read_there_after(student):
    """`kept` attributes (a node's history) cost one request, on first use; the others one per read."""
    holder = Holder()
    first, again = call(student, "read_twice", holder, "history")
    assert first is again is holder.history
    assert call(student, "read_twice", holder, "mood") == ["fine", "fine"]
    assert holder.reads == {"history": 1 + 1, "mood": 2}  # (+1: the read just above, in this process)


_NUMBERS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
                     st.text(max_size=5))


@settings(max_examples=200, deadline=None)
@given(st.recursive(_NUMBERS, lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                                                      st.dictionaries(st.text(max_size=3), inner, max_size=3)),
                    max_leaves=12))
@example([float("nan"), float("-inf"), -0.0, True, 1, (2.5, None), {"k": float("inf")}])
def test_plain_values_cross_exactly_as_they_are(value):
    """What one side sends the other reads back: the same types and numbers (NaN, infinities and -0.0 included),
    lists, tuples and dicts, whichever path (the exact types' fast path or the general one) wrote them."""
    import json
    import math

    sent = json.dumps(remote._plain_value(value, 0, repr), allow_nan=False)  # as the pipe sends it
    back = remote._load_value(json.loads(sent), 0, repr)

    def same(a, b):
        if isinstance(a, float):
            return type(b) is float and ((math.isnan(a) and math.isnan(b)) or (a == b and repr(a) == repr(b)))
        if isinstance(a, (list, tuple)):
            return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        if isinstance(a, dict):
            return type(b) is dict and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        return type(a) is type(b) and a == b

    assert same(value, back), (value, back)
