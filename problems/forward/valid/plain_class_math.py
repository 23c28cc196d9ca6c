"""A valid solution: a plain class with __slots__ (no dataclass), the rules written with `math`,
a quotient rule of its own (not x * y.inv()), a numerically stable sigmoid, and loops in jvp/gradient.
"""

import math


class Dual:
    """The dual number primal + tangent·ε."""

    __slots__ = ("primal", "tangent")

    def __init__(self, primal: float, tangent: float = 0.0) -> None:
        self.primal = primal
        self.tangent = tangent

    def __add__(self, other: DualLike) -> "Dual":
        o = _lift(other)
        return Dual(self.primal + o.primal, self.tangent + o.tangent)

    def __radd__(self, other: DualLike) -> "Dual":
        return _lift(other) + self

    def __neg__(self) -> "Dual":
        return Dual(-self.primal, -self.tangent)

    def __sub__(self, other: DualLike) -> "Dual":
        return self + (-_lift(other))

    def __rsub__(self, other: DualLike) -> "Dual":
        return _lift(other) + (-self)

    def __mul__(self, other: DualLike) -> "Dual":
        # (a + bε)(c + dε) = ac + (ad + bc)ε
        if isinstance(other, Dual):
            a, b, c, d = self.primal, self.tangent, other.primal, other.tangent
            return Dual(a * c, a * d + b * c)
        c = float(other)
        return Dual(self.primal * c, self.tangent * c)

    def __rmul__(self, other: DualLike) -> "Dual":
        return _lift(other) * self

    def inv(self) -> "Dual":
        a, b = self.primal, self.tangent
        return Dual(1.0 / a, -b / (a * a))

    def __truediv__(self, other: DualLike) -> "Dual":
        # (a + bε)/(c + dε) = a/c + (bc - ad)/c² ε
        o = _lift(other)
        a, b, c, d = self.primal, self.tangent, o.primal, o.tangent
        return Dual(a / c, (b * c - a * d) / (c * c))

    def __rtruediv__(self, other: DualLike) -> "Dual":
        return _lift(other) * self.inv()

    def exp(self) -> "Dual":
        value = math.exp(self.primal)
        return Dual(value, value * self.tangent)

    def log(self) -> "Dual":
        return Dual(math.log(self.primal), self.tangent / self.primal)

    def sigmoid(self) -> "Dual":
        a = self.primal
        if a >= 0:
            s = 1.0 / (1.0 + math.exp(-a))
        else:
            z = math.exp(a)
            s = z / (1.0 + z)
        return Dual(s, s * (1.0 - s) * self.tangent)

    def relu(self) -> "Dual":
        if self.primal > 0:
            return Dual(self.primal, self.tangent)
        return Dual(0.0, 0.0)

    def __float__(self) -> float:
        return float(self.primal)


def jvp(f: Callable[..., DualLike], primals: Sequence[float], tangents: Sequence[float]) -> Tuple[float, float]:
    """(f(x), ∇f(x)·t) from one forward pass."""
    if len(primals) != len(tangents):
        raise ValueError("jvp: one tangent per input")
    inputs = []
    for p, t in zip(primals, tangents):
        inputs.append(Dual(float(p), float(t)))
    out = f(*inputs)
    if isinstance(out, Dual):
        return float(out.primal), float(out.tangent)
    return float(out), 0.0


def gradient(f: Callable[..., DualLike], *vals: float) -> List[float]:
    """One pass per input, each with the unit tangent e_i."""
    n = len(vals)
    grad = []
    for i in range(n):
        unit = [0.0] * n
        unit[i] = 1.0
        grad.append(jvp(f, list(vals), unit)[1])
    return grad
