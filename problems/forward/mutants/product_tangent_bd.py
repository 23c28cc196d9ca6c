"""Dual.__mul__ takes the tangent b·d (the vanishing ε² term) instead of the product rule ad + bc."""

MISCONCEPTION = "product-rule-no-cross-term"


def _mul_tangents_multiplied(self, other):
    o = _lift(other)  # noqa: F821
    return Dual(self.primal * o.primal, self.tangent * o.tangent)  # noqa: F821


Dual.__mul__ = _mul_tangents_multiplied  # noqa: F821
