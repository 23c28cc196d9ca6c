"""Instrumented computation graphs for the `autodiff` probes (child side).

`Node` satisfies the framework's Variable protocol (`unique_id`, `is_leaf`,
`is_constant`, `parents`, `chain_rule`, `accumulate_derivative`, `history`) and
counts every use in a `Counter`; the families (`chain`, `diamond_chain`,
`random_dag`, `layered_dag`) build graphs whose shape the judges know.
`count_graph_uses` instruments the graph of a framework variable (Scalar,
Tensor) the same way. Nothing here knows an expected value.
"""

from __future__ import annotations

import random
from typing import Any, Dict, List, Optional, Sequence, Tuple

from probekit import WorkBudgetExceeded, expose, note_depth


class Counter:
    """Counts uses of the Variable protocol on instrumented nodes.

    With `record=True` it also keeps, in call order, the first `RECORDED` calls of
    `chain_rule(d)` as `(unique_id, d)`: the order in which a backward pass processed
    the nodes and the adjoint each one had at that moment (evidence for a judge).
    """

    RECORDED = 1000

    def __init__(self, budget: Optional[int] = None, record: bool = False):
        self.chain_rule = 0
        self.parents = 0
        self.accumulate = 0
        self.touched_constants: List[str] = []
        self.budget = budget
        self.calls: Optional[List[Tuple[int, Any]]] = [] if record else None

    def tick(self, what: str) -> None:
        setattr(self, what, getattr(self, what) + 1)
        note_depth()  # the stack's depth, while a probe watches it (probekit.watching_depth)
        if self.budget is not None and self.chain_rule + self.parents > self.budget:
            raise WorkBudgetExceeded(f"more than {self.budget} uses of chain_rule/parents")

    def as_dict(self) -> Dict[str, int]:
        return {"chain_rule": self.chain_rule, "parents": self.parents, "accumulate": self.accumulate}


class NodeFunction:
    """Stands in for the Function class in an interior Node's `history.last_fn`.

    Like the framework's `Function._backward(ctx, d)`, it returns one local
    vector-Jacobian product per input: $d \\cdot w_i$ (the weights are in `ctx`).
    """

    @staticmethod
    def _backward(ctx: NodeContext, d_output: Any) -> Tuple[Any, ...]:
        return tuple(d_output * w for w in ctx.saved_values)


class NodeContext:
    """An interior Node's `history.ctx`: its local derivatives as `saved_values`."""

    def __init__(self, weights: Sequence[float]):
        self.no_grad = False
        self.saved_values = tuple(weights)

    @property
    def saved_tensors(self) -> Tuple[float, ...]:
        return self.saved_values


class NodeHistory:
    """A Node's `history`, shaped like the framework's `History`/`ScalarHistory`.

    A leaf's history has `last_fn = ctx = None` and no inputs; an interior node's
    has `last_fn`, `ctx` and `inputs`. Reading `inputs` is counted as a use of
    `parents` (the framework's `parents` is `history.inputs`), so code that walks
    `v.history.inputs` is measured like code that uses `v.parents`.
    """

    __slots__ = ("_node",)

    def __init__(self, node: Node):
        self._node = node

    @property
    def last_fn(self) -> Optional[type]:
        return NodeFunction if self._node._inputs else None

    @property
    def ctx(self) -> Optional[NodeContext]:
        return NodeContext(self._node._weights) if self._node._inputs else None

    @property
    def inputs(self) -> Tuple[Node, ...]:
        self._node.counter.tick("parents")
        return tuple(self._node._inputs)


class ChainHistory(NodeHistory):
    """A ChainNode's history. A ChainNode's `history` is fetched once and kept in the student's process, and the
    history's `inputs` and `last_fn` travel with it (see the exposures below): code that walks `v.history.inputs`
    down a chain of 10000 nodes, as the course's Scalar invites, makes one request per node, not one per
    attribute read (it took 8 s where `parents` takes 0.5)."""

    __slots__ = ()


class Node:
    """A computation-graph node satisfying the Variable protocol, with counters.

    Mirrors the framework where student code touches it: a constant has no
    history (`history is None`; its `parents` and `chain_rule` fail, and it refuses
    derivatives); a leaf has a history without `last_fn`, no parents, and
    accumulates with `+=`; interior nodes have a history (`last_fn`, `ctx`,
    `inputs`) and fixed local derivatives $\\partial v / \\partial p_i = w_i$.

    In the student's process a Node is a proxy (graders/child/remote.py; what it shows is declared below the
    classes): the course's Variable protocol and nothing else (never `counter`).
    """

    #: the class of its history
    _history_kind: type = NodeHistory

    def __init__(
        self,
        uid: int,
        inputs: Sequence[Node] = (),
        weights: Sequence[float] = (),
        constant: bool = False,
        counter: Optional[Counter] = None,
    ):
        self._uid = uid
        self._inputs = list(inputs)
        self._weights = [float(w) for w in weights]
        self._constant = constant
        self.counter = counter if counter is not None else Counter()
        self.derivative: Optional[float] = None
        self.history: Optional[NodeHistory] = None if constant else self._history_kind(self)

    def requires_grad(self) -> bool:
        return self.history is not None

    @property
    def unique_id(self) -> int:
        return self._uid

    def is_leaf(self) -> bool:
        return not self._constant and not self._inputs

    def is_constant(self) -> bool:
        return self._constant

    @property
    def parents(self) -> List[Node]:
        if self._constant:
            self.counter.touched_constants.append("parents")
            raise AssertionError("a constant has no history: it has no parents")
        self.counter.tick("parents")
        return list(self._inputs)

    def chain_rule(self, d_output: Any) -> List[Tuple[Node, Any]]:
        if self._constant:
            self.counter.touched_constants.append("chain_rule")
            raise AssertionError("a constant has no history: chain_rule is undefined")
        assert self._inputs, "chain_rule called on a leaf"
        self.counter.tick("chain_rule")
        calls = self.counter.calls
        if calls is not None and len(calls) < Counter.RECORDED:
            calls.append((self._uid, d_output))
        return [(p, d_output * w) for p, w in zip(self._inputs, self._weights)]

    def accumulate_derivative(self, x: Any) -> None:
        if not self.is_leaf():
            if self._constant:
                self.counter.touched_constants.append("accumulate_derivative")
            raise AssertionError("Only leaf variables can have derivatives.")
        self.counter.accumulate += 1
        self.derivative = (self.derivative or 0.0) + float(x)

    def __repr__(self) -> str:
        return f"Node({self._uid})"


class ChainNode(Node):
    """A Node of the deep chains: in the student's process its parents and its local derivatives travel with it
    (`parents` and `chain_rule` answered there), so a chain of 10000 nodes costs no request per node; only
    the leaf's `accumulate_derivative` comes back, where the derivative is judged."""

    _history_kind = ChainHistory

    @property
    def weights(self) -> List[float]:
        return list(self._weights)


#: what the student's process may use of the graphs' objects (graders/child/remote.py): the course's Variable
#: protocol, its history (`last_fn`, `ctx`, `inputs`) and the Function's `_backward`; `unique_id`, `is_leaf()`,
#: `is_constant()` and `requires_grad()` never change, so they are answered there without a request, and `history`
#: neither: fetched once, kept there (a history's `inputs` are read with a request each: they are counted as uses
#: of `parents`, except on the deep chains, which count nothing)
_PROTOCOL = ("unique_id", "is_leaf", "is_constant", "parents", "chain_rule", "accumulate_derivative", "history",
             "derivative", "requires_grad")
expose(Node, _PROTOCOL, static=("unique_id",), pure=("is_leaf", "is_constant", "requires_grad"),
       writable=("derivative",), kept=("history",))
expose(ChainNode, _PROTOCOL, static=("unique_id", "parents", "weights"), kept=("history",),
       pure=("is_leaf", "is_constant", "requires_grad"), writable=("derivative",),
       linear=("chain_rule", "parents", "weights"))
expose(NodeHistory, ("last_fn", "ctx", "inputs"))
expose(ChainHistory, ("last_fn", "ctx", "inputs"), static=("last_fn", "inputs"))
expose(NodeContext, ("no_grad", "saved_values", "saved_tensors"), static=("no_grad", "saved_values", "saved_tensors"))
expose(NodeFunction, ("_backward",))


class Graph:
    """A DAG of Nodes built by a family generator; ids increase in creation order."""

    def __init__(self, counter: Optional[Counter] = None, id_start: int = 1000, kind: type = Node):
        self.counter = counter or Counter()
        self.nodes: List[Node] = []
        self._next = id_start
        self._kind = kind

    def _new(self, inputs=(), weights=(), constant=False) -> Node:
        self._next += 7
        node = self._kind(self._next, inputs, weights, constant, self.counter)
        self.nodes.append(node)
        return node

    def leaf(self) -> Node:
        return self._new()

    def constant(self) -> Node:
        return self._new(constant=True)

    def op(self, inputs: Sequence[Node], weights: Sequence[float]) -> Node:
        return self._new(inputs, weights)

    def index(self, node: Node) -> int:
        return self.nodes.index(node)

    def edges(self) -> List[List[int]]:
        """For each node (by creation index), the creation indices of its inputs."""
        where = {id(n): i for i, n in enumerate(self.nodes)}
        return [[where[id(p)] for p in n._inputs] for n in self.nodes]

    def constants(self) -> List[int]:
        return [i for i, n in enumerate(self.nodes) if n.is_constant()]

    def leaves(self) -> List[Node]:
        return [n for n in self.nodes if n.is_leaf()]


def chain(depth: int, counter: Optional[Counter] = None,
          rng: Optional[random.Random] = None) -> Tuple[Graph, Node, Node]:
    """x -> v1 -> v2 -> ... -> v_depth (depth interior ChainNodes) with local derivative 1, or with `rng` a random
    one each, ±(1 ± 0.001) (the input's derivative is their product: only a pass through every node gets it)."""
    g = Graph(counter, kind=ChainNode)
    x = g.leaf()
    v = x
    for _ in range(depth):
        v = g.op([v], [rng.choice((-1.0, 1.0)) * rng.uniform(0.999, 1.001) if rng is not None else 1.0])
    return g, x, v


def diamond_chain(layers: int, counter: Optional[Counter] = None) -> Tuple[Graph, Node, Node]:
    """Each layer splits v into a and b and joins them: v' = f(a(v), b(v)).

    The number of paths from the output to the input doubles with every layer,
    while the node count grows by 3.
    """
    g = Graph(counter)
    x = g.leaf()
    v = x
    for i in range(layers):
        a = g.op([v], [0.5])
        b = g.op([v], [0.25 + 0.001 * i])
        v = g.op([a, b], [1.0, 2.0])
    return g, x, v


def random_dag(
    rng: random.Random,
    n_leaves: int,
    n_ops: int,
    n_constants: int = 0,
    max_fan_in: int = 3,
    counter: Optional[Counter] = None,
) -> Tuple[Graph, Node]:
    """A random DAG with reuse (fan-out), constants feeding ops, and one output."""
    g = Graph(counter)
    pool: List[Node] = [g.leaf() for _ in range(n_leaves)]
    consts = [g.constant() for _ in range(n_constants)]
    for _ in range(n_ops):
        k = rng.randint(1, max_fan_in)
        inputs = [rng.choice(pool[-8:] if rng.random() < 0.6 else pool) for _ in range(k)]
        if consts and rng.random() < 0.4:
            inputs.append(rng.choice(consts))
        weights = [round(rng.uniform(-2.0, 2.0), 3) for _ in inputs]
        pool.append(g.op(inputs, weights))
    tops = pool[-3:]
    # every leaf reaches the output (a leaf nothing uses would have no derivative: an expected None checks nothing)
    unused = [leaf for leaf in pool[:n_leaves] if leaf not in _ancestors(tops)]
    out = g.op(tops + unused, [1.0, 0.5, 0.25][: len(tops)] + [0.75] * len(unused))
    return g, out


def _ancestors(nodes: Sequence[Node]) -> List[Node]:
    """Every node `nodes` depend on (themselves included), without counting a use."""
    seen: Dict[int, Node] = {}
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen[id(node)] = node
            stack.extend(node._inputs)
    return list(seen.values())


def layered_dag(n: int, rng: random.Random, depth: int = 40, counter: Optional[Counter] = None) -> Tuple[Graph, Node]:
    """About n nodes in `depth` layers, each using two nodes of the layer below (for timing); every node
    reaches the output.

    Shallow on purpose: a recursive traversal survives it, so the timing test measures
    time complexity only (deep graphs are the recursion tests' business).
    """
    g = Graph(counter)
    width = max(2, n // depth)
    layer = [g.leaf() for _ in range(width)]
    for _ in range(depth - 1):  # node j uses node j of the layer below (so every node reaches the output) and another
        layer = [g.op([below, rng.choice(layer)], [0.5, 0.5]) for below in layer]
    out = g.op(layer, [1.0] * len(layer))
    return g, out


# ------------------------------------------------- the framework's own variables


_COUNTED_CLASSES: Dict[type, type] = {}


def _counted_class(cls: type) -> Optional[type]:
    """A subclass of a history class whose `inputs` is a counting property (None if it cannot be made)."""
    if cls not in _COUNTED_CLASSES:

        def inputs(self: Any) -> Any:
            state = object.__getattribute__(self, "__dict__")
            state["_counter"].tick("parents")
            return state["_inputs"]

        try:
            _COUNTED_CLASSES[cls] = type(f"Counted{cls.__name__}", (cls,), {"inputs": property(inputs)})
        except TypeError:  # a final or tuple-like history class
            _COUNTED_CLASSES[cls] = None  # type: ignore[assignment]
    return _COUNTED_CLASSES[cls]


class _CountedHistory:
    """Duck-typed counting history, for a history class that cannot be subclassed."""

    def __init__(self, history: Any, counter: Counter):
        self.last_fn = getattr(history, "last_fn", None)
        self.ctx = getattr(history, "ctx", None)
        self._inputs = history.inputs
        self._counter = counter

    @property
    def inputs(self) -> Any:
        self._counter.tick("parents")
        return self._inputs


def counted_history(history: Any, counter: Counter) -> Any:
    """A copy of a framework variable's `history` in which every read of `inputs` ticks `counter`.

    The copy is an instance of a subclass of the history's own class (so
    `isinstance` and `last_fn`/`ctx` behave as before); the framework's `parents`
    and `chain_rule` read `history.inputs` too, so every way of walking the graph
    is counted as a `parents` use.
    """
    sub = _counted_class(type(history))
    if sub is None:
        return _CountedHistory(history, counter)
    copy = object.__new__(sub)
    state = dict(getattr(history, "__dict__", {}))
    for name in ("last_fn", "ctx"):
        state.setdefault(name, getattr(history, name, None))
    inputs = state.pop("inputs", getattr(history, "inputs", ()))
    for name, value in state.items():
        object.__setattr__(copy, name, value)
    object.__getattribute__(copy, "__dict__").update(_inputs=inputs, _counter=counter)
    return copy


def count_graph_uses(output: Any, counter: Counter) -> List[Any]:
    """Instrument the graph of a framework variable (Scalar, Tensor): count every read of `history.inputs`.

    Walks the graph from `output` once (before instrumenting, so the walk itself is
    not counted) and gives each non-constant variable a counting history. Returns
    the variables reached, constants excluded.
    """
    seen, found, stack = set(), [], [output]
    while stack:
        v = stack.pop()
        if id(v) in seen or v.history is None:
            continue
        seen.add(id(v))
        found.append(v)
        stack.extend(v.history.inputs)
    for v in found:
        v.history = counted_history(v.history, counter)
    return found
