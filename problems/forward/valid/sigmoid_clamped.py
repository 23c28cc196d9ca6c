"""Valid, written differently: Dual.sigmoid clamps a to [-20, 20] before 1 / (1 + exp(-a)), so nothing
overflows; far from 0 it is 2e-9 off 0 or 1, which no use of a sigmoid can tell."""

EDITS = [
    ("        return Dual(\n            operators.sigmoid(self.primal), operators.sigmoid_back(self.primal, "
     "self.tangent)\n        )\n",
     "        import math\n\n        a = min(20.0, max(-20.0, self.primal))\n"
     "        s = 1.0 / (1.0 + math.exp(-a))\n"
     "        return Dual(s, s * (1.0 - s) * self.tangent)\n"),
]
