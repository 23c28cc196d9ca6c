"""Buggy: exp differentiated with the power rule (a·e^(a-1)) and sigmoid's derivative as σ(a)(1 - a)."""

EXPECT = None
EDITS = [
    ("        e = operators.exp(self.primal)\n        return Dual(e, operators.mul(e, self.tangent))\n",
     "        a = self.primal\n        return Dual(math.e**a, a * math.e ** (a - 1) * self.tangent)\n"),
    ("""\
        return Dual(
            operators.sigmoid(self.primal), operators.sigmoid_back(self.primal, self.tangent)
        )
""", """\
        s = operators.sigmoid(self.primal)
        return Dual(s, s * (1 - self.primal) * self.tangent)
"""),
]

import math
