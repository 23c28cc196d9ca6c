"""`Scalar`: a float that records the computation that produced it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Optional, Sequence, Tuple, Type, Union

from . import autodiff
from .autodiff import Context, Variable
from .scalar_functions import (
    EQ,
    LT,
    Add,
    Exp,
    Inv,
    Log,
    Mul,
    Neg,
    ReLU,
    ScalarFunction,
    Sigmoid,
)

ScalarLike = Union[float, int, "Scalar"]


@dataclass
class ScalarHistory:
    """How a Scalar was made: the function, its saved context and its inputs.

    A leaf has a history with `last_fn=None`; a constant has no history at all.
    """

    last_fn: Optional[Type[ScalarFunction]] = None
    ctx: Optional[Context] = None
    inputs: Sequence["Scalar"] = ()


_var_count = 0


def _next_id() -> int:
    global _var_count
    _var_count += 1
    return _var_count


class Scalar:
    """A real number in a computation graph.

    `Scalar(v)` is a leaf that collects a derivative; `Scalar(v, None)` is a
    constant. Arithmetic on Scalars builds the graph; `backward()` fills
    `.derivative` on the leaves.
    """

    history: Optional[ScalarHistory]
    derivative: Optional[float]
    data: float
    unique_id: int
    name: str

    def __init__(
        self,
        v: float,
        back: Optional[ScalarHistory] = ScalarHistory(),
        name: Optional[str] = None,
    ):
        self.unique_id = _next_id()
        self.data = float(v)
        self.history = back
        self.derivative = None
        self.name = name if name is not None else str(self.unique_id)

    def __repr__(self) -> str:
        return f"Scalar({self.data})"

    def requires_grad_(self, x: bool = True) -> None:
        """Make this Scalar a leaf (`True`) or a constant (`False`)."""
        self.history = ScalarHistory() if x else None

    # Arithmetic

    def __add__(self, b: ScalarLike) -> Scalar:
        return Add.apply(self, b)

    def __radd__(self, b: ScalarLike) -> Scalar:
        return Add.apply(b, self)

    def __sub__(self, b: ScalarLike) -> Scalar:
        return Add.apply(self, Neg.apply(b))

    def __rsub__(self, b: ScalarLike) -> Scalar:
        return Add.apply(b, Neg.apply(self))

    def __mul__(self, b: ScalarLike) -> Scalar:
        return Mul.apply(self, b)

    def __rmul__(self, b: ScalarLike) -> Scalar:
        return Mul.apply(b, self)

    def __truediv__(self, b: ScalarLike) -> Scalar:
        return Mul.apply(self, Inv.apply(b))

    def __rtruediv__(self, b: ScalarLike) -> Scalar:
        return Mul.apply(b, Inv.apply(self))

    def __neg__(self) -> Scalar:
        return Neg.apply(self)

    def __lt__(self, b: ScalarLike) -> Scalar:
        return LT.apply(self, b)

    def __gt__(self, b: ScalarLike) -> Scalar:
        return LT.apply(b, self)

    def __eq__(self, b: ScalarLike) -> Scalar:  # type: ignore[override]
        return EQ.apply(self, b)

    __hash__ = None  # type: ignore[assignment]  # == is elementwise: key graphs by unique_id

    def __bool__(self) -> bool:
        return bool(self.data)

    def __float__(self) -> float:
        return self.data

    def log(self) -> Scalar:
        return Log.apply(self)

    def exp(self) -> Scalar:
        return Exp.apply(self)

    def sigmoid(self) -> Scalar:
        return Sigmoid.apply(self)

    def relu(self) -> Scalar:
        return ReLU.apply(self)

    # Variable protocol

    def accumulate_derivative(self, x: Any) -> None:
        """Add `x` to `.derivative` (leaves only)."""
        assert self.is_leaf(), "Only leaf variables can have derivatives."
        if self.derivative is None:
            self.derivative = 0.0
        self.derivative += float(x)

    def is_leaf(self) -> bool:
        """True if this variable was created by the user (no `last_fn`)."""
        return self.history is not None and self.history.last_fn is None

    def is_constant(self) -> bool:
        """True if this variable needs no derivative."""
        return self.history is None

    @property
    def parents(self) -> Iterable[Variable]:
        assert self.history is not None
        return self.history.inputs

    def chain_rule(self, d_output: Any) -> Iterable[Tuple[Variable, Any]]:
        r"""Pairs $(x_i, \bar v\, \partial f / \partial x_i)$ for every input of `last_fn`."""
        h = self.history
        assert h is not None and h.last_fn is not None and h.ctx is not None
        local = h.last_fn._backward(h.ctx, d_output)
        assert len(local) == len(h.inputs), f"Bug in function {h.last_fn}"
        return list(zip(h.inputs, local))

    def backward(self, d_output: Optional[float] = None) -> None:
        """Backpropagate from this Scalar; `d_output` defaults to 1."""
        if d_output is None:
            d_output = 1.0
        autodiff.backpropagate(self, d_output)


def derivative_check(f: Any, *scalars: Scalar) -> None:
    """Assert that `backward` on `f(*scalars)` matches central differences."""
    out = f(*scalars)
    out.backward()
    for i, x in enumerate(scalars):
        check = autodiff.central_difference(
            lambda *v: f(*[Scalar(u, None) for u in v]).data, *[s.data for s in scalars], arg=i
        )
        got = x.derivative if x.derivative is not None else 0.0
        assert abs(got - check) <= 1e-2 * max(1.0, abs(got)), (
            f"Derivative check at arg {i}: got {got}, central difference {check}"
        )
