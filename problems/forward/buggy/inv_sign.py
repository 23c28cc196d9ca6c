r"""Buggy: 1/x gets the tangent b/a² (the minus sign of d/dx 1/x = -1/x² is lost); division uses it.

Forward-mode automatic differentiation with dual numbers (a student file).
"""

EXPECT = None

from dataclasses import dataclass
from typing import Callable, List, Sequence, Tuple, Union

from . import operators

DualLike = Union["Dual", float, int]


def _lift(x: DualLike) -> "Dual":
    r"""A plain number $c$ is the constant $c + 0\varepsilon$."""
    if isinstance(x, Dual):
        return x
    return Dual(float(x), 0.0)


def _primal(x: DualLike) -> float:
    return x.primal if isinstance(x, Dual) else float(x)


@dataclass(frozen=True, eq=False)
class Dual:
    r"""The dual number $a + b\varepsilon$ with $\varepsilon^2 = 0$.

    Attributes:
        primal: the value $a$.
        tangent: the directional derivative $b$ carried along.

    Arithmetic accepts plain numbers on either side (they are constants, tangent
    0). Comparisons compare primals and return the plain floats 1.0 / 0.0, like
    `operators.lt`/`operators.eq`: they are piecewise constant, so they carry no
    derivative.
    """

    primal: float
    tangent: float = 0.0

    # Arithmetic ---------------------------------------------------------

    def __add__(self, other: DualLike) -> "Dual":
        r"""$(a + b\varepsilon) + (c + d\varepsilon) = (a + c) + (b + d)\varepsilon$"""
        o = _lift(other)
        return Dual(operators.add(self.primal, o.primal), operators.add(self.tangent, o.tangent))

    def __radd__(self, other: DualLike) -> "Dual":
        return _lift(other) + self

    def __neg__(self) -> "Dual":
        r"""$-(a + b\varepsilon) = -a - b\varepsilon$"""
        return Dual(operators.neg(self.primal), operators.neg(self.tangent))

    def __sub__(self, other: DualLike) -> "Dual":
        r"""$(a + b\varepsilon) - (c + d\varepsilon) = (a - c) + (b - d)\varepsilon$"""
        return self + (-_lift(other))

    def __rsub__(self, other: DualLike) -> "Dual":
        return _lift(other) + (-self)

    def __mul__(self, other: DualLike) -> "Dual":
        r"""$(a + b\varepsilon)(c + d\varepsilon) = ac + (ad + bc)\varepsilon$

        (the $bd\varepsilon^2$ term vanishes).
        """
        o = _lift(other)
        return Dual(
            operators.mul(self.primal, o.primal),
            operators.add(
                operators.mul(self.primal, o.tangent), operators.mul(self.tangent, o.primal)
            ),
        )

    def __rmul__(self, other: DualLike) -> "Dual":
        return _lift(other) * self

    def inv(self) -> "Dual":
        r"""$\frac{1}{a + b\varepsilon} = \frac1a - \frac{b}{a^2}\varepsilon$"""
        a = self.primal
        return Dual(1.0 / a, self.tangent / a**2)

    def __truediv__(self, other: DualLike) -> "Dual":
        r"""$\frac{a + b\varepsilon}{c + d\varepsilon} = \frac ac + \frac{bc - ad}{c^2}\varepsilon$

        computed as $(a + b\varepsilon)\cdot(c + d\varepsilon)^{-1}$, like `Scalar` division.
        """
        return self * _lift(other).inv()

    def __rtruediv__(self, other: DualLike) -> "Dual":
        return _lift(other) * self.inv()

    # Elementary functions ------------------------------------------------

    def exp(self) -> "Dual":
        r"""$e^{a + b\varepsilon} = e^a + e^a b\,\varepsilon$"""
        e = operators.exp(self.primal)
        return Dual(e, operators.mul(e, self.tangent))

    def log(self) -> "Dual":
        r"""$\log(a + b\varepsilon) = \log a + \frac{b}{a}\varepsilon$"""
        return Dual(operators.log(self.primal), operators.log_back(self.primal, self.tangent))

    def sigmoid(self) -> "Dual":
        r"""$\sigma(a + b\varepsilon) = \sigma(a) + \sigma(a)(1 - \sigma(a))\, b\,\varepsilon$"""
        return Dual(
            operators.sigmoid(self.primal), operators.sigmoid_back(self.primal, self.tangent)
        )

    def relu(self) -> "Dual":
        r"""$\mathrm{relu}(a + b\varepsilon) = \mathrm{relu}(a) + [a > 0]\, b\,\varepsilon$

        (derivative 0 at the kink, as in reverse mode).
        """
        return Dual(operators.relu(self.primal), operators.relu_back(self.primal, self.tangent))

    # Comparisons: plain floats, no derivative ------------------------------

    def __lt__(self, other: DualLike) -> float:
        """1.0 if the primals satisfy `self < other`, else 0.0."""
        return operators.lt(self.primal, _primal(other))

    def __gt__(self, other: DualLike) -> float:
        """1.0 if the primals satisfy `self > other`, else 0.0."""
        return operators.lt(_primal(other), self.primal)

    def __eq__(self, other: object) -> float:  # type: ignore[override]
        """1.0 if the primals are equal, else 0.0 (tangents are ignored)."""
        if not isinstance(other, (Dual, float, int)):
            return NotImplemented
        return operators.eq(self.primal, _primal(other))

    __hash__ = None  # type: ignore[assignment]  # == compares values, like Scalar

    def __float__(self) -> float:
        return self.primal


# Function forms, so that programs can be written once for floats and Duals.


def exp(x: DualLike) -> Dual:
    r"""$e^x$ on a dual number (a plain number is a constant)."""
    return _lift(x).exp()


def log(x: DualLike) -> Dual:
    r"""$\log x$ on a dual number."""
    return _lift(x).log()


def sigmoid(x: DualLike) -> Dual:
    r"""$\sigma(x)$ on a dual number."""
    return _lift(x).sigmoid()


def relu(x: DualLike) -> Dual:
    r"""$\mathrm{relu}(x)$ on a dual number."""
    return _lift(x).relu()


def jvp(
    f: Callable[..., DualLike], primals: Sequence[float], tangents: Sequence[float]
) -> Tuple[float, float]:
    r"""Value and directional derivative of `f` at `primals` along `tangents`.

    Evaluates $f(x_1 + t_1\varepsilon, \ldots, x_n + t_n\varepsilon) = f(x) +
    (\nabla f(x) \cdot t)\,\varepsilon$ in one forward pass.

    Args:
        f: a function of n numbers built from the operations of `Dual`
            (it may return a plain number: then its derivative is 0).
        primals: the point $x$ (n floats).
        tangents: the direction $t$ (n floats).

    Returns:
        $(f(x), \nabla f(x) \cdot t)$ as two floats.
    """
    if len(primals) != len(tangents):
        raise ValueError(
            f"jvp: {len(primals)} primals but {len(tangents)} tangents; give one tangent per input"
        )
    out = _lift(f(*(Dual(float(p), float(t)) for p, t in zip(primals, tangents))))
    return out.primal, out.tangent


def derivative(f: Callable[..., DualLike], *vals: float, arg: int = 0) -> float:
    r"""$\frac{\partial f}{\partial x_{arg}}(x)$: a JVP along the unit vector $e_{arg}$.

    Same signature as `autodiff.central_difference`, but exact up to rounding.
    """
    if not 0 <= arg < len(vals):
        raise IndexError(f"derivative: arg={arg} but f has {len(vals)} inputs")
    tangents = [1.0 if i == arg else 0.0 for i in range(len(vals))]
    return jvp(f, vals, tangents)[1]


def gradient(f: Callable[..., DualLike], *vals: float) -> List[float]:
    r"""$\nabla f(x)$ by $n$ forward passes, one per input (reverse mode needs one pass)."""
    return [derivative(f, *vals, arg=i) for i in range(len(vals))]
