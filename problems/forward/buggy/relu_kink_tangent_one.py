"""Buggy: relu's tangent tests `a >= 0`, so at the kink a = 0 (and -0.0) it passes the incoming tangent b on
instead of 0; everywhere else it is right. The course's convention is the reverse-mode relu's derivative,
`operators.relu_back(x, d) = d if x > 0 else 0`: tangent 0 at a = 0. The probes' random points and programs
never sit exactly on the kink: only the rule probe's points a = 0.0 and a = -0.0 show it."""

EXPECT = None
FAILS = ["relu_rule"]
PASSES = ["product_rule", "quotient_rule", "exp_rule", "log_rule", "sigmoid_rule", "slides_example", "programs",
          "jvp_linear", "jvp_contract", "gradient_values", "gradient_passes", "jacobian"]
MESSAGES = {"relu_rule": "the tangent 0 there, as the reverse-mode relu's derivative"}
EDITS = [
    ("        return Dual(operators.relu(self.primal), operators.relu_back(self.primal, self.tangent))\n",
     "        return Dual(operators.relu(self.primal), self.tangent if self.primal >= 0 else 0.0)\n"),
]
