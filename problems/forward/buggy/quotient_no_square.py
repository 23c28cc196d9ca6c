"""Buggy: the quotient rule divides by c instead of c² ((bc - ad)/c); inv is right."""

EXPECT = None


def _Dual_truediv(self, other: DualLike) -> "Dual":
    o = _lift(other)
    a, b, c, d = self.primal, self.tangent, o.primal, o.tangent
    return Dual(a / c, (b * c - a * d) / c)


Dual.__truediv__ = _Dual_truediv
