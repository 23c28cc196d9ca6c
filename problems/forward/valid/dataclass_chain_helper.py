"""A valid solution: a mutable dataclass whose unary rules go through one helper `_chain(value, local)`
(value g(a), tangent g'(a)·b), the quotient as (b - q·d)/c with q = a/c, sigmoid by tanh, jvp by
`map`, and gradient as the rows of an identity matrix fed to jvp.
"""

import math


def _lift(x: DualLike) -> "Dual":
    return x if isinstance(x, Dual) else Dual(float(x), 0.0)


@dataclass(eq=False)
class Dual:
    primal: float
    tangent: float = 0.0

    def _chain(self, value: float, local: float) -> "Dual":
        """g(a + bε) = g(a) + g'(a)·b ε, given g(a) and g'(a)."""
        return Dual(value, local * self.tangent)

    def __add__(self, other: DualLike) -> "Dual":
        o = _lift(other)
        return Dual(operators.add(self.primal, o.primal), operators.add(self.tangent, o.tangent))

    def __radd__(self, other: DualLike) -> "Dual":
        return _lift(other) + self

    def __neg__(self) -> "Dual":
        return Dual(operators.neg(self.primal), operators.neg(self.tangent))

    def __sub__(self, other: DualLike) -> "Dual":
        return self + (-_lift(other))

    def __rsub__(self, other: DualLike) -> "Dual":
        return _lift(other) + (-self)

    def __mul__(self, other: DualLike) -> "Dual":
        o = _lift(other)
        return Dual(self.primal * o.primal, self.tangent * o.primal + o.tangent * self.primal)

    def __rmul__(self, other: DualLike) -> "Dual":
        return _lift(other) * self

    def inv(self) -> "Dual":
        q = 1.0 / self.primal
        return self._chain(q, -q * q)

    def __truediv__(self, other: DualLike) -> "Dual":
        o = _lift(other)
        q = self.primal / o.primal
        return Dual(q, (self.tangent - q * o.tangent) / o.primal)

    def __rtruediv__(self, other: DualLike) -> "Dual":
        return _lift(other) * self.inv()

    def exp(self) -> "Dual":
        e = math.exp(self.primal)
        return self._chain(e, e)

    def log(self) -> "Dual":
        return self._chain(math.log(self.primal), 1.0 / self.primal)

    def sigmoid(self) -> "Dual":
        s = 0.5 * (1.0 + math.tanh(0.5 * self.primal))
        return self._chain(s, s * (1.0 - s))

    def relu(self) -> "Dual":
        on = 1.0 if self.primal > 0 else 0.0
        return self._chain(self.primal * on, on)

    def __float__(self) -> float:
        return self.primal


def jvp(f: Callable[..., DualLike], primals: Sequence[float], tangents: Sequence[float]) -> Tuple[float, float]:
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
    result = _lift(f(*map(Dual, map(float, primals), map(float, tangents))))
    return result.primal, result.tangent


def gradient(f: Callable[..., DualLike], *vals: float) -> List[float]:
    identity = [[float(i == j) for j in range(len(vals))] for i in range(len(vals))]
    return [jvp(f, vals, row)[1] for row in identity]
