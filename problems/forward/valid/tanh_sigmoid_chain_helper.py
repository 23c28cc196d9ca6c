"""Valid: each unary rule goes through one helper `_chain(value, local derivative)` that multiplies by the
incoming tangent; sigmoid is written with tanh, σ(a) = (1 + tanh(a/2))/2 and σ'(a) = (1 − tanh²(a/2))/4
(which equals σ(a)(1 − σ(a)), a function of the output)."""

import math


def _chain(self, value, local):
    return Dual(value, local * self.tangent)


def _exp_rule(self):
    e = math.exp(self.primal)
    return _chain(self, e, e)


def _log_rule(self):
    return _chain(self, math.log(self.primal), 1.0 / self.primal)


def _sigmoid_rule(self):
    t = math.tanh(0.5 * self.primal)
    return _chain(self, 0.5 * (1.0 + t), 0.25 * (1.0 - t * t))


def _relu_rule(self):
    positive = self.primal > 0
    return _chain(self, self.primal if positive else 0.0, 1.0 if positive else 0.0)


Dual.exp = _exp_rule
Dual.log = _log_rule
Dual.sigmoid = _sigmoid_rule
Dual.relu = _relu_rule
