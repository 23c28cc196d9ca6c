"""A student whose gradients() passes a node's adjoint on at its first user only (a visited set on the reverse pass): right where x itself has several users, wrong one node further (x -> h, h used twice)."""

from __future__ import annotations

EXPECT = "gradients-not-summed"

import contextlib
import functools
import types
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy as np

Shape = Optional[Tuple[Optional[int], ...]]  # None: unknown rank; None entry: unknown dim


# Errors (TF1 names) ----------------------------------------------------------


class OpError(Exception):
    """An error raised while running a graph; `node` is the node at fault (if any)."""

    def __init__(self, message: str, node: Optional["Node"] = None):
        super().__init__(message)
        self.node = node


class InvalidArgumentError(OpError):
    """A needed placeholder was not fed, or an op received values it cannot use."""


class FailedPreconditionError(OpError):
    """A variable was read before it was initialized."""


errors = types.SimpleNamespace(
    OpError=OpError,
    InvalidArgumentError=InvalidArgumentError,
    FailedPreconditionError=FailedPreconditionError,
)


# Shapes ------------------------------------------------------------------------


def _shape_str(shape: Shape) -> str:
    if shape is None:
        return "<unknown>"
    dims = ", ".join("None" if d is None else str(d) for d in shape)
    return f"({dims},)" if len(shape) == 1 else f"({dims})"


def _normalize_shape(shape: Any) -> Shape:
    if shape is None:
        return None
    if isinstance(shape, int):
        shape = (shape,)
    out = []
    for d in shape:
        if d is None or (isinstance(d, int) and d < 0):
            out.append(None)
        else:
            out.append(int(d))
    return tuple(out)


def _compatible(static: Shape, actual: Tuple[int, ...]) -> bool:
    """True if a concrete shape fits a static shape (None matches anything)."""
    if static is None:
        return True
    return len(static) == len(actual) and all(s is None or s == a for s, a in zip(static, actual))


def _fully_known(shape: Shape) -> bool:
    return shape is not None and all(d is not None for d in shape)


def _broadcast_static(a: Shape, b: Shape, what: str) -> Shape:
    """numpy broadcasting on static shapes; raises ValueError on a certain mismatch."""
    if a is None or b is None:
        return None
    n = max(len(a), len(b))
    a2 = (1,) * (n - len(a)) + a
    b2 = (1,) * (n - len(b)) + b
    out: List[Optional[int]] = []
    for x, y in zip(a2, b2):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None:
            out.append(y)
        elif y is None or x == y:
            out.append(x)
        else:
            raise ValueError(
                f"{what}: shapes {_shape_str(a)} and {_shape_str(b)} cannot be broadcast "
                f"(dimension {x} vs {y})"
            )
    return tuple(out)


def _sum_to_shape(g: np.ndarray, shape: Tuple[int, ...]) -> np.ndarray:
    r"""Undo broadcasting: sum `g` over the axes along which an input of `shape` was broadcast.

    If $z = x \oplus y$ broadcasts $x$, then $\bar x_i = \sum_{j \,:\, j \mapsto i} \bar z_j$:
    sum over the extra leading axes, then (keeping dims) over the axes where $x$ has size 1.
    """
    if g.shape == tuple(shape):
        return g
    lead = g.ndim - len(shape)
    if lead > 0:
        g = g.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)


# Graphs -------------------------------------------------------------------------


class Graph:
    """A container of nodes. Nodes are appended in creation order, which is a
    topological order (a node's inputs always exist before it).

    Use `with Graph().as_default():` to build into a fresh graph; module-level
    builders (`placeholder`, `add`, ...) use `get_default_graph()`.
    """

    def __init__(self) -> None:
        self._nodes: List[Node] = []
        self._by_name: Dict[str, Node] = {}
        self._name_counts: Dict[str, int] = {}
        self._scopes: List[str] = []
        self._variables: List["Variable"] = []
        self._trainable: List["Variable"] = []

    # naming
    def _unique_name(self, base: str) -> str:
        base = "/".join(self._scopes + [base])
        if base not in self._by_name and base not in self._name_counts:
            self._name_counts[base] = 0
            return base
        while True:
            self._name_counts[base] = self._name_counts.get(base, 0) + 1
            candidate = f"{base}_{self._name_counts[base]}"
            if candidate not in self._by_name:
                return candidate

    @contextlib.contextmanager
    def name_scope(self, name: str) -> Iterator[None]:
        """Prefix the names of the nodes created inside with `name/`."""
        self._scopes.append(name)
        try:
            yield
        finally:
            self._scopes.pop()

    @contextlib.contextmanager
    def _absolute_scope(self, name: str) -> Iterator[None]:
        """Name nodes `name/...` whatever the enclosing scopes (`name` is already scoped)."""
        saved, self._scopes = self._scopes, [name]
        try:
            yield
        finally:
            self._scopes = saved

    def _register(self, node: "Node") -> None:
        self._nodes.append(node)
        self._by_name[node.name] = node

    @contextlib.contextmanager
    def as_default(self) -> Iterator["Graph"]:
        """Make this graph the default one inside the `with` block."""
        _graph_stack.append(self)
        try:
            yield self
        finally:
            _graph_stack.pop()

    # inspection
    def get_operations(self) -> List["Node"]:
        """All nodes in creation (topological) order."""
        return list(self._nodes)

    def get_node(self, name: str) -> "Node":
        """The node called `name` (a TF-style `"name:0"` is accepted)."""
        key = name[:-2] if name.endswith(":0") else name
        try:
            return self._by_name[key]
        except KeyError:
            raise KeyError(f"The graph has no node named '{key}'") from None

    get_tensor_by_name = get_node

    def global_variables(self) -> List["Variable"]:
        return list(self._variables)

    def trainable_variables(self) -> List["Variable"]:
        return list(self._trainable)

    def __len__(self) -> int:
        return len(self._nodes)

    def __bool__(self) -> bool:  # an empty graph is still a graph
        return True


_graph_stack: List[Graph] = []
_global_graph = Graph()


def get_default_graph() -> Graph:
    """The innermost `as_default()` graph, or the global default graph."""
    return _graph_stack[-1] if _graph_stack else _global_graph


def reset_default_graph() -> None:
    """Replace the global default graph by an empty one (not allowed inside `as_default()`)."""
    global _global_graph
    if _graph_stack:
        raise AssertionError(
            "Do not use reset_default_graph() inside a `with g.as_default()` block"
        )
    _global_graph = Graph()


def name_scope(name: str) -> Any:
    """`with name_scope("layer1"):` prefixes node names in the default graph."""
    return get_default_graph().name_scope(name)


# Nodes ----------------------------------------------------------------------------


class Node:
    """A symbolic value: the output of one operation in a `Graph`.

    Attributes:
        graph: the graph that owns it.
        name: unique within the graph (used in error messages and instrumentation).
        op_type: the operation, e.g. "Placeholder", "Add", "MatMul".
        inputs: the nodes whose values the operation reads.
        shape: the static shape: a tuple whose entries may be None (unknown
            dimension), or None when even the rank is unknown.
        attrs: op parameters (e.g. `axis`), and the value of a `Const`.

    Nodes compare and hash by identity (as TF1 tensors): `==` does not build an op.
    """

    __array_ufunc__ = None  # make `ndarray + node` defer to Node.__radd__

    def __init__(
        self,
        op_type: str,
        inputs: Sequence["Node"] = (),
        shape: Shape = None,
        name: Optional[str] = None,
        graph: Optional[Graph] = None,
        attrs: Optional[Dict[str, Any]] = None,
        produces_value: bool = True,
    ):
        if graph is None:
            graph = inputs[0].graph if inputs else get_default_graph()
        for inp in inputs:
            if not isinstance(inp, Node):
                raise TypeError(f"{op_type}: input {inp!r} is not a Node")
            if inp.graph is not graph:
                raise ValueError(
                    f"{op_type}: input '{inp.name}' belongs to another graph; "
                    "all inputs of an op must come from the same Graph"
                )
            if not inp.produces_value and op_type != "NoOp":
                raise TypeError(f"{op_type}: '{inp.name}' ({inp.op_type}) is an op with no value")
        self.graph = graph
        self.op_type = op_type
        self.inputs: Tuple[Node, ...] = tuple(inputs)
        self.shape: Shape = shape
        self.attrs: Dict[str, Any] = dict(attrs or {})
        self.produces_value = produces_value
        self.name = graph._unique_name(name or op_type)
        graph._register(self)

    def __repr__(self) -> str:
        return f"<mini_tf.Node '{self.name}' op={self.op_type} shape={_shape_str(self.shape)}>"

    def get_shape(self) -> Shape:
        return self.shape

    def __bool__(self) -> bool:
        raise TypeError(
            f"Using the symbolic node '{self.name}' as a Python bool is not allowed: "
            "it has no value until a Session runs it"
        )

    def __iter__(self) -> Any:
        raise TypeError(f"Node '{self.name}' is not iterable (it is symbolic)")

    def eval(
        self, feed_dict: Optional[Dict[Any, Any]] = None, session: Optional["Session"] = None
    ) -> Any:
        """`session.run(self, feed_dict)` with the default session (`with Session() as s:`)."""
        session = session or get_default_session()
        if session is None:
            raise ValueError("No default session: use `with Session() as sess:` or pass session=")
        return session.run(self, feed_dict)

    # operator overloading (Python numbers become constants)
    def __add__(self, other: Any) -> "Node":
        return add(self, other)

    def __radd__(self, other: Any) -> "Node":
        return add(other, self)

    def __sub__(self, other: Any) -> "Node":
        return subtract(self, other)

    def __rsub__(self, other: Any) -> "Node":
        return subtract(other, self)

    def __mul__(self, other: Any) -> "Node":
        return multiply(self, other)

    def __rmul__(self, other: Any) -> "Node":
        return multiply(other, self)

    def __truediv__(self, other: Any) -> "Node":
        return divide(self, other)

    def __rtruediv__(self, other: Any) -> "Node":
        return divide(other, self)

    def __matmul__(self, other: Any) -> "Node":
        return matmul(self, other)

    def __rmatmul__(self, other: Any) -> "Node":
        return matmul(other, self)

    def __neg__(self) -> "Node":
        return negative(self)


Tensor = Node  # TF1's name for the symbolic value; `Node` avoids clashing with minitorch.Tensor


def _as_node(x: Any, graph: Optional[Graph] = None) -> Node:
    if isinstance(x, Node):
        return x
    return constant(x, graph=graph)


def _as_nodes(*xs: Any) -> List[Node]:
    graph = next((x.graph for x in xs if isinstance(x, Node)), None)
    return [_as_node(x, graph) for x in xs]


# Op registry: how to compute each op, how to differentiate it --------------------

Kernel = Callable[["Node", List[np.ndarray]], np.ndarray]
GradFn = Callable[["Node", "Node", List[bool]], List[Optional["Node"]]]


@dataclass(frozen=True)
class _OpDef:
    kernel: Kernel
    grad: Optional[GradFn] = None  # None: not differentiable (LookupError if needed)


_OPS: Dict[str, _OpDef] = {}

# Ops whose value does not depend only on their inputs: never constant-folded.
_STATEFUL = {"Placeholder", "Variable", "Assign", "NoOp"}


def _register_op(op_type: str, kernel: Kernel, grad: Optional[GradFn] = None) -> None:
    _OPS[op_type] = _OpDef(kernel, grad)


def _stable_sigmoid(x: np.ndarray) -> np.ndarray:
    r"""$\sigma(x) = 1/(1 + e^{-x})$ for $x \ge 0$, $e^x / (1 + e^x)$ otherwise (no overflow;
    the same formulas as `minitorch.operators.sigmoid`)."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _reduce_axes(node: Node, ndim: int) -> Tuple[int, ...]:
    axis = node.attrs["axis"]
    if axis is None:
        return tuple(range(ndim))
    return tuple(sorted(a % ndim for a in axis))


def _k_reduce(node: Node, v: List[np.ndarray]) -> np.ndarray:
    x = v[0]
    axes = _reduce_axes(node, x.ndim)
    fn = np.mean if node.attrs["mean"] else np.sum
    return np.asarray(fn(x, axis=axes, keepdims=node.attrs["keepdims"]), dtype=np.float64)


def _k_reduce_grad(node: Node, v: List[np.ndarray]) -> np.ndarray:
    r"""Gradient of a sum/mean over `axes`: $\bar x = \mathrm{broadcast}(\bar y) / N$.

    $N$ is the number of elements reduced for a mean, 1 for a sum.
    """
    g, x = v
    axes = _reduce_axes(node, x.ndim)
    if not node.attrs["keepdims"] and axes:
        g = np.expand_dims(g, axes)
    out = np.array(np.broadcast_to(g, x.shape), dtype=np.float64)
    if node.attrs["mean"]:
        count = int(np.prod([x.shape[a] for a in axes])) if axes else 1
        out = out / count
    return out


def _k_matmul(node: Node, v: List[np.ndarray]) -> np.ndarray:
    a, b = v
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(f"matmul needs 2-D operands, got shapes {a.shape} and {b.shape}")
    return a @ b


def _k_reshape(node: Node, v: List[np.ndarray]) -> np.ndarray:
    return np.reshape(v[0], node.attrs["shape"])


def _k_transpose(node: Node, v: List[np.ndarray]) -> np.ndarray:
    return np.transpose(v[0], node.attrs["perm"])


for _op, _kernel in {
    "Add": lambda n, v: v[0] + v[1],
    "Sub": lambda n, v: v[0] - v[1],
    "Mul": lambda n, v: v[0] * v[1],
    "RealDiv": lambda n, v: v[0] / v[1],
    "Neg": lambda n, v: -v[0],
    "Exp": lambda n, v: np.exp(v[0]),
    "Log": lambda n, v: np.log(v[0]),
    "Sigmoid": lambda n, v: _stable_sigmoid(v[0]),
    "Relu": lambda n, v: np.where(v[0] > 0, v[0], 0.0),
    "Square": lambda n, v: v[0] * v[0],
    "Identity": lambda n, v: v[0],
    "MatMul": _k_matmul,
    "Reduce": _k_reduce,
    "Reshape": _k_reshape,
    "Transpose": _k_transpose,
    # helper ops created by `gradients`
    "OnesLike": lambda n, v: np.ones_like(v[0]),
    "AddN": lambda n, v: functools.reduce(np.add, v),
    "SumToShape": lambda n, v: _sum_to_shape(v[0], v[1].shape),
    "ReduceGrad": _k_reduce_grad,
    "ReshapeLike": lambda n, v: np.reshape(v[0], v[1].shape),
    "SigmoidGrad": lambda n, v: v[1] * (v[0] * (1.0 - v[0])),  # inputs (y, g)
    "ReluGrad": lambda n, v: np.where(v[0] > 0, v[1], 0.0),  # inputs (x, g)
}.items():
    _register_op(_op, _kernel)


# Builders ---------------------------------------------------------------------------


def constant(value: Any, name: Optional[str] = None, graph: Optional[Graph] = None) -> Node:
    """A node whose value is the float64 array `value` (read-only)."""
    arr = np.array(value, dtype=np.float64)
    arr.setflags(write=False)
    graph = graph if graph is not None else get_default_graph()
    return Node("Const", (), tuple(arr.shape), name, graph, {"value": arr})


def placeholder(shape: Any = None, name: Optional[str] = None, dtype: Any = None) -> Node:
    """A value fed at run time; `shape` may contain None (any size) or be None (any shape).

    `dtype` (keyword) is accepted for TF1-style calls and ignored: values are always float64.
    """
    return Node("Placeholder", (), _normalize_shape(shape), name or "Placeholder")


class Variable(Node):
    """Mutable state: a node whose value is held by each `Session` that initialized it.

    Args:
        initial_value: array-like, or a Node computed once by `initializer`.
        name: node name (default "Variable").
        trainable: listed by `trainable_variables()` (what optimizers update by default).

    Attributes:
        initializer: the op that assigns `initial_value` (run by `global_variables_initializer()`).
    """

    def __init__(self, initial_value: Any, name: Optional[str] = None, trainable: bool = True,
                 graph: Optional[Graph] = None):
        if graph is None:
            graph = initial_value.graph if isinstance(initial_value, Node) else get_default_graph()
        super().__init__("Variable", (), None, name or "Variable", graph)
        with graph._absolute_scope(self.name):
            init = _as_node(initial_value, graph)
            if init.graph is not graph:
                raise ValueError("Variable: the initial value belongs to another graph")
            self.shape = init.shape
            self.initial_value = init
            self.initializer = assign(self, init, name="Assign")
        self.trainable = trainable
        graph._variables.append(self)
        if trainable:
            graph._trainable.append(self)

    def assign(self, value: Any, name: Optional[str] = None) -> Node:
        return assign(self, value, name)

    def assign_add(self, delta: Any, name: Optional[str] = None) -> Node:
        return assign(self, self + delta, name or "AssignAdd")

    def assign_sub(self, delta: Any, name: Optional[str] = None) -> Node:
        return assign(self, self - delta, name or "AssignSub")


def assign(var: Variable, value: Any, name: Optional[str] = None) -> Node:
    """An op that, when run, stores `value` in `var` (in that session) and returns it.

    The variable is an attribute, not an input: assigning does not read it.
    Shapes must match the variable's static shape exactly.
    """
    if not isinstance(var, Variable):
        raise TypeError(f"assign: {var!r} is not a Variable")
    value = _as_node(value, var.graph)
    if var.shape is not None and value.shape is not None:
        ok = len(var.shape) == len(value.shape) and all(
            a is None or b is None or a == b for a, b in zip(var.shape, value.shape)
        )
        if not ok:
            raise ValueError(
                f"assign: cannot assign a value of shape {_shape_str(value.shape)} to variable "
                f"'{var.name}' of shape {_shape_str(var.shape)}"
            )
    return Node("Assign", (value,), var.shape, name or "Assign", var.graph, {"var": var})


def group(*ops: Node, name: Optional[str] = None) -> Node:
    """An op with no value that runs all of `ops` (fetching it returns None)."""
    if not ops:
        raise ValueError("group: nothing to group")
    graph = ops[0].graph
    return Node("NoOp", ops, None, name or "NoOp", graph, produces_value=False)


def global_variables() -> List[Variable]:
    return get_default_graph().global_variables()


def trainable_variables() -> List[Variable]:
    return get_default_graph().trainable_variables()


def variables_initializer(var_list: Sequence[Variable], name: str = "init") -> Node:
    """An op running the initializers of `var_list`."""
    if not var_list:
        return group(constant(0.0, name=f"{name}/empty"), name=name)
    return group(*[v.initializer for v in var_list], name=name)


def global_variables_initializer() -> Node:
    """An op initializing every variable of the default graph (TF1's `init` op)."""
    return variables_initializer(get_default_graph().global_variables())


def _binary(op_type: str, a: Any, b: Any, name: Optional[str]) -> Node:
    a, b = _as_nodes(a, b)
    shape = _broadcast_static(a.shape, b.shape, op_type)
    return Node(op_type, (a, b), shape, name)


def add(a: Any, b: Any, name: Optional[str] = None) -> Node:
    """$a + b$ with numpy broadcasting."""
    return _binary("Add", a, b, name)


def subtract(a: Any, b: Any, name: Optional[str] = None) -> Node:
    """$a - b$ with numpy broadcasting."""
    return _binary("Sub", a, b, name)


def multiply(a: Any, b: Any, name: Optional[str] = None) -> Node:
    """$a \\odot b$ (elementwise) with numpy broadcasting."""
    return _binary("Mul", a, b, name)


def divide(a: Any, b: Any, name: Optional[str] = None) -> Node:
    """$a / b$ (elementwise) with numpy broadcasting."""
    return _binary("RealDiv", a, b, name)


sub, mul, div = subtract, multiply, divide


def _unary(op_type: str, x: Any, name: Optional[str]) -> Node:
    x = _as_node(x)
    return Node(op_type, (x,), x.shape, name)


def negative(x: Any, name: Optional[str] = None) -> Node:
    """$-x$"""
    return _unary("Neg", x, name)


neg = negative


def exp(x: Any, name: Optional[str] = None) -> Node:
    """$e^x$ elementwise."""
    return _unary("Exp", x, name)


def log(x: Any, name: Optional[str] = None) -> Node:
    r"""$\log x$ elementwise."""
    return _unary("Log", x, name)


def sigmoid(x: Any, name: Optional[str] = None) -> Node:
    r"""$\sigma(x) = 1 / (1 + e^{-x})$ elementwise."""
    return _unary("Sigmoid", x, name)


def relu(x: Any, name: Optional[str] = None) -> Node:
    r"""$\max(x, 0)$ elementwise (derivative 0 at 0)."""
    return _unary("Relu", x, name)


def square(x: Any, name: Optional[str] = None) -> Node:
    """$x^2$ elementwise."""
    return _unary("Square", x, name)


def identity(x: Any, name: Optional[str] = None) -> Node:
    """$x$ (a new node with the same value)."""
    return _unary("Identity", x, name)


def matmul(a: Any, b: Any, name: Optional[str] = None) -> Node:
    """$AB$ for 2-D operands: $(m, k) @ (k, n) \\to (m, n)$."""
    a, b = _as_nodes(a, b)
    for x in (a, b):
        if x.shape is not None and len(x.shape) != 2:
            raise ValueError(
                f"matmul needs 2-D operands; '{x.name}' has shape {_shape_str(x.shape)}"
            )
    if a.shape is not None and b.shape is not None:
        k1, k2 = a.shape[1], b.shape[0]
        if k1 is not None and k2 is not None and k1 != k2:
            raise ValueError(
                f"matmul: inner dimensions differ: {_shape_str(a.shape)} @ {_shape_str(b.shape)}"
            )
    shape = (a.shape[0] if a.shape else None, b.shape[1] if b.shape else None)
    return Node("MatMul", (a, b), shape, name)


def _reduce(x: Any, axis: Any, keepdims: bool, mean: bool, name: Optional[str]) -> Node:
    x = _as_node(x)
    if axis is not None:
        axis = (axis,) if isinstance(axis, int) else tuple(int(a) for a in axis)
    shape: Shape = None
    if x.shape is not None:
        ndim = len(x.shape)
        for a in axis or ():
            if not -ndim <= a < ndim:
                raise ValueError(f"reduce: axis {a} out of range for shape {_shape_str(x.shape)}")
        axes = set(range(ndim)) if axis is None else {a % ndim for a in axis}
        if keepdims:
            shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        else:
            shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    elif axis is None and not keepdims:
        shape = ()
    return Node("Reduce", (x,), shape, name or ("Mean" if mean else "Sum"),
                attrs={"axis": axis, "keepdims": keepdims, "mean": mean})


def reduce_sum(
    x: Any, axis: Any = None, keepdims: bool = False, name: Optional[str] = None
) -> Node:
    r"""$\sum$ over `axis` (an int, a tuple, or None for all axes)."""
    return _reduce(x, axis, keepdims, False, name)


def reduce_mean(
    x: Any, axis: Any = None, keepdims: bool = False, name: Optional[str] = None
) -> Node:
    r"""$\frac1N \sum$ over `axis` ($N$ = number of elements reduced)."""
    return _reduce(x, axis, keepdims, True, name)


def reshape(x: Any, shape: Sequence[int], name: Optional[str] = None) -> Node:
    """numpy `reshape`; one entry may be -1."""
    x = _as_node(x)
    target = tuple(int(d) for d in shape)
    if sum(d == -1 for d in target) > 1:
        raise ValueError("reshape: at most one dimension may be -1")
    static: List[Optional[int]] = [None if d == -1 else d for d in target]
    if _fully_known(x.shape):
        size = int(np.prod(x.shape))
        known = int(np.prod([d for d in target if d != -1]))
        if -1 in target:
            if known == 0 or size % known:
                raise ValueError(f"reshape: cannot reshape {_shape_str(x.shape)} into {target}")
            static[target.index(-1)] = size // known
        elif known != size:
            raise ValueError(f"reshape: cannot reshape {_shape_str(x.shape)} into {target}")
    return Node("Reshape", (x,), tuple(static), name, attrs={"shape": target})


def transpose(x: Any, perm: Optional[Sequence[int]] = None, name: Optional[str] = None) -> Node:
    """Permute the axes (default: reverse them)."""
    x = _as_node(x)
    perm = None if perm is None else tuple(int(p) for p in perm)
    shape: Shape = None
    if x.shape is not None:
        p = perm if perm is not None else tuple(reversed(range(len(x.shape))))
        if sorted(p) != list(range(len(x.shape))):
            raise ValueError(
                f"transpose: {perm} is not a permutation of the axes of {_shape_str(x.shape)}"
            )
        shape = tuple(x.shape[i] for i in p)
    return Node("Transpose", (x,), shape, name, attrs={"perm": perm})


# Gradient rules: (node, adjoint of node, which inputs need one) -> adjoint per input ---


def _unbroadcast(g: Node, x: Node, out: Node) -> Node:
    """`g` summed to the shape of `x` (skipped when no broadcasting can have happened)."""
    if _fully_known(x.shape) and x.shape == out.shape:
        return g
    return Node("SumToShape", (g, x), x.shape, "SumToShape")


def _g_add(n: Node, g: Node, need: List[bool]) -> List[Optional[Node]]:
    a, b = n.inputs
    return [_unbroadcast(g, a, n) if need[0] else None, _unbroadcast(g, b, n) if need[1] else None]


def _g_sub(n: Node, g: Node, need: List[bool]) -> List[Optional[Node]]:
    a, b = n.inputs
    return [_unbroadcast(g, a, n) if need[0] else None,
            _unbroadcast(negative(g), b, n) if need[1] else None]


def _g_mul(n: Node, g: Node, need: List[bool]) -> List[Optional[Node]]:
    r"""$\bar a = \bar z\, b$, $\bar b = \bar z\, a$ (then undo broadcasting)."""
    a, b = n.inputs
    return [_unbroadcast(g * b, a, n) if need[0] else None,
            _unbroadcast(g * a, b, n) if need[1] else None]


def _g_div(n: Node, g: Node, need: List[bool]) -> List[Optional[Node]]:
    r"""$z = a/b$: $\bar a = \bar z / b$, $\bar b = -\bar z\, a / b^2 = -\bar z\, z / b$."""
    a, b = n.inputs
    return [_unbroadcast(g / b, a, n) if need[0] else None,
            _unbroadcast(negative(g * n / b), b, n) if need[1] else None]


def _g_matmul(n: Node, g: Node, need: List[bool]) -> List[Optional[Node]]:
    r"""$C = AB$: $\bar A = \bar C B^\top$, $\bar B = A^\top \bar C$."""
    a, b = n.inputs
    return [matmul(g, transpose(b)) if need[0] else None,
            matmul(transpose(a), g) if need[1] else None]


def _g_reduce(n: Node, g: Node, need: List[bool]) -> List[Optional[Node]]:
    r"""Every reduced element receives $\bar y$ (sum) or $\bar y / N$ (mean)."""
    (x,) = n.inputs
    return [Node("ReduceGrad", (g, x), x.shape, "ReduceGrad", attrs=dict(n.attrs))]


def _g_transpose(n: Node, g: Node, need: List[bool]) -> List[Optional[Node]]:
    perm = n.attrs["perm"]
    inverse = None if perm is None else tuple(int(i) for i in np.argsort(perm))
    return [transpose(g, inverse)]


for _op, _grad in {
    "Add": _g_add,
    "Sub": _g_sub,
    "Mul": _g_mul,
    "RealDiv": _g_div,
    "Neg": lambda n, g, need: [negative(g)],
    "Exp": lambda n, g, need: [g * n],  # d e^x = e^x
    "Log": lambda n, g, need: [g / n.inputs[0]],  # d log x = 1/x
    "Sigmoid": lambda n, g, need: [Node("SigmoidGrad", (n, g), n.shape, "SigmoidGrad")],
    "Relu": lambda n, g, need: [Node("ReluGrad", (n.inputs[0], g), n.shape, "ReluGrad")],
    "Square": lambda n, g, need: [g * (2.0 * n.inputs[0])],
    "Identity": lambda n, g, need: [g],
    "MatMul": _g_matmul,
    "Reduce": _g_reduce,
    "Reshape": lambda n, g, need: [
        Node("ReshapeLike", (g, n.inputs[0]), n.inputs[0].shape, "ReshapeLike")
    ],
    "Transpose": _g_transpose,
    "AddN": lambda n, g, need: [g] * len(n.inputs),
    "OnesLike": lambda n, g, need: [None],
}.items():
    _OPS[_op] = _OpDef(_OPS[_op].kernel, _grad)


# Traversal --------------------------------------------------------------------------


def _topological_order(
    roots: Iterable[Node], expand: Callable[[Node], bool] = lambda n: True
) -> List[Node]:
    """Every node reachable from `roots` once, each after all of its inputs.

    Post-order depth-first search with an explicit stack (no recursion). The
    inputs of a node for which `expand(node)` is False are not visited.
    """
    order: List[Node] = []
    state: Dict[Node, bool] = {}  # False: being visited, True: done
    stack: List[Tuple[Node, bool]] = [(r, False) for r in reversed(list(roots))]
    while stack:
        node, inputs_done = stack.pop()
        if inputs_done:
            state[node] = True
            order.append(node)
            continue
        if node in state:
            continue
        state[node] = False
        stack.append((node, True))
        if expand(node):
            for inp in reversed(node.inputs):
                if inp not in state:
                    stack.append((inp, False))
    return order


# Symbolic reverse mode -------------------------------------------------------------


def _as_list(x: Any) -> Tuple[List[Any], bool]:
    if isinstance(x, (list, tuple)):
        return list(x), True
    return [x], False


def gradients(
    ys: Any, xs: Any, grad_ys: Any = None, name: str = "gradients"
) -> List[Optional[Node]]:
    r"""Add to the graph nodes computing $\partial (\sum_k \bar y_k \cdot y_k) / \partial x$ for each x.

    Reverse mode, performed symbolically: visit the nodes between `xs` and `ys`
    in reverse topological order; a node's adjoint is the sum (an `AddN` node)
    of the contributions of all of its users (fan-out),
    $\bar v = \sum_{u \in \mathrm{users}(v)} \bar u\, \partial u / \partial v$; each op's
    rule maps its adjoint to adjoints of its inputs, reduced back to the
    input's shape when the op broadcast it (`SumToShape`). Nothing is computed.

    Args:
        ys: a node or a list of nodes (their gradients are summed).
        xs: a node or a list of nodes.
        grad_ys: the seeds $\bar y_k$ (default: ones of the shape of each y).
        name: name scope of the new nodes.

    Returns:
        A list with one node per x (same shape as x), or None for an x that no
        y depends on (as TF1).

    Raises:
        LookupError: a path from an x to a y crosses an op without a gradient rule.
    """
    ys_l, _ = _as_list(ys)
    xs_l, _ = _as_list(xs)
    if not ys_l:
        raise ValueError("gradients: ys is empty")
    graph = ys_l[0].graph
    for n in ys_l + xs_l:
        if not isinstance(n, Node):
            raise TypeError(f"gradients: {n!r} is not a Node")
        if n.graph is not graph:
            raise ValueError("gradients: ys and xs must belong to the same Graph")
    if grad_ys is None:
        grad_ys_l: List[Any] = [None] * len(ys_l)
    else:
        grad_ys_l, _ = _as_list(grad_ys)
        if len(grad_ys_l) != len(ys_l):
            raise ValueError("gradients: give one grad_y per y")

    adjoint = {}
    done = set()
    with graph.name_scope(name):
        stack = []
        for y, gy in zip(ys_l, grad_ys_l):
            seed = Node("OnesLike", (y,), y.shape, "OnesLike") if gy is None else _as_node(gy, graph)
            adjoint[y] = seed if y not in adjoint else adjoint[y] + seed
            stack.append(y)
        while stack:   # depth first from the ys
            n = stack.pop()
            if n in done:
                continue
            done.add(n)
            if not n.inputs or _OPS.get(n.op_type) is None or _OPS[n.op_type].grad is None:
                continue
            with graph.name_scope(f"{n.name}_grad"):
                gs = _OPS[n.op_type].grad(n, adjoint[n], [True] * len(n.inputs))
            for inp, gi in zip(n.inputs, gs):
                if gi is None:
                    continue
                adjoint[inp] = gi if inp not in adjoint else AddN_or_add(adjoint[inp], gi)
                stack.append(inp)
    return [adjoint.get(x) for x in xs_l]


# Optimizers -------------------------------------------------------------------------


class GradientDescentOptimizer:
    r"""$\theta \leftarrow \theta - \eta\, \partial L / \partial \theta$ for every variable."""

    def __init__(self, learning_rate: Any, name: str = "GradientDescent"):
        self.learning_rate = learning_rate
        self._name = name

    def compute_gradients(self, loss: Node, var_list: Optional[Sequence[Variable]] = None
                          ) -> List[Tuple[Optional[Node], Variable]]:
        """Pairs (gradient node or None, variable); default: all trainable variables."""
        if var_list is None:
            var_list = loss.graph.trainable_variables()
        var_list = list(var_list)
        return list(zip(gradients(loss, var_list), var_list))

    def apply_gradients(self, grads_and_vars: Iterable[Tuple[Optional[Node], Variable]],
                        name: Optional[str] = None) -> Node:
        """An op that assigns $v - \\eta g$ to every variable with a gradient."""
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError(
                "No gradients provided for any variable: the loss does not depend on them"
            )
        graph = pairs[0][1].graph
        with graph.name_scope(self._name):
            lr = _as_node(self.learning_rate, graph)
            updates = [assign(v, v - lr * g, name=f"update_{v.name}") for g, v in pairs]
        return group(*updates, name=name or self._name)

    def minimize(self, loss: Node, var_list: Optional[Sequence[Variable]] = None,
                 name: Optional[str] = None) -> Node:
        """`apply_gradients(compute_gradients(loss, var_list))`: one step per run."""
        return self.apply_gradients(self.compute_gradients(loss, var_list), name=name)


train = types.SimpleNamespace(GradientDescentOptimizer=GradientDescentOptimizer)


# Sessions -------------------------------------------------------------------------------

_session_stack: List["Session"] = []


def get_default_session() -> Optional["Session"]:
    return _session_stack[-1] if _session_stack else None


class Session:
    """Runs parts of a graph and holds the values of its variables.

    Instrumentation (for tests and teaching):
        last_run_evaluated: names of the nodes evaluated by the last `run`, in
            evaluation order (fed nodes are not evaluated; a folded subgraph
            counts as one node, its root).
        last_run_folded: names of the nodes that the last `run` folded to constants.
        total_evaluations: number of node evaluations over all runs.

    Args:
        graph: the graph to run (default: the default graph).
        constant_folding: fold constant subgraphs at the first run that needs them.
    """

    def __init__(self, graph: Optional[Graph] = None, constant_folding: bool = True):
        self.graph = graph if graph is not None else get_default_graph()
        self.constant_folding = constant_folding
        self._variables: Dict[Node, np.ndarray] = {}
        # folded node -> (value, the nodes of its constant subgraph)
        self._folded: Dict[Node, Tuple[np.ndarray, frozenset]] = {}
        self.last_run_evaluated: List[str] = []
        self.last_run_folded: List[str] = []
        self.total_evaluations = 0
        self._closed = False

    # context manager: `with Session() as sess:` makes it the default session
    def __enter__(self) -> "Session":
        _session_stack.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        if _session_stack and _session_stack[-1] is self:
            _session_stack.pop()
        self.close()

    def close(self) -> None:
        self._closed = True
        self._variables.clear()
        self._folded.clear()

    # fetch structures
    def _resolve(self, x: Any) -> Node:
        node = self.graph.get_node(x) if isinstance(x, str) else x
        if not isinstance(node, Node):
            raise TypeError(f"Cannot fetch or feed {x!r}: not a Node")
        if node.graph is not self.graph:
            raise ValueError(f"Node '{node.name}' is not an element of this session's graph")
        return node

    def _flatten(self, fetches: Any, out: List[Node]) -> Callable[[Dict[Node, Any]], Any]:
        if isinstance(fetches, (list, tuple)):
            builders = [self._flatten(f, out) for f in fetches]
            kind = type(fetches)
            return lambda vals: kind(b(vals) for b in builders)
        if isinstance(fetches, dict):
            items = [(k, self._flatten(f, out)) for k, f in fetches.items()]
            return lambda vals: {k: b(vals) for k, b in items}
        node = self._resolve(fetches)
        out.append(node)
        return lambda vals: vals[node]

    def run(self, fetches: Any, feed_dict: Optional[Dict[Any, Any]] = None) -> Any:
        """Evaluate `fetches` (a node, a node name, or a list/tuple/dict of them, nested).

        Only the nodes the fetches depend on are evaluated, each once. Returns
        the same structure with numpy values (None for ops without a value).

        Raises:
            InvalidArgumentError: a needed placeholder was not fed (the message
                names it), or an op failed on the values it received.
            ValueError: a fed value does not fit the node's static shape.
            FailedPreconditionError: a needed variable is not initialized.
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session")
        fetch_nodes: List[Node] = []
        rebuild = self._flatten(fetches, fetch_nodes)
        feeds = self._prepare_feeds(feed_dict or {})

        def usable_fold(n: Node) -> bool:
            entry = self._folded.get(n)
            return entry is not None and n not in feeds and entry[1].isdisjoint(feeds)

        def expand(n: Node) -> bool:
            return n not in feeds and not usable_fold(n)

        order = _topological_order(fetch_nodes, expand)
        self.last_run_folded = []
        if self.constant_folding and self._fold(order, fetch_nodes, feeds, usable_fold):
            order = _topological_order(fetch_nodes, expand)

        for n in order:
            if n.op_type == "Placeholder" and n not in feeds:
                needed_by = ", ".join(f"'{f.name}'" for f in fetch_nodes)
                raise InvalidArgumentError(
                    f"You must feed a value for placeholder '{n.name}' with shape "
                    f"{_shape_str(n.shape)} (it is needed to compute {needed_by})", n)
        # variables first: every read in this run sees the value from before its assignments
        order = [n for n in order if n.op_type == "Variable"] + [
            n for n in order if n.op_type != "Variable"
        ]

        values: Dict[Node, Any] = {}
        evaluated: List[str] = []
        for n in order:
            if n in feeds:
                values[n] = feeds[n]
                continue
            if usable_fold(n):
                values[n] = self._folded[n][0]
            else:
                values[n] = self._evaluate(n, [values[i] for i in n.inputs])
            evaluated.append(n.name)
        self.last_run_evaluated = evaluated
        self.total_evaluations += len(evaluated)
        return rebuild({n: self._output(values[n]) for n in fetch_nodes})

    @staticmethod
    def _output(v: Any) -> Any:
        if v is None:
            return None
        v = np.array(v, dtype=np.float64)  # a copy: the caller cannot alter session state
        return v[()] if v.ndim == 0 else v

    def _prepare_feeds(self, feed_dict: Dict[Any, Any]) -> Dict[Node, np.ndarray]:
        feeds: Dict[Node, np.ndarray] = {}
        for key, value in feed_dict.items():
            node = self._resolve(key)
            if not node.produces_value:
                raise TypeError(f"Cannot feed '{node.name}': op {node.op_type} has no value")
            arr = np.array(value, dtype=np.float64)
            if not _compatible(node.shape, arr.shape):
                raise ValueError(
                    f"Cannot feed value of shape {_shape_str(arr.shape)} for "
                    f"{'placeholder' if node.op_type == 'Placeholder' else 'node'} '{node.name}', "
                    f"which has shape {_shape_str(node.shape)}"
                )
            arr.setflags(write=False)
            feeds[node] = arr
        return feeds

    def _evaluate(self, n: Node, inputs: List[Any]) -> Any:
        if n.op_type == "Const":
            return n.attrs["value"]
        if n.op_type == "Variable":
            if n not in self._variables:
                raise FailedPreconditionError(
                    f"Attempting to use uninitialized value '{n.name}': run its initializer "
                    "(e.g. global_variables_initializer()) first", n)
            return self._variables[n]
        if n.op_type == "NoOp":
            return None
        if n.op_type == "Assign":
            var = n.attrs["var"]
            value = inputs[0]
            if not _compatible(var.shape, value.shape):
                raise InvalidArgumentError(
                    f"{n.name}: cannot assign a value of shape {_shape_str(value.shape)} to "
                    f"variable '{var.name}' of shape {_shape_str(var.shape)}", n)
            stored = np.array(value, dtype=np.float64)
            stored.setflags(write=False)
            self._variables[var] = stored
            return stored
        try:
            with np.errstate(all="ignore"):
                out = _OPS[n.op_type].kernel(n, inputs)
        except Exception as e:  # numpy's message, with the node that failed
            shapes = ", ".join(str(np.shape(v)) for v in inputs)
            raise InvalidArgumentError(
                f"Error computing node '{n.name}' (op {n.op_type}) on inputs of shapes "
                f"{shapes}: {e}",
                n,
            ) from e
        out = np.asarray(out, dtype=np.float64)
        if not _compatible(n.shape, out.shape):  # a broken kernel or a wrong static shape
            raise InvalidArgumentError(
                f"Node '{n.name}' (op {n.op_type}) produced shape {out.shape}, expected "
                f"{_shape_str(n.shape)}", n)
        return out

    def _fold(self, order: List[Node], fetch_nodes: List[Node], feeds: Dict[Node, np.ndarray],
              usable_fold: Callable[[Node], bool]) -> bool:
        """Fold the maximal constant subgraphs of `order` (inputs before users).

        A node is constant when it is a `Const`, an already folded node, or a
        stateless op, not fed, whose inputs are all constant. Each constant node
        that is fetched or used by a non-constant node (the roots of the maximal
        constant subgraphs) is evaluated once, outside the instrumentation, and
        remembered with the set of nodes it replaces (feeding one of them later
        disables the folded value for that run). Returns True if something new
        was folded.
        """
        is_const = set()
        for n in order:
            if n in feeds or n.op_type in _STATEFUL:
                continue
            if n.op_type == "Const" or usable_fold(n) or (
                n.inputs and all(i in is_const for i in n.inputs)
            ):
                is_const.add(n)
        roots = [n for n in fetch_nodes if n in is_const]
        for n in order:
            if n not in is_const:
                roots.extend(i for i in n.inputs if i in is_const)
        todo = [n for n in dict.fromkeys(roots) if n.op_type != "Const" and not usable_fold(n)]
        if not todo:
            return False
        values: Dict[Node, Any] = {}
        for n in _topological_order(todo, lambda n: not usable_fold(n)):
            if usable_fold(n):
                values[n] = self._folded[n][0]
            else:
                values[n] = self._evaluate(n, [values[i] for i in n.inputs])
        for n in todo:
            members = frozenset(_topological_order([n]))  # everything the folded value stands for
            value = values[n]
            value.setflags(write=False)
            self._folded[n] = (value, members)
            self.last_run_folded.append(n.name)
        return True

    @property
    def folded_nodes(self) -> List[str]:
        """Names of all nodes this session has folded to constants."""
        return [n.name for n in self._folded]


__all__ = [
    "Graph", "Node", "Tensor", "Variable", "Session", "OpError", "InvalidArgumentError",
    "FailedPreconditionError", "errors", "get_default_graph", "reset_default_graph", "name_scope",
    "placeholder", "constant", "assign", "group", "global_variables", "trainable_variables",
    "variables_initializer", "global_variables_initializer", "add", "subtract", "sub", "multiply",
    "mul", "divide", "div", "negative", "neg", "exp", "log", "sigmoid", "relu", "square",
    "identity", "matmul", "reduce_sum", "reduce_mean", "reshape", "transpose", "gradients",
    "GradientDescentOptimizer", "train", "get_default_session",
]


def AddN_or_add(a, b):
    return add(a, b)
