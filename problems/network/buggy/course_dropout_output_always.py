"""Bug (two of them): dropout is applied to the output of the second Linear, just before the sigmoid, and with
`ignore=False`, so it is still active after `model.eval()`. Both are named: `dropout-in-eval` and
`dropout-misplaced` (an output unit dropped gives exactly sigmoid(0) = 0.5, in either mode)."""

LABELS = ["dropout-in-eval", "dropout-misplaced"]
SCORE = 27.0
FAILS = ["network_dropout"]
TAGS = {"network_dropout": "dropout-in-eval"}
MESSAGES = {"network_dropout": "after the second Linear"}
EDITS = [
    ("""\
        x = self.linear1(x).relu()
        x = minitorch.dropout(x, self.dropout_prob, ignore=not self.training)
        x = self.linear2(x).sigmoid()
""", """\
        logits = self.linear2(self.linear1(x).relu())
        x = minitorch.dropout(logits, self.dropout_prob, ignore=False).sigmoid()
"""),
]
