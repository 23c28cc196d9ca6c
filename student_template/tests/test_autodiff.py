r"""Public tests for problem `autodiff`: `topological_sort` and `backpropagate`.

Reverse mode in one line (lecture "Automatic differentiation"): visit the nodes
so that each node is processed only after *every* node that uses it, and hand
each input the adjoint

    v̄ᵢ = Σ_{j ∈ users(i)} v̄ⱼ · ∂vⱼ/∂vᵢ

These tests use Scalars and a tiny `Node` class that implements the Variable
protocol, so they need nothing from the `ops` problem. They accept every
correct answer: any valid reverse topological order (depth-first post-order,
Kahn's algorithm, ...) and any way of summing adjoints.

The hidden grading checks more of the same kinds (random graphs, tensors with
broadcasting, linear work, 10000-deep graphs); see README.md.
"""

import itertools
import math
import sys

import pytest

import minitorch
from minitorch import Scalar

pytestmark = pytest.mark.autodiff

#: ∂f/∂x₁ and ∂f/∂x₂ of the lecture's example f = x₁ + exp(1.5 x₁ + 2 x₂) at (3, 0.5).
SLIDES = (368.0378983963, 489.3838645284)
RTOL = 1e-9

PROTOCOL = "unique_id, is_leaf(), is_constant(), parents, chain_rule(d), accumulate_derivative(d)"


def slides_example(x1, x2):
    """f = x₁ + exp(1.5 x₁ + 2 x₂): x₁ has two users (fan-out)."""
    return x1 + (x1 * 1.5 + x2 * 2.0).exp()


def close(got, expected, rtol=RTOL, atol=1e-12):
    """True when the float `got` is within the tolerances of `expected`."""
    return got is not None and math.isclose(float(got), expected, rel_tol=rtol, abs_tol=atol)


# ---------------------------------------------------------------------------
# A minimal Variable: lets the tests build any DAG and count the work done.
# ---------------------------------------------------------------------------


class WorkBudgetExceeded(Exception):
    """Raised by `Node` when the graph is walked far more often than once per node."""


class Counter:
    """Counts `chain_rule` and `parents` uses over one graph; stops runaway traversals."""

    def __init__(self, budget=10**9):
        self.chain_rule = 0
        self.parents = 0
        self.budget = budget

    def tick(self, what):
        setattr(self, what, getattr(self, what) + 1)
        if self.chain_rule + self.parents > self.budget:
            raise WorkBudgetExceeded(f"{self.chain_rule} chain_rule and {self.parents} parents calls")


class NodeHistory:
    """A Node's `history`, shaped like minitorch's: `last_fn` (None for a leaf), `ctx`, `inputs`.

    Reading `inputs` counts as a use of `parents` (minitorch's `parents` is `history.inputs`).
    """

    def __init__(self, node):
        self._node = node
        self.last_fn = None if node.is_leaf() else "f"
        self.ctx = None

    @property
    def inputs(self):
        self._node._counter.tick("parents")
        return tuple(p for p, _ in self._node._inputs)


class Node:
    """A graph node that implements the Variable protocol, with a `history` like minitorch's variables.

    `Node(counter)` is a leaf, `Node(counter, constant=True)` a constant (its
    `history` is None, like a minitorch constant's), and
    `Node(counter, [(parent, local_derivative), ...])` the output of a function
    whose local derivatives are the given numbers.
    """

    _ids = itertools.count(1)

    def __init__(self, counter, inputs=(), constant=False, name=""):
        self._id = next(Node._ids)
        self._inputs = list(inputs)
        self._constant = constant
        self._counter = counter
        self.name = name or f"n{self._id}"
        self.derivative = None
        self.history = None if constant else NodeHistory(self)

    def __repr__(self):
        return self.name

    @property
    def unique_id(self):
        return self._id

    def is_leaf(self):
        return not self._constant and not self._inputs

    def is_constant(self):
        return self._constant

    @property
    def parents(self):
        assert not self._constant, \
            f"asked a constant ({self.name}) for its parents: skip nodes where is_constant() is True"
        self._counter.tick("parents")
        return [p for p, _ in self._inputs]

    def chain_rule(self, d_output):
        assert not self._constant, \
            f"asked a constant ({self.name}) for its chain rule: skip nodes where is_constant() is True"
        assert self._inputs, f"asked a leaf ({self.name}) for its chain rule: call accumulate_derivative on leaves"
        self._counter.tick("chain_rule")
        return [(p, d_output * local) for p, local in self._inputs]

    def accumulate_derivative(self, x):
        assert self.is_leaf(), f"accumulate_derivative on {self.name}, which is not a leaf"
        self.derivative = (self.derivative or 0.0) + float(x)


def protocol_call(fn, *args):
    """Run `fn(*args)` on Nodes, explaining an AttributeError (an attribute Variables do not share)."""
    try:
        return fn(*args)
    except AttributeError as exc:
        raise AssertionError(
            f"{fn.__name__} used an attribute that Variables do not all have ({exc}). "
            f"Use {PROTOCOL} (or `history`): the same code must differentiate Scalars, Tensors and any other Variable."
        ) from exc


def backward(output):
    """`output.backward()`, explaining minitorch's own bare assertions (see `explained`)."""
    explained(output.backward)


def explained(fn, *args):
    """`fn(*args)`, explaining minitorch's own bare assertions (a constant or a leaf used wrongly)."""
    try:
        return fn(*args)
    except AssertionError as exc:
        if str(exc):
            raise
        raise AssertionError(
            "backward() tripped an assertion inside minitorch: a constant was asked for its parents or "
            "chain_rule, or a leaf for its chain_rule. Skip nodes where is_constant() is True; for a leaf "
            "(is_leaf()), call accumulate_derivative instead of chain_rule"
        ) from exc


def diamond_graph(counter, layers):
    """x → (a = 2·x, b = 0.5·x) → x' = a + b, repeated: the path count doubles per layer.

    Returns (output, leaf, the non-constant nodes). ∂out/∂x = 2.5 ** layers.
    """
    x = Node(counter, name="x")
    nodes = [x]
    top = x
    for k in range(layers):
        a = Node(counter, [(top, 2.0)], name=f"a{k}")
        b = Node(counter, [(top, 0.5)], name=f"b{k}")
        top = Node(counter, [(a, 1.0), (b, 1.0)], name=f"s{k}")
        nodes += [a, b, top]
    return top, x, nodes


def reachable(output):
    """Every non-constant node reachable from `output` (iterative, uses the private fields)."""
    seen, stack = {}, [output]
    while stack:
        node = stack.pop()
        if node.unique_id in seen or node.is_constant():
            continue
        seen[node.unique_id] = node
        stack.extend(node.history.inputs if isinstance(node, Scalar) else [p for p, _ in node._inputs])
    return seen


def parents_of(node):
    """The inputs of `node` without going through the (counted) protocol."""
    if isinstance(node, Scalar):
        return list(node.history.inputs) if node.history is not None else []
    return [p for p, _ in node._inputs]


def first_misplaced(order):
    """(i, j): the first node #i of `order` with a parent listed earlier, at #j; None when there is none."""
    position = {v.unique_id: i for i, v in enumerate(order)}
    for i, node in enumerate(order):
        for parent in parents_of(node):
            if not parent.is_constant() and position.get(parent.unique_id, i + 1) < i:
                return i, position[parent.unique_id]
    return None


#: the diagnosis of an order that is valid once reversed (a post-order, not reversed)
LEAVES_FIRST = (
    "topological_sort returned the leaves first: reverse-mode needs the output first (reverse topological "
    "order), each node before its parents, so that a node's adjoint is complete before it is passed on — "
    "reverse your post-order"
)


def check_reverse_topological(order, output):
    """Assert that `order` is a valid answer of topological_sort(output) (any valid order passes)."""
    order = list(order)
    expected = reachable(output)
    assert order, "topological_sort returned nothing: it must list every non-constant node, the output first"
    constants = [v for v in order if v.is_constant()]
    assert not constants, (
        "topological_sort listed constants: constants need no derivative, leave them out (skip nodes where "
        f"is_constant() is True) — {len(constants)} constant(s) listed"
    )
    ids = [v.unique_id for v in order]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    assert not duplicates, (
        "topological_sort listed a node more than once: mark nodes as visited (by unique_id) so a node "
        f"reached along several paths is listed once — {len(duplicates)} node(s) listed twice or more"
    )
    missing = set(expected) - set(ids)
    assert not missing, (
        "topological_sort missed nodes: every node reachable from the output (leaves included) must be "
        f"listed once — {len(missing)} of the {len(expected)} non-constant nodes are missing"
    )
    extra = set(ids) - set(expected)
    assert not extra, (
        f"topological_sort listed nodes that are not in the graph of the output — {len(extra)} of them"
    )
    misplaced = first_misplaced(order)
    assert misplaced is None or first_misplaced(order[::-1]) is not None, LEAVES_FIRST
    assert order[0].unique_id == output.unique_id, (
        "topological_sort must start with the output variable (nobody uses it, so its adjoint is final first)"
    )
    if misplaced is not None:
        i, j = misplaced
        raise AssertionError(
            "every node must come before its parents (reverse topological order), so that a node's adjoint "
            f"is complete — all its users have reported — before it is passed on: node #{i} in your order has "
            f"a parent listed earlier, at #{j}"
        )


def order_diagnosis(output):
    """What is wrong with topological_sort(output), in the lecture's words; None when it is a valid order
    (or when it raised: the backward pass then reports that itself)."""
    try:
        order = list(minitorch.topological_sort(output))
    except Exception:
        return None
    try:
        check_reverse_topological(order, output)
    except AssertionError as exc:
        return str(exc).split("\nassert ")[0]  # the message, without pytest's explanation of the assert
    return None


# ---------------------------------------------------------------------------
# The lecture's example and fan-out
# ---------------------------------------------------------------------------


def test_slides_example():
    """The lecture's worked example: f = x₁ + exp(1.5x₁ + 2x₂) at x₁ = 3, x₂ = 0.5."""
    x1, x2 = Scalar(3.0), Scalar(0.5)
    f = slides_example(x1, x2)
    wrong_order = order_diagnosis(f)  # a wrong order explains wrong derivatives better than their values
    try:
        backward(f)
    except Exception as exc:
        if wrong_order is None:
            raise
        raise AssertionError(f"{wrong_order} (backward() then raised {type(exc).__name__}: {exc})") from exc
    d1, d2 = x1.derivative, x2.derivative
    expected = f"expected ∂f/∂x₁ = {SLIDES[0]:.10g}, ∂f/∂x₂ = {SLIDES[1]:.10g}"
    if wrong_order is not None and not (close(d1, SLIDES[0]) and close(d2, SLIDES[1])):
        raise AssertionError(f"{wrong_order} — with that order ∂f/∂x₁ = {d1}, ∂f/∂x₂ = {d2}, {expected}")
    for name, leaf in (("x₁", x1), ("x₂", x2)):
        assert leaf.derivative is not None, (
            f"backpropagate must give every leaf its adjoint through leaf.accumulate_derivative(d) — "
            f"{name}.derivative is None"
        )
    if close(d1, 1.0):
        why = ("a node's adjoint must wait for all its users — process nodes in reverse topological "
               "order (x₁ was finished after its first user, the final +, before 1.5·x₁ reported back)")
    elif close(d1, SLIDES[0] - 1.0):
        why = ("x₁ has two users (the final + and 1.5·x₁) and only the last one counted: "
               "sum (+=) the contributions of all users, do not overwrite")
    else:
        why = "the adjoint of a node is the SUM over its users j of v̄ⱼ · ∂vⱼ/∂vᵢ"
    assert close(d1, SLIDES[0]), f"{why} — ∂f/∂x₁ = {d1}, expected {SLIDES[0]:.10g}"
    assert close(d2, SLIDES[1]), (
        "x₂ reaches f through 2·x₂, the +, and exp: multiply the local derivatives along the path (chain rule) "
        f"— ∂f/∂x₂ = {d2}, expected {SLIDES[1]:.10g}"
    )


def test_fan_out_sums_adjoints():
    """y = (x·x)·x at x = 2 uses x three times: dy/dx = 3x² = 12."""
    x = Scalar(2.0)
    backward((x * x) * x)
    got = x.derivative
    assert close(got, 12.0), (
        "x has three uses (fan-out): its adjoint is the SUM of what every use contributes — accumulate (+=) "
        "adjoints keyed by unique_id, also when chain_rule returns the same variable twice — "
        f"dy/dx = {got}, expected 12.0 for y = x·x·x at x = 2"
    )


def test_deriv_argument_scales_every_derivative():
    """backpropagate(variable, deriv) starts from ∂out/∂variable = deriv, not 1."""
    x1, x2 = Scalar(3.0), Scalar(0.5)
    f = slides_example(x1, x2)
    explained(minitorch.backpropagate, f, 2.0)
    got = (x1.derivative, x2.derivative)
    assert close(got[0], 2 * SLIDES[0]) and close(got[1], 2 * SLIDES[1]), (
        "the output's adjoint is `deriv` (the seed of the backward pass), everything scales with it — "
        f"backpropagate(f, 2.0) gave {got}, expected {(2 * SLIDES[0], 2 * SLIDES[1])}"
    )


def test_two_backward_calls_accumulate():
    """Leaves accumulate: a second backward() adds the same derivatives again."""
    x1, x2 = Scalar(3.0), Scalar(0.5)
    f = slides_example(x1, x2)
    backward(f)
    backward(f)
    got = (x1.derivative, x2.derivative)
    assert close(got[0], 2 * SLIDES[0]) and close(got[1], 2 * SLIDES[1]), (
        "leaves accumulate across backward passes: write results only through leaf.accumulate_derivative(d), "
        "which adds; keep the adjoints of one pass in a fresh dict (do not store them on the nodes between "
        f"passes) — after two backward() calls the derivatives are {got}, expected twice the slides' values"
    )


# ---------------------------------------------------------------------------
# topological_sort: checked as a property, any valid order passes
# ---------------------------------------------------------------------------


def test_topological_order_on_scalars():
    """Output first, every node before its parents, each non-constant node once, no constants."""
    x1, x2 = Scalar(3.0), Scalar(0.5)
    c = Scalar(4.0, None)  # a constant used twice
    f = slides_example(x1, x2) * c + c * x2
    check_reverse_topological(minitorch.topological_sort(f), f)


def test_topological_order_on_a_dag():
    """A DAG with shared sub-expressions, several leaves and a constant (any valid order passes)."""
    counter = Counter()
    x, y = Node(counter, name="x"), Node(counter, name="y")
    k = Node(counter, constant=True, name="k")
    a = Node(counter, [(x, 1.0), (y, 2.0)], name="a")
    c = Node(counter, [(a, -1.0), (x, 0.5)], name="c")
    b = Node(counter, [(c, 3.0), (k, 1.0)], name="b")
    e = Node(counter, [(a, 1.5), (y, 1.0)], name="e")
    d = Node(counter, [(b, 1.0), (a, 2.0), (e, 1.0)], name="d")  # a is reached directly and via b → c
    order = protocol_call(minitorch.topological_sort, d)
    check_reverse_topological(order, d)


# ---------------------------------------------------------------------------
# Constants, deep graphs, linear work
# ---------------------------------------------------------------------------


def test_constants_are_skipped():
    """Constants have no history: no parents, no chain_rule, no derivative."""
    x = Scalar(2.0)
    c = Scalar(5.0, None)
    y = (x * c + c).log()
    try:
        y.backward()
    except AssertionError as exc:
        raise AssertionError(
            f"backward() failed on a graph with a constant ({exc or 'an assertion inside minitorch'}): "
            "constants have no history — skip every node where is_constant() is True (never ask it for "
            "parents, chain_rule or accumulate_derivative)"
        ) from exc
    assert c.derivative is None, (
        f"skip nodes where is_constant() is True — the constant got derivative {c.derivative}"
    )
    assert close(x.derivative, 5.0 / 15.0), (
        "wrong derivative through a constant factor (chain rule through log and 5·x) — "
        f"dy/dx = {x.derivative}, expected {5.0 / 15.0} for y = log(5x + 5) at x = 2"
    )

    counter = Counter()
    leaf, k = Node(counter, name="x"), Node(counter, constant=True, name="k")
    out = Node(counter, [(Node(counter, [(leaf, 3.0), (k, 1.0)]), 2.0), (k, 4.0)], name="out")
    try:
        protocol_call(minitorch.backpropagate, out, 1.0)
    except AssertionError as exc:
        raise AssertionError(
            f"backpropagate touched a constant ({exc}): chain_rule returns pairs for constants too; "
            "skip the ones where is_constant() is True"
        ) from exc
    assert k.derivative is None and close(leaf.derivative, 6.0), (
        "a constant gets no derivative and the leaf gets the product of the local derivatives — "
        f"leaf derivative {leaf.derivative} (expected 6.0), constant derivative {k.derivative} (expected None)"
    )


@pytest.fixture
def default_recursion_limit():
    """Run the test at Python's default recursion limit (1000), whatever the process had set."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    yield 1000
    sys.setrecursionlimit(old)


def test_deep_chain_3000(default_recursion_limit):
    """A chain of 3000 operations (6000 nodes), deeper than Python's recursion limit."""
    x = Scalar(0.5)
    y = x
    for _ in range(3000):
        y = y * 1.0 + 0.0
    try:
        backward(y)
    except RecursionError as exc:
        raise AssertionError(
            "RecursionError on a 3000-deep chain: Python allows about 1000 nested calls and a recursive "
            "depth-first search nests one call per node — keep your own stack (a list) in "
            "topological_sort, or use Kahn's algorithm"
        ) from exc
    assert close(x.derivative, 1.0), (
        "on a deep chain every link must pass its adjoint on (local derivative 1) — "
        f"dy/dx = {x.derivative} on the chain y = x·1 + 0 (3000 times), expected 1.0"
    )


def test_linear_work_on_diamonds():
    """30 diamonds in a row: 2³⁰ paths but only 91 nodes. Each node must be processed once."""
    layers = 30
    counter = Counter()
    out, x, nodes = diamond_graph(counter, layers)
    counter.budget = 10 * len(nodes)
    try:
        protocol_call(minitorch.backpropagate, out, 1.0)
    except WorkBudgetExceeded as exc:
        raise AssertionError(
            "backpropagate walks every path instead of every node: process each node once, after summing its "
            f"adjoint, instead of recursing along every path — it used chain_rule/parents more than "
            f"{counter.budget} times ({exc}) on a graph of {len(nodes)} nodes whose path count doubles per layer "
            f"(2^{layers} paths)"
        ) from exc
    non_leaves = len(nodes) - 1
    assert counter.chain_rule <= 2 * non_leaves, (
        "call chain_rule once per node, with the node's complete (summed) adjoint — "
        f"it was called {counter.chain_rule} times for {non_leaves} non-leaf nodes"
    )
    expected = 2.5**layers
    assert close(x.derivative, expected), (
        "the two branches' adjoints must be summed at their shared input (each diamond multiplies by 2 + 0.5) "
        f"— ∂out/∂x = {x.derivative}, expected 2.5^{layers} = {expected:.6g}"
    )
