"""Buggy: Dual.sigmoid by the textbook 1 / (1 + exp(-a)), right near 0 but raising OverflowError at a = -800
(exp(800)); the rule itself is right, so only the point far from 0 fails and is told how to keep it finite."""

EXPECT = None
FAILS = ["sigmoid_rule"]
PASSES = ["exp_rule", "programs", "slides_example"]
MESSAGES = {"sigmoid_rule": "for a < 0 compute σ(a) as exp(a) / (1 + exp(a))"}
EDITS = [
    ("        return Dual(\n            operators.sigmoid(self.primal), operators.sigmoid_back(self.primal, "
     "self.tangent)\n        )\n",
     "        import math\n\n        s = 1.0 / (1.0 + math.exp(-self.primal))\n"
     "        return Dual(s, s * (1.0 - s) * self.tangent)\n"),
]
