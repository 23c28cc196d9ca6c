"""Hidden probes for `static_graph` (run in the sandbox): they build graphs, run them and record, never judge.

The student's `_topological_order`, `Session.run` and `gradients` are swapped
into the reference `minitorch.mini_tf`; everything else (Graph, Node, the op
kernels and gradient rules, `Session._evaluate`, constant folding) is the
reference's. Work is counted where the probe controls it, never from what the
student's code reports (`last_run_evaluated` is only compared with what was counted):

* the lazy-evaluation probes are trusted (they run in the trusted process): the graph is built there and, from
  the same builder, in the student's process, where the student's `Session.run` runs; every `Session._evaluate`
  and op kernel it calls asks the trusted process (`Evaluator`), which computes the value and records the
  evaluation where graded code cannot write. A value passed on that the trusted process neither computed nor
  was given (a feed, a constant) is noted as computed outside `_evaluate`;
* in the other probes (student's process), every call of the reference `Session._evaluate(node, inputs)` is one
  evaluation of `node`, and a registered op kernel called outside `_evaluate` also counts as one;
* every use of a node's `inputs` ticks a work budget (a runaway traversal stops with
  `WorkBudgetExceeded`) and, in the deep-chain probe, checks the Python stack depth.

Graphs are rebuilt from fixed seeds, so the reference run and the student run see
the same nodes under the same names; results name nodes by name.
"""

from __future__ import annotations

import builtins
import sys
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterable, Iterator, List, NamedTuple, Optional, Sequence

import numpy as np

from minitorch import mini_tf as tf
from probekit import (  # noqa: F401
    DEFAULT_RECURSION_LIMIT,
    PROBES,
    WorkBudgetExceeded,
    capture,
    expose,
    in_student_process,
    note_depth,
    probe,
    watching_depth,
)

#: the most names of `last_run_evaluated` read back (a run of these graphs evaluates a few hundred at most)
MAX_REPORTED = 10_000


# ------------------------------------------------------------------ instrumentation


@contextmanager
def evaluation_replaced(evaluate: Callable, kernel: Callable[[Callable], Callable]) -> Iterator[None]:
    """While active, `Session._evaluate` is `evaluate` and every registered op kernel is `kernel(the given one)`
    (the gradient rules unchanged); the given ones again after."""
    given_evaluate, given_ops = tf.Session._evaluate, dict(tf._OPS)
    tf.Session._evaluate = evaluate
    for op_type, opdef in given_ops.items():
        tf._OPS[op_type] = tf._OpDef(kernel(opdef.kernel), opdef.grad)
    try:
        yield
    finally:
        tf.Session._evaluate = given_evaluate
        tf._OPS.clear()
        tf._OPS.update(given_ops)


class Watch:
    """Records node evaluations (names, in call order) and bounds the work of a traversal.

    Use as a context manager: while it is active, `Session._evaluate` and every
    registered kernel are wrapped; `instrument(graph)` makes every node's `inputs`
    report its uses to the watch.
    """

    def __init__(self, budget: int = 200_000, uses_only: bool = False):
        self.evaluations: List[str] = []
        self.uses_only = uses_only
        self.budget = budget
        self.uses = 0
        self.active = False
        self._inside = 0
        self._replacement: Any = None

    # evidence
    def _note(self, node: Any) -> None:
        self.evaluations.append(str(getattr(node, "name", "?")))
        self.touch()

    def touch(self) -> None:
        """One use of the graph: counted against the budget; the stack depth checked while a probe watches it."""
        if not self.active:
            return
        self.uses += 1
        note_depth()
        if self.uses > self.budget:
            raise WorkBudgetExceeded(f"more than {self.budget} uses of the graph's nodes: a runaway traversal")

    # installing and removing the wrappers
    def __enter__(self) -> Watch:
        self.active = True
        if self.uses_only:  # a budget on the graph's uses (the evaluations are recorded elsewhere)
            return self
        evaluate = tf.Session._evaluate
        watch = self

        def counted_evaluate(session: Any, node: Any, inputs: Any) -> Any:
            watch._note(node)
            watch._inside += 1
            try:
                return evaluate(session, node, inputs)
            finally:
                watch._inside -= 1

        def counted(kernel: Callable) -> Callable:
            def run(node: Any, values: Any) -> Any:
                if watch._inside == 0:  # a kernel called directly, not through Session._evaluate
                    watch._note(node)
                return kernel(node, values)

            return run

        self._replacement = evaluation_replaced(counted_evaluate, counted)
        self._replacement.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.active = False
        if self._replacement is not None:
            self._replacement.__exit__(*exc)
            self._replacement = None

    def instrument(self, graph: Any) -> None:
        """Every node of `graph` now reports each use of its `inputs` to this watch."""
        for node in graph.get_operations():
            node.inputs = Inputs(node.inputs, self)


class Inputs(tuple):
    """A node's `inputs`: a tuple that reports every iteration, index, length and membership test."""

    def __new__(cls, items: Iterable[Any], watch: Watch) -> Inputs:
        made = super().__new__(cls, tuple(items))
        made.watch = watch
        return made

    def __iter__(self):
        self.watch.touch()
        return tuple.__iter__(self)

    def __getitem__(self, index: Any) -> Any:
        self.watch.touch()
        return tuple.__getitem__(self, index)

    def __len__(self) -> int:
        self.watch.touch()
        return tuple.__len__(self)

    def __reversed__(self):
        self.watch.touch()
        return reversed(tuple.__getitem__(self, slice(None)))

    def __contains__(self, item: Any) -> bool:
        self.watch.touch()
        return tuple.__contains__(self, item)


# ------------------------------------------------------------------ plain data


def as_data(value: Any) -> Any:
    """A fetched value (array, number, None, nested list/tuple/dict) as plain lists of floats."""
    if value is None or (isinstance(value, dict) and "__error__" in value):
        return value
    if isinstance(value, dict):
        return {str(k): as_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_data(v) for v in value]
    try:
        return np.asarray(value, dtype=np.float64).tolist()
    except Exception:
        return {"__unserializable__": type(value).__name__}


def structure(graph: Any) -> Dict[str, Dict[str, Any]]:
    """Every node of `graph` by name: its op type, its inputs' names, whether an op kernel computes it."""
    return {
        n.name: {"op": n.op_type, "inputs": [i.name for i in n.inputs],
                 "kernel": n.op_type in tf._OPS}
        for n in graph.get_operations()
    }


class LazyCase(NamedTuple):
    """One `sess.run(fetches, feeds)` of a lazy-evaluation probe (`must_name`: the placeholder its error names)."""

    label: str
    fetches: Any
    feeds: Dict[Any, Any]
    must_name: Optional[str] = None


#: the graph builders of the lazy-evaluation probes, by probe id: each builds its graph in the default graph and
#: returns its runs. Called in both processes: the same code builds the same nodes under the same names
LAZY_GRAPHS: Dict[str, Callable[[], List[LazyCase]]] = {}


def lazy_graph(probe_id: str) -> Callable:
    def register(build: Callable[[], List[LazyCase]]) -> Callable[[], List[LazyCase]]:
        LAZY_GRAPHS[probe_id] = build
        return build

    return register


#: the given `Session._evaluate` and op kernels, taken before any probe replaces them
GIVEN_EVALUATE = tf.Session._evaluate
GIVEN_KERNELS = {op_type: opdef.kernel for op_type, opdef in tf._OPS.items()}


def _key(value: Any) -> Any:
    """A value as a dictionary key: its float64 bytes and shape, every NaN the same (None: no array at all)."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    return array.shape, np.where(np.isnan(array), np.nan, array).tobytes()


class Evaluator:
    """The trusted side of `Session._evaluate` (and of the op kernels) for the student's `Session.run`.

    The graph is built twice from one builder: here, and in the student's process, where `Session._evaluate`
    asks this object for every node's value by name. Every request is recorded here, where graded code cannot
    write: `evaluations` (names, in call order). A value the student's run passes on (an input of a node, a
    fetched value) is one this object handed out, a feed or a constant, or it was computed without
    `_evaluate`: `outside` names where such a value appeared.
    """

    def __init__(self, graph: Any, cases: List[LazyCase], budget: int):
        self.nodes = {n.name: n for n in graph.get_operations()}
        self.session = tf.Session(graph, constant_folding=False)
        self.evaluations: List[str] = []
        self.outside: List[str] = []
        self.budget = budget
        self._inside = False
        self.known = {_key(n.attrs["value"]) for n in self.nodes.values() if n.op_type == "Const"}
        self.known.update(_key(v) for case in cases for v in case.feeds.values())

    def evaluate(self, name: Any, inputs: Any) -> Any:
        """`Session._evaluate(node, inputs)` for the node named `name`: its value (or an error record)."""
        return self._value(name, inputs, lambda node, values: GIVEN_EVALUATE(self.session, node, values))

    def kernel(self, name: Any, inputs: Any) -> Any:
        """An op kernel called by the student's code itself (outside `_evaluate`): one evaluation too."""
        return self._value(name, inputs, lambda node, values: GIVEN_KERNELS[node.op_type](node, values))

    def _value(self, name: Any, inputs: Any, compute: Callable[[Any, List[Any]], Any]) -> Any:
        node = self.nodes.get(name) if isinstance(name, str) else None
        if node is None:
            return {"__error__": {"type": "KeyError", "message": f"the graph has no node named {str(name)[:80]!r}"}}
        values = list(inputs) if isinstance(inputs, (list, tuple)) else []
        if self._inside:  # the given _evaluate calling a kernel in this process (the reference's own run)
            return compute(node, values)
        self.evaluations.append(node.name)
        if len(self.evaluations) > self.budget:
            raise WorkBudgetExceeded(f"more than {self.budget} evaluations: a runaway evaluation loop")
        where = f"the inputs of '{node.name}'"
        if any(_key(v) not in self.known for v in values if v is not None) and where not in self.outside:
            self.outside.append(where)
        self._inside = True
        try:
            out = compute(node, values)
        except Exception as exc:  # the given code's error (InvalidArgumentError, ...): raised again over there
            return {"__error__": {"type": type(exc).__name__, "message": str(exc)[:2000]}}
        finally:
            self._inside = False
        self.known.add(_key(out))
        return out

    def fetched(self, value: Any) -> bool:
        """Whether every array in a fetched structure is a value this object knows."""
        if value is None:
            return True
        if isinstance(value, dict):
            return "__error__" in value or all(self.fetched(v) for v in value.values())
        if isinstance(value, (list, tuple)):
            return all(self.fetched(v) for v in value)
        return _key(value) in self.known


expose(Evaluator, ("evaluate", "kernel"))


def _raise_as_given(record: Dict[str, Any], node: Any) -> None:
    """Raise the error the trusted side described as the given module's own class (InvalidArgumentError, ...),
    or as the built-in exception it is."""
    name, message = str(record.get("type")), str(record.get("message", ""))
    kind = getattr(tf, name, None)
    if isinstance(kind, type) and issubclass(kind, tf.OpError):
        raise kind(message, node)
    builtin = getattr(builtins, name, None)
    raise (builtin if isinstance(builtin, type) and issubclass(builtin, Exception) else RuntimeError)(message)


def _asked(ask: Callable[[Any, Any], Any], node: Any, inputs: Any) -> Any:
    """`ask(node's name, inputs)` of the trusted side; an error it describes raised here as the given class."""
    out = ask(str(getattr(node, "name", "?")), list(inputs))
    if isinstance(out, dict) and "__error__" in out:
        _raise_as_given(out["__error__"], node)
    return out


def evaluated_there(evaluator: Any) -> Any:
    """While active (in the student's process), `Session._evaluate` and every op kernel ask `evaluator` (the
    trusted side) for the value: the evaluations are recorded there."""
    return evaluation_replaced(lambda session, node, inputs: _asked(evaluator.evaluate, node, inputs),
                               lambda given: lambda node, inputs: _asked(evaluator.kernel, node, inputs))


#: the graph of the lazy probe running in this (the student's) process: probe id -> (graph, runs)
_MIRROR: Dict[str, tuple] = {}


def lazy_case_here(probe_id: str, index: int, evaluator: Any, budget: int) -> Dict[str, Any]:
    """The student's `Session.run` of run `index` of the probe's graph, built here once, with every evaluation
    asked of the trusted side: the fetched value (or error record) and the student's `last_run_evaluated`."""
    if probe_id not in _MIRROR:
        _MIRROR.clear()
        graph = tf.Graph()
        with graph.as_default():
            _MIRROR[probe_id] = (graph, LAZY_GRAPHS[probe_id]())
    graph, cases = _MIRROR[probe_id]
    case = cases[index]
    watch = Watch(budget, uses_only=True)  # a runaway traversal stops here (the budget, not the evidence)
    watch.instrument(graph)
    with watch, evaluated_there(evaluator), graph.as_default():
        session = tf.Session(graph, constant_folding=False)
        value = capture(lambda: session.run(case.fetches, case.feeds))
    return {"value": value,
            "reported": capture(lambda: [str(name) for name in list(session.last_run_evaluated)[:MAX_REPORTED]])}


def lazy_probe(probe_id: str, budget: int = 200_000) -> Dict[str, Any]:
    """The probe's graph, built here; each run made by the student's `Session.run` in the student's process on
    a copy of the graph built there, every evaluation answered (and recorded) here; the graph's structure beside.

    The sessions do not fold constants: every evaluation recorded is one the run's own loop asked for
    (folding is exercised by the `folded_constants` probe, on values).
    """
    graph = tf.Graph()
    with graph.as_default():
        cases = LAZY_GRAPHS[probe_id]()
    evaluator = Evaluator(graph, cases, budget)
    results = []
    for index, case in enumerate(cases):
        start, flagged = len(evaluator.evaluations), len(evaluator.outside)
        run = in_student_process(lazy_case_here, probe_id, index, evaluator, budget)
        run = run if isinstance(run, dict) else {}
        flat = case.fetches if isinstance(case.fetches, list) else [case.fetches]
        outside = evaluator.outside[flagged:]
        if not evaluator.fetched(run.get("value")):
            outside.append("the fetched value")
        row = {"label": case.label, "fetch": [f.name for f in flat],
               "fed": [k if isinstance(k, str) else k.name for k in case.feeds],
               "value": as_data(run.get("value")), "evaluations": evaluator.evaluations[start:],
               "reported": run.get("reported")}
        if outside:
            row["outside"] = outside
        if case.must_name is not None:
            row["must_name"] = case.must_name
        results.append(row)
    return {"graph": structure(graph), "cases": results}


# ------------------------------------------------------------------ lazy evaluation


def slides_graph() -> Dict[str, Any]:
    """The lecture's h = relu(x·W + b): 6 nodes (x, W, b, matmul, add, relu), nothing computed while building."""
    rng = np.random.default_rng(11868)
    x = tf.placeholder((None, 3), name="x")
    W = tf.constant(rng.normal(size=(3, 4)), name="W")
    b = tf.constant(rng.normal(size=(4,)), name="b")
    xW = tf.matmul(x, W, name="matmul")
    h = tf.relu(xW + b, name="relu")
    x_val = rng.normal(size=(2, 3))
    return {"x": x, "W": W, "b": b, "xW": xW, "h": h, "x_val": x_val}


@lazy_graph("slides_graph")
def slides_runs() -> List[LazyCase]:
    g = slides_graph()
    return [
        LazyCase("h = relu(x·W + b), x fed", g["h"], {g["x"]: g["x_val"]}),
        LazyCase("x·W, x fed", g["xW"], {g["x"]: g["x_val"]}),
        LazyCase("[h, x·W] in one run", [g["h"], g["xW"]], {g["x"]: g["x_val"]}),
        LazyCase("h, x fed by its name ({'x': …}: a feed_dict key may be a node or its name)", g["h"],
                 {"x": g["x_val"]}),
    ]


@probe("slides_graph", trusted=True)
def slides_graph_probe(_):
    """sess.run(h, {x: …}) needs all 6 nodes (x fed, 5 computed); sess.run(x·W, {x: …}) only 3 (2 computed); a
    placeholder may be fed by its name (the given `_prepare_feeds` resolves the keys into `feeds`)."""
    return lazy_probe("slides_graph")


@lazy_graph("unfed_placeholder")
def unfed_runs() -> List[LazyCase]:
    g = slides_graph()
    z = tf.placeholder((None, 4), name="z")  # used by nothing h or x·W needs
    out = tf.reduce_sum(g["h"] * z, name="score")
    W2 = tf.multiply(g["W"], 2.0, name="W2")
    feed_x = {g["x"]: g["x_val"]}
    return [
        LazyCase("h without feeding x", g["h"], {}, must_name="x"),
        LazyCase("score = sum(h * z), x fed, z not", out, feed_x, must_name="z"),
        LazyCase("h, x fed, z (unneeded) not fed", g["h"], feed_x),
        LazyCase("W·2 with no feed at all", W2, {}),
    ]


@probe("unfed_placeholder", trusted=True)
def unfed_placeholder(_):
    """A needed placeholder left unfed raises InvalidArgumentError; an unneeded one does not matter."""
    return lazy_probe("unfed_placeholder")


@lazy_graph("only_needed")
def only_needed_runs() -> List[LazyCase]:
    x = tf.placeholder((None, 2), name="x")
    z = tf.placeholder((None, 2), name="z")
    a = tf.exp(x, name="a")
    d = tf.add(a * 2.0, a * 3.0, name="d")  # a has two users
    e = z
    for i in range(30):  # an expensive branch that d does not need
        e = tf.exp(-tf.square(e), name=f"expensive_{i}")
    both = tf.add(d, e, name="both")
    xv = np.array([[0.0, 1.0], [-0.5, 0.25]])
    zv = np.array([[0.3, -0.2], [1.0, 0.5]])
    return [
        LazyCase("d, x fed (z not needed)", d, {x: xv}),
        LazyCase("d, x and z fed", d, {x: xv, z: zv}),
        LazyCase("[d, a] in one run", [d, a], {x: xv, z: zv}),
        LazyCase("both (needs everything)", both, {x: xv, z: zv}),
    ]


@probe("only_needed", trusted=True)
def only_needed(_):
    """Only what the fetches need, each node once, even when shared by several users or several fetches."""
    return lazy_probe("only_needed")


@lazy_graph("feed_cuts")
def feed_cuts_runs() -> List[LazyCase]:
    x = tf.placeholder((3,), name="x")
    q = tf.placeholder((3,), name="q")  # a placeholder c does not use at all
    p = tf.multiply(x, 3.0, name="p")
    a = tf.exp(p, name="a")
    c = tf.reduce_sum(a * 2.0, name="c")
    tf.add(x, 1.0, name="unrelated")  # a branch nobody fetches
    tf.add(q, 1.0, name="unrelated_q")
    xv = np.array([0.1, -0.2, 0.3])
    av = np.array([1.0, 2.0, 4.0])
    return [
        LazyCase("c with a fed, x not fed", c, {a: av, q: xv}),
        LazyCase("c with a and x fed", c, {a: av, x: xv, q: xv}),
        LazyCase("c with x fed, q (unused) not fed", c, {x: xv}),
    ]


@probe("feed_cuts", trusted=True)
def feed_cuts(_):
    """Feeding an intermediate node replaces its computation: its inputs are not needed (TF1)."""
    return lazy_probe("feed_cuts")


@probe("folded_constants")
def folded_constants(_):
    """A session folds the constant subgraphs at its first run (given code): the run's loop must use the folded
    values (`usable_fold`), and a feed inside a folded subgraph must be honoured."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder((None, 2), name="x")
        c = tf.constant([[1.0, 2.0], [3.0, 4.0]], name="c")
        half = tf.constant(0.5, name="half")
        scale = tf.exp(half) + tf.log(tf.constant(3.0)) * 4.0  # constants only
        m = tf.reduce_sum(tf.matmul(c, tf.transpose(c)), axis=0)  # constants only
        y = tf.matmul(x * scale, c) + m
        feed = {x: np.array([[1.0, -1.0], [0.5, 2.0]])}
        watch = Watch()
        watch.instrument(graph)
        with watch:
            session = tf.Session(graph)
            first = capture(lambda: as_data(session.run(y, feed)))
            again = capture(lambda: as_data(session.run([y, scale], feed)))
            inside = capture(lambda: as_data(session.run(y, {**feed, half: 3.0})))
    return {"first run": first, "second run": again, "feeding inside a folded subgraph": inside}


@probe("fresh_runs")
def fresh_runs(_):
    """One session, three runs of the slides' graph with different values of x: each run computes its values from
    its own feeds (between runs a session keeps only variables and folded constants, never computed values)."""
    rng = np.random.default_rng(868)
    graph = tf.Graph()
    with graph.as_default():
        g = slides_graph()
        feeds = [rng.normal(size=(2, 3)) for _ in range(3)]
        watch = Watch()
        watch.instrument(graph)
        with watch:
            session = tf.Session(graph)
            runs = [capture(lambda: as_data(session.run(g["h"], {g["x"]: feeds[0]}))),
                    capture(lambda: as_data(session.run(g["h"], {g["x"]: feeds[1]}))),
                    capture(lambda: as_data(session.run([g["h"], g["xW"]], {g["x"]: feeds[2]})))]
    return {"runs": runs}


# ------------------------------------------------------------------ deep graphs


@probe("deep_chain")
def deep_chain(_):
    """A 5000-node chain y = x·c·c·…·c, run and differentiated at Python's default recursion limit."""
    depth = 5000
    limit = DEFAULT_RECURSION_LIMIT  # the student's process has no setter: the limit stays the default
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder((2,), name="x")
        c = tf.constant(1.0001, name="c")
        y = x
        for _ in range(depth):
            y = y * c
        loss = tf.reduce_sum(y, name="loss")
    watch = Watch(budget=200 * depth)
    watch.instrument(graph)
    feed = {x: np.array([1.0, -2.0])}
    result: Dict[str, Any] = {}
    with watching_depth() as depth_seen, watch, graph.as_default():
        session = tf.Session(graph)
        result["run"] = capture(lambda: as_data(session.run(y, feed)))
        result.update(evaluation_summary(watch.evaluations, {n.name for n in ancestors(y)}))
        grads = capture(lambda: tf.gradients(loss, [x]))
        if isinstance(grads, dict):
            result["gradient"] = grads
        else:
            result["gradient"] = capture(lambda: as_data(session.run(grads[0], feed)))
    result["stack_beyond_limit"] = depth_seen.beyond_limit
    result["recursion_limit_raised"] = sys.getrecursionlimit() > limit
    return result


def evaluation_summary(evaluations: List[str], needed: set) -> Dict[str, Any]:
    """A long run's evaluations in brief: how many, the node evaluated most often, a few nodes not needed."""
    counts: Dict[str, int] = {}
    for name in evaluations:
        counts[name] = counts.get(name, 0) + 1
    most = max(counts.items(), key=lambda item: item[1]) if counts else ("", 0)
    return {"evaluated": len(evaluations), "most_repeated": [most[0], most[1]],
            "not_needed": sorted(n for n in counts if n not in needed)[:5]}


# ------------------------------------------------------------------ symbolic gradients


def run_gradients(ys: Any, xs: Sequence[Any], feeds: Dict[Any, Any], graph: Any, grad_ys: Any = None,
                  watch: Optional[Watch] = None) -> Any:
    """The values of `gradients(ys, xs)` (None for a None gradient), or an error record."""
    grads = capture(lambda: tf.gradients(ys, list(xs), grad_ys=grad_ys))
    if isinstance(grads, dict):
        return grads
    if not isinstance(grads, (list, tuple)) or len(grads) != len(xs):
        return {"__error__": {"type": "TypeError", "line": None,
                              "message": f"gradients returned {type(grads).__name__}, expected a list of {len(xs)}"}}
    grads = list(grads)
    session = tf.Session(graph)
    fetch = [g for g in grads if g is not None]
    values = capture(lambda: session.run(fetch, feeds))
    if isinstance(values, dict):
        return values
    it = iter(values)
    return [None if g is None else as_data(next(it)) for g in grads]


def random_program(seed: int) -> Dict[str, Any]:
    """A random elementwise program with fan-out, reuse and broadcasting; its inputs and one intermediate node."""
    rng = np.random.default_rng(seed)
    shapes = [(2, 3), (3,), (2, 3), (1, 3)]
    xs = [tf.placeholder(s, name=f"in{i}") for i, s in enumerate(shapes)]
    feeds = {x: rng.uniform(-1.5, 1.5, size=s) for x, s in zip(xs, shapes)}
    unary = [
        tf.sigmoid,
        lambda a: tf.log(tf.square(a) + 1.0),
        lambda a: tf.relu(a - 0.1),
        tf.negative,
        lambda a: tf.exp(-tf.square(a)),
        lambda a: a * 0.5,
    ]
    binary = [
        tf.add,
        tf.subtract,
        lambda a, b: tf.sigmoid(a * b),
        lambda a, b: a * tf.sigmoid(b),
        lambda a, b: a / (tf.square(b) + 1.0),
        lambda a, b: tf.reduce_mean(a, axis=0, keepdims=True) + b,
    ]
    pool = list(xs)

    def pick() -> Any:
        recent = pool[-5:] if rng.random() < 0.6 else pool
        return recent[int(rng.integers(len(recent)))]

    for i in range(24):
        first = xs[i] if i < len(xs) else pick()  # every input is used at least once
        if rng.random() < 0.4:
            pool.append(unary[int(rng.integers(len(unary)))](first))
        else:
            pool.append(binary[int(rng.integers(len(binary)))](first, pick()))
    y = tf.reduce_sum(pool[-1] + pool[-2] * pool[-3] + pool[len(xs) + 4], name="y")
    upstream = ancestors(y)
    middle = next(n for n in pool[len(xs) + 6:] if n in upstream and n.op_type not in ("Const", "Placeholder"))
    return {"y": y, "xs": xs + [middle], "feeds": feeds}


def ancestors(node: Any) -> set:
    """`node` and every node it depends on (the probe's own walk, before any instrumentation)."""
    found, stack = set(), [node]
    while stack:
        n = stack.pop()
        if n not in found:
            found.add(n)
            stack.extend(tuple.__iter__(n.inputs))
    return found


def random_gradients(seed: int) -> Dict[str, Any]:
    graph = tf.Graph()
    with graph.as_default():
        prog = random_program(seed)
        watch = Watch()
        watch.instrument(graph)
        with watch:
            value = run_gradients(prog["y"], prog["xs"], prog["feeds"], graph)
    return {"gradients": value, "xs": [x.name for x in prog["xs"]]}


@probe("random_gradients")
def random_gradients_probe(_):
    """Three random programs: gradients with respect to every input and one intermediate node."""
    return [random_gradients(seed) for seed in (101, 202, 303)]


@probe("tied_autoencoder")
def tied_autoencoder(_):
    """r = sigmoid(X W + b) Wᵀ, loss = mean((r − X)²): X and W each have two users (fan-out through matmul)."""
    rng = np.random.default_rng(7)
    graph = tf.Graph()
    with graph.as_default():
        X = tf.placeholder((None, 3), name="X")
        W = tf.placeholder((3, 2), name="W")
        b = tf.placeholder((2,), name="b")
        h = tf.sigmoid(tf.matmul(X, W) + b)
        r = tf.matmul(h, tf.transpose(W))
        loss = tf.reduce_mean(tf.square(r - X), name="loss")
        feeds = {X: rng.normal(size=(5, 3)), W: rng.normal(size=(3, 2)), b: rng.normal(size=(2,))}
        watch = Watch()
        watch.instrument(graph)
        with watch:
            return {"gradients": run_gradients(loss, [X, W, b], feeds, graph)}


def fan_out_graphs() -> List[Dict[str, Any]]:
    """Graphs where x has several users; for each user, its contribution to x̄ (computed here with numpy)."""
    graphs = []
    # the lecture's f = x1 + exp(1.5 x1 + 2 x2) at (3, 0.5): x1 has two users
    x1 = tf.placeholder((), name="x1")
    x2 = tf.placeholder((), name="x2")
    f = x1 + tf.exp(x1 * 1.5 + x2 * 2.0)
    inner = np.exp(1.5 * 3.0 + 2.0 * 0.5)
    graphs.append({"y": f, "x": x1, "feeds": {x1: 3.0, x2: 0.5}, "contributions": [1.0, 1.5 * inner]})
    # exp(x) and square(x): two users with different contributions per entry
    xv = np.array([0.5, -1.0, 2.0])
    x = tf.placeholder((3,), name="x")
    y = tf.reduce_sum(tf.exp(x) + tf.square(x) * 1.5)
    graphs.append({"y": y, "x": x, "feeds": {x: xv}, "contributions": [np.exp(xv), 3.0 * xv]})
    # three users: sigmoid, 3·x, x / 4 (subtracted)
    uv = np.array([[0.2, -0.7], [1.1, 0.0]])
    u = tf.placeholder((2, 2), name="u")
    yu = tf.reduce_sum(tf.sigmoid(u) * 2.0 + 3.0 * u - u / 4.0)
    s = 1.0 / (1.0 + np.exp(-uv))
    graphs.append({"y": yu, "x": u, "feeds": {u: uv},
                   "contributions": [2.0 * s * (1.0 - s), np.full_like(uv, 3.0), np.full_like(uv, -0.25)]})
    # the fan-out one node further: x's only user h = 2x has two users, exp(h) and square(h); the
    # contributions to x̄ through each of them are 2·e^h and 2·2h
    wv = np.array([0.3, -0.4])
    w = tf.placeholder((2,), name="w")
    h = w * 2.0
    yw = tf.reduce_sum(tf.exp(h) + tf.square(h))
    graphs.append({"y": yw, "x": w, "feeds": {w: wv}, "contributions": [2.0 * np.exp(2.0 * wv), 8.0 * wv]})
    return graphs


def order_repeats(y: Any) -> Any:
    """Whether the student's `_topological_order([y])` lists some node twice (None if it fails): then a wrong
    x̄ comes from the order, not from how the adjoints are added."""
    order = capture(lambda: list(tf._topological_order([y]))[:MAX_REPORTED])
    return None if isinstance(order, dict) else len(order) != len({id(n) for n in order})


@probe("fan_out")
def fan_out(_):
    """x̄ is the SUM of the contributions of all of x's users."""
    graph = tf.Graph()
    out = []
    with graph.as_default():
        graphs = fan_out_graphs()
        watch = Watch()
        watch.instrument(graph)
        with watch:
            for case in graphs:
                value = run_gradients(case["y"], [case["x"]], case["feeds"], graph)
                dx = value[0] if isinstance(value, list) else value
                out.append({"dx": dx, "contributions": [as_data(c) for c in case["contributions"]],
                            "order_repeats": order_repeats(case["y"])})
    return out


@probe("several_ys_and_seeds")
def several_ys_and_seeds(_):
    """gradients([y1, y2], xs) sums over the ys; grad_ys seeds the reverse pass; a non-scalar y is seeded with ones."""
    graph = tf.Graph()
    xv = np.array([0.5, -1.0, 2.0])
    uv = np.array([1.5, 0.25, -0.75])
    with graph.as_default():
        x = tf.placeholder((3,), name="x")
        u = tf.placeholder((3,), name="u")
        y1 = tf.reduce_sum(tf.exp(x) * u)
        y2 = tf.reduce_sum(tf.square(x))
        vec = tf.exp(x) * u
        feeds = {x: xv, u: uv}
        watch = Watch()
        watch.instrument(graph)
        with watch:
            return {
                "two_ys": run_gradients([y1, y2], [x, u], feeds, graph),
                "seeded": run_gradients(vec, [x, u], feeds, graph, grad_ys=tf.constant([1.0, 0.0, 2.0])),
                "two_seeded": run_gradients([y1, vec], [x], feeds, graph,
                                            grad_ys=[tf.constant(3.0), tf.constant([0.5, -1.0, 1.0])]),
                "non_scalar": run_gradients(vec, [x], feeds, graph),
            }


def _static_shapes(grads: List[Any]) -> List[Any]:
    """Each gradient node's static shape, an unknown dimension (a placeholder's batch) as "?" (a shape is never read
    as a number that is NaN); None for what is not a Node."""
    return [["?" if d is None else d for d in g.shape] if isinstance(g, tf.Node) and g.shape is not None else None
            for g in grads]


@probe("gradients_symbolic")
def gradients_symbolic(_):
    """gradients() adds nodes and evaluates none; it returns one Node per x, with x's static shape. Then the same
    for a non-scalar y, x·W of shape (?, 4), which no grad_ys seeds: its seed is OnesLike(x·W), whose shape matmul's
    rule needs."""
    rng = np.random.default_rng(3)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder((None, 3), name="x")
        W = tf.constant(rng.normal(size=(3, 4)), name="W")
        b = tf.constant(rng.normal(size=(4,)), name="b")
        xW = tf.matmul(x, W)
        h = tf.relu(xW + b)
        loss = tf.reduce_mean(tf.square(h) + h, name="loss")  # h has two users
        feed = {x: rng.normal(size=(5, 3))}
        before = len(graph)
        watch = Watch()
        watch.instrument(graph)
        with watch:
            grads = capture(lambda: tf.gradients(loss, [x, W, b]))
            built = list(watch.evaluations)
            if isinstance(grads, dict):
                return {"error": grads}
            grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
            nodes = [isinstance(g, tf.Node) for g in grads]
            added = len(graph) - before
            values = capture(lambda: as_data(tf.Session(graph).run(
                [g for g in grads if isinstance(g, tf.Node)], feed)))
            of_xw = capture(lambda: tf.gradients(xW, [x, W]))
            if isinstance(of_xw, dict):
                non_scalar: Dict[str, Any] = {"error": of_xw}
            else:
                of_xw = list(of_xw) if isinstance(of_xw, (list, tuple)) else [of_xw]
                non_scalar = {"shapes": _static_shapes(of_xw), "values": capture(lambda: as_data(tf.Session(
                    graph).run([g for g in of_xw if isinstance(g, tf.Node)], feed)))}
    return {"evaluated_while_building": built, "added": added, "are_nodes": nodes, "shapes": _static_shapes(grads),
            "values": values, "non_scalar": non_scalar}


@probe("unrelated_none")
def unrelated_none(_):
    """The gradient with respect to a node y does not depend on is None (TF1), not zeros and not an error."""
    graph = tf.Graph()
    xv = np.array([0.5, -1.0, 2.0])
    with graph.as_default():
        x = tf.placeholder((3,), name="x")
        u = tf.placeholder((3,), name="u")
        c = tf.constant([1.0, 2.0, 3.0], name="c")
        y = tf.reduce_sum(tf.exp(x) * c, name="y")
        later = tf.multiply(x, 2.0, name="later")  # depends on x, but y does not depend on it
        watch = Watch()
        watch.instrument(graph)
        with watch:
            grads = capture(lambda: tf.gradients(y, [x, u, c, later, y]))
            if isinstance(grads, dict):
                return {"error": grads}
            grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
            is_none = [g is None for g in grads]
            values = capture(lambda: as_data(tf.Session(graph).run(
                [g for g in grads if g is not None], {x: xv, u: xv})))
    return {"is_none": is_none, "values": values}


@probe("training")
def training(_):
    """Logistic regression, 20 steps of GradientDescentOptimizer(0.5).minimize(loss): the losses and weights."""
    rng = np.random.default_rng(11868)
    X = rng.normal(size=(40, 3))
    t = (X @ np.array([[1.5], [-2.0], [0.5]]) + 0.3 + 0.5 * rng.normal(size=(40, 1)) > 0).astype(float)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder((None, 3), name="x")
        target = tf.placeholder((None, 1), name="t")
        W = tf.Variable(rng.normal(size=(3, 1)) * 0.1, name="W")
        b = tf.Variable([0.05], name="b")
        p = tf.sigmoid(tf.matmul(x, W) + b)
        loss = -tf.reduce_mean(target * tf.log(p) + (1.0 - target) * tf.log(1.0 - p))
        step = capture(lambda: tf.train.GradientDescentOptimizer(0.5).minimize(loss))
        if isinstance(step, dict):
            return {"error": step}
        init = tf.global_variables_initializer()
        watch = Watch()
        watch.instrument(graph)
        losses = []
        with watch:
            session = tf.Session(graph)
            started = capture(lambda: session.run(init))
            if isinstance(started, dict):
                return {"error": started}
            for _ in range(20):
                out = capture(lambda: session.run([step, loss], {x: X, target: t}))
                if isinstance(out, dict):
                    return {"error": out, "losses": losses}
                losses.append(as_data(out[1]))
            weights = capture(lambda: as_data(session.run([W, b])))
    return {"losses": losses, "weights": weights}


# ------------------------------------------------------------------ each part on its own


def order_graphs() -> List[Dict[str, Any]]:
    """Graphs for `_topological_order` alone: roots, the nodes not to expand, and the graph (paths of different
    lengths from a node to the root, so that a breadth-first or first-touch order is not topological)."""
    cases = []
    graph = tf.Graph()
    with graph.as_default():
        x1 = tf.placeholder((), name="x1")
        x2 = tf.placeholder((), name="x2")
        f = tf.add(x1, tf.exp(tf.add(tf.multiply(x1, 1.5, name="a"), tf.multiply(x2, 2.0, name="b"), name="s"),
                              name="e"), name="f")
    cases.append({"label": "the lecture's f = x1 + exp(1.5 x1 + 2 x2)", "graph": graph, "roots": [f], "stop": []})
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder((2,), name="x")
        h = x
        for i in range(4):  # a diamond per layer, and a shortcut from x into every layer
            h = tf.add(tf.sigmoid(h, name=f"s{i}"), tf.multiply(h, x, name=f"m{i}"), name=f"h{i}")
        top = tf.add(tf.square(h, name="sq"), tf.reduce_sum(x, name="sum_x"), name="top")
    cases.append({"label": "4 diamonds with x used by every layer", "graph": graph, "roots": [top], "stop": []})
    graph = tf.Graph()
    with graph.as_default():
        u = tf.placeholder((3,), name="u")
        p = tf.exp(tf.multiply(u, 2.0, name="pu"), name="p")
        q = tf.add(p, tf.log(tf.add(tf.square(p, name="pp"), 1.0, name="pp1"), name="lg"), name="q")
        r = tf.multiply(q, p, name="r")
        w = tf.subtract(r, u, name="w")
    cases.append({"label": "two roots [w, q] sharing nodes, p not expanded (fed)", "graph": graph,
                  "roots": [w, q], "stop": ["p"]})
    return cases


@probe("topological_order")
def topological_order(_):
    """The student's `_topological_order(roots, expand)` called alone: the names it lists, in its order."""
    out = []
    for case in order_graphs():
        stop = set(case["stop"])
        roots = case["roots"]
        with case["graph"].as_default():
            order = capture(lambda: [str(getattr(n, "name", n)) for n in list(
                tf._topological_order(list(roots), lambda n: n.name not in stop))[:MAX_REPORTED]])
        out.append({"label": case["label"], "graph": structure(case["graph"]), "roots": [r.name for r in roots],
                    "stop": sorted(stop), "order": order})
    return out


def probe_order(roots: Iterable[Any], expand: Callable[[Any], bool] = lambda n: True) -> List[Any]:
    """The probe's own topological order (inputs before users, each node once, iterative)."""
    order: List[Any] = []
    done: set = set()
    stack = [(r, False) for r in reversed(list(roots))]
    while stack:
        node, inputs_done = stack.pop()
        if inputs_done:
            if node not in done:
                done.add(node)
                order.append(node)
            continue
        if node in done:
            continue
        stack.append((node, True))
        if expand(node):
            stack.extend((i, False) for i in reversed(tuple(tuple.__iter__(node.inputs))) if i not in done)
    return order


def evaluate(graph: Any, nodes: Sequence[Any], feeds: Dict[Any, Any]) -> List[Any]:
    """The values of `nodes` by the probe's own walk and the given `Session._evaluate` (not the student's run)."""
    session = tf.Session(graph, constant_folding=False)
    values: Dict[Any, Any] = {}
    for n in probe_order(nodes):
        if n in feeds:
            values[n] = np.asarray(feeds[n], dtype=np.float64)
        else:
            values[n] = session._evaluate(n, [values[i] for i in tuple.__iter__(n.inputs)])
    return [as_data(values[n]) for n in nodes]


class OrderGiven:
    """While active, the student's `gradients` gets the probe's own topological order (inputs first, the contract)
    from `_topological_order` (in the module and in the globals the student's functions run with), and every
    gradient rule called is recorded by its node's name. Records the orders handed out."""

    def __init__(self) -> None:
        self.orders: List[List[str]] = []
        self.rules: List[str] = []
        self._saved: List[tuple] = []
        self._ops: Dict[str, Any] = {}

    def order(self, roots: Iterable[Any], expand: Callable[[Any], bool] = lambda n: True) -> List[Any]:
        found = probe_order(roots, expand)
        self.orders.append([str(n.name) for n in found][:MAX_REPORTED])
        return found

    def __enter__(self) -> OrderGiven:
        spaces = [vars(tf)]
        student = getattr(tf.gradients, "__globals__", None)
        if isinstance(student, dict) and student is not vars(tf):
            spaces.append(student)
        for space in spaces:
            self._saved.append((space, space.get("_topological_order")))
            space["_topological_order"] = self.order
        self._ops = dict(tf._OPS)
        given = self

        def recorded(rule: Callable) -> Callable:
            def run(node: Any, *args: Any, **kwargs: Any) -> Any:
                if len(given.rules) < MAX_REPORTED:
                    given.rules.append(str(getattr(node, "name", "?")))
                return rule(node, *args, **kwargs)

            return run

        for op_type, opdef in self._ops.items():
            if opdef.grad is not None:
                tf._OPS[op_type] = tf._OpDef(opdef.kernel, recorded(opdef.grad))
        return self

    def __exit__(self, *exc: Any) -> None:
        tf._OPS.clear()
        tf._OPS.update(self._ops)
        for space, saved in reversed(self._saved):
            space["_topological_order"] = saved


def order_check_graphs() -> List[Dict[str, Any]]:
    """Graphs whose gradient needs the reverse order: fan-out at several depths, and several ys each an input of
    the next (a pass that walks the order forwards then applies their rules in the order's direction)."""
    graphs = []
    x1 = tf.placeholder((), name="x1")
    x2 = tf.placeholder((), name="x2")
    f = x1 + tf.exp(x1 * 1.5 + x2 * 2.0)
    graphs.append({"label": "f = x1 + exp(1.5 x1 + 2 x2) at (3, 0.5)", "ys": f, "xs": [x1, x2],
                   "feeds": {x1: 3.0, x2: 0.5}})
    x = tf.placeholder((2,), name="x")
    h = x
    for _ in range(3):
        h = tf.sigmoid(h) + h * x
    y = tf.reduce_sum(tf.square(h))
    graphs.append({"label": "3 diamonds, x used by every layer, at x = (0.3, -0.8)", "ys": y, "xs": [x, h],
                   "feeds": {x: np.array([0.3, -0.8])}})
    t = tf.placeholder((), name="t")
    p = tf.exp(t * 0.5, name="p")
    q = tf.add(p * p, t, name="q")
    r = tf.add(tf.log(q), p, name="r")
    graphs.append({"label": "ys = [p, q, r] with p = exp(t/2), q = p² + t, r = log q + p, at t = 0.7 (each y an "
                            "input of the next)", "ys": [p, q, r], "xs": [t], "feeds": {t: 0.7}})
    return graphs


@probe("gradients_order")
def gradients_order(_):
    """The student's `gradients` handed the probe's own topological order (inputs first, as `_topological_order`
    returns it): the gradient values (run by the probe, not `Session.run`), the orders handed out and the nodes
    whose gradient rules were applied, in call order."""
    graph = tf.Graph()
    out = []
    with graph.as_default():
        cases = order_check_graphs()
    for case in cases:
        row: Dict[str, Any] = {"label": case["label"]}
        with graph.as_default(), OrderGiven() as given:
            grads = capture(lambda: tf.gradients(case["ys"], list(case["xs"])))
        row.update(orders=given.orders[:4], rules=given.rules)
        if isinstance(grads, dict):
            row["values"] = grads
        elif not isinstance(grads, (list, tuple)) or len(grads) != len(case["xs"]):
            row["values"] = {"__error__": {"type": "TypeError", "line": None,
                                           "message": f"gradients returned {type(grads).__name__}"}}
        else:
            nodes = [g for g in grads if isinstance(g, tf.Node)]
            values = capture(lambda: evaluate(graph, nodes, case["feeds"]))
            if isinstance(values, dict):
                row["values"] = values
            else:
                it = iter(values)
                row["values"] = [next(it) if isinstance(g, tf.Node) else None for g in grads]
        out.append(row)
    return out


class RulesCounted:
    """While active, every call of an op's gradient rule (`_OPS[op].grad`) is counted, against a budget."""

    def __init__(self, budget: int):
        self.calls = 0
        self.budget = budget
        self._saved: Optional[Dict[str, Any]] = None

    def __enter__(self) -> RulesCounted:
        ops = dict(tf._OPS)
        counter = self

        def counted(rule: Callable) -> Callable:
            def run(*args: Any, **kwargs: Any) -> Any:
                counter.calls += 1
                if counter.calls > counter.budget:
                    raise WorkBudgetExceeded(f"more than {counter.budget} gradient-rule calls")
                return rule(*args, **kwargs)

            return run

        self._saved = ops
        for op_type, opdef in ops.items():
            if opdef.grad is not None:
                tf._OPS[op_type] = tf._OpDef(opdef.kernel, counted(opdef.grad))
        return self

    def __exit__(self, *exc: Any) -> None:
        tf._OPS.clear()
        tf._OPS.update(self._saved or {})


#: diamond layers of the work probe: the paths from x to y double with each
WORK_LAYERS = (2, 4, 6, 8, 10)
#: gradient-rule calls allowed per graph (the reference makes about 3 per layer)
RULE_BUDGET = 20_000


@probe("gradients_work")
def gradients_work(_):
    """gradients(y, [x]) on diamond chains h' = sigmoid(h) + 0.5·h (2^k paths from x to y through k layers): how
    many gradient rules it calls and how often it uses the nodes' inputs (reverse mode: once per node)."""
    rows = []
    for layers in WORK_LAYERS:
        graph = tf.Graph()
        with graph.as_default():
            x = tf.placeholder((2,), name="x")
            h = x
            for i in range(layers):
                h = tf.add(tf.sigmoid(h, name=f"s{i}"), tf.multiply(h, 0.5, name=f"m{i}"), name=f"h{i}")
            y = tf.reduce_sum(h, name="y")
            nodes = len(graph)
            watch = Watch(budget=50 * RULE_BUDGET)
            watch.instrument(graph)
            row: Dict[str, Any] = {"layers": layers, "nodes": nodes, "paths": 2 ** layers}
            try:
                with RulesCounted(RULE_BUDGET) as rules, watch:
                    grads = capture(lambda: tf.gradients(y, [x]))
            except WorkBudgetExceeded:
                row.update(exceeded=True, rule_calls=rules.calls, uses=watch.uses)
                rows.append(row)
                continue
            row.update(exceeded=False, rule_calls=rules.calls, uses=watch.uses)
            if isinstance(grads, dict):
                row["error"] = grads
            elif layers <= 4 and isinstance(grads, (list, tuple)) and grads and isinstance(grads[0], tf.Node):
                row["gradient"] = capture(lambda: evaluate(graph, [grads[0]], {x: np.array([0.4, -0.7])})[0])
            rows.append(row)
    return rows
