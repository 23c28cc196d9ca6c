"""Buggy: 1/x gets the tangent b/a² (the minus sign of d/dx 1/x = -1/x² is lost); division uses it."""

EXPECT = None


def _Dual_inv(self) -> "Dual":
    a = self.primal
    return Dual(1.0 / a, self.tangent / a**2)


Dual.inv = _Dual_inv
