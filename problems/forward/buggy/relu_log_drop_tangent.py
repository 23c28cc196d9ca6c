"""Buggy: log and relu return the derivative of the function itself (1/a, and 1 or 0) as the tangent."""

EXPECT = "unary-chain-rule-no-inner-tangent"

import math


def _Dual_log(self) -> "Dual":
    # d/dx log(x) = 1/x
    return Dual(math.log(self.primal), 1.0 / self.primal)


Dual.log = _Dual_log


def _Dual_relu(self) -> "Dual":
    if self.primal > 0:
        return Dual(self.primal, 1.0)
    return Dual(0.0, 0.0)


Dual.relu = _Dual_relu
