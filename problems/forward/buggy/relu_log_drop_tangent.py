"""Buggy: log and relu return the derivative of the function itself (1/a, and 1 or 0) as the tangent."""

EXPECT = "unary-chain-rule-no-inner-tangent"
EDITS = [
    ("        return Dual(operators.log(self.primal), operators.log_back(self.primal, self.tangent))\n",
     "        # d/dx log(x) = 1/x\n        return Dual(math.log(self.primal), 1.0 / self.primal)\n"),
    ("        return Dual(operators.relu(self.primal), operators.relu_back(self.primal, self.tangent))\n", """\
        if self.primal > 0:
            return Dual(self.primal, 1.0)
        return Dual(0.0, 0.0)
"""),
]

import math
