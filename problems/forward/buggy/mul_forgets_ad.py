"""Buggy: the product rule keeps only the tangent of self times the other value (b·c), forgetting a·d."""

EXPECT = "product-rule-no-cross-term"


def _Dual_mul(self, other: DualLike) -> "Dual":
    o = _lift(other)
    # d(xy) = dx * y
    return Dual(self.primal * o.primal, self.tangent * o.primal)


Dual.__mul__ = _Dual_mul
