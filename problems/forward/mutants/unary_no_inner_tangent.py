"""exp, log and sigmoid return the local derivative g'(a) as the tangent, without multiplying by b."""

import math as _math

MISCONCEPTION = "unary-chain-rule-no-inner-tangent"


def _exp_local_only(self):
    e = _math.exp(self.primal)
    return Dual(e, e)  # noqa: F821


def _log_local_only(self):
    return Dual(_math.log(self.primal), 1.0 / self.primal)  # noqa: F821


def _sigmoid_local_only(self):
    s = operators.sigmoid(self.primal)  # noqa: F821
    return Dual(s, s * (1.0 - s))  # noqa: F821


Dual.exp = _exp_local_only  # noqa: F821
Dual.log = _log_local_only  # noqa: F821
Dual.sigmoid = _sigmoid_local_only  # noqa: F821
