"""Buggy, two mistakes in one rule: sigmoid returns the local derivative alone (no incoming tangent) AND takes
it of the input, x(1 - x), instead of σ(x)(1 - σ(x)). Both are named."""

import math

LABELS = ["unary-chain-rule-no-inner-tangent", "sigmoid-derivative-of-input"]
FAILS = ["sigmoid_rule"]


def _logistic(x):
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def _sigmoid_rule(self):
    x = self.primal
    return Dual(_logistic(x), x * (1 - x))


Dual.sigmoid = _sigmoid_rule
