"""Buggy: sigmoid's tangent is ȧ·a(1 − a) with a the INPUT (the derivative σ(1 − σ) written with the wrong
variable); the value σ(a) is right and the tangent is linear in ȧ."""

LABELS = ["sigmoid-derivative-of-input"]
FAILS = ["sigmoid_rule"]
EDITS = [
    ("""\
        return Dual(
            operators.sigmoid(self.primal), operators.sigmoid_back(self.primal, self.tangent)
        )
""", """\
        a, a_dot = self.primal, self.tangent
        # d/da sigmoid = a (1 - a)
        return Dual(operators.sigmoid(a), a_dot * a * (1.0 - a))
"""),
]
