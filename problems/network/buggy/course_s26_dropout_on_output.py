"""Buggy: dropout on the output of the second Linear, just before the sigmoid (`dropout-misplaced`).

Dropout on the output is misplaced.
"""

OFFERING = "s26"
LABELS = ["dropout-misplaced"]
FAILS = ["network_dropout"]
SCORE = 27.0
EDITS = [
    ("""\
        x = self.linear1(x).relu()
        x = minitorch.dropout(x, self.dropout_prob, ignore=not self.training)
        x = self.linear2(x).sigmoid()
""", """\
        x = self.linear2(self.linear1(x).relu())
        x = minitorch.dropout(x, self.dropout_prob, ignore=not self.training).sigmoid()
"""),
]
