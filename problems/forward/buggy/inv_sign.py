"""Buggy: 1/x gets the tangent b/a² (the minus sign of d/dx 1/x = -1/x² is lost); division uses it."""

EXPECT = None
EDITS = [
    ("        return Dual(operators.inv(self.primal), operators.inv_back(self.primal, self.tangent))\n",
     "        a = self.primal\n        return Dual(1.0 / a, self.tangent / a**2)\n"),
]
