"""Buggy: exp differentiated with the power rule (a·e^(a-1)) and sigmoid's derivative as σ(a)(1 - a)."""

EXPECT = None

import math


def _Dual_exp(self) -> "Dual":
    a = self.primal
    return Dual(math.e**a, a * math.e ** (a - 1) * self.tangent)


Dual.exp = _Dual_exp


def _Dual_sigmoid(self) -> "Dual":
    s = operators.sigmoid(self.primal)
    return Dual(s, s * (1 - self.primal) * self.tangent)


Dual.sigmoid = _Dual_sigmoid
