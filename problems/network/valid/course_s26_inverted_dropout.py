"""Valid: inverted (scaled) dropout written by hand, only in training mode.

Dropout on the hidden layer, scaled or not, is dropout.
"""

OFFERING = "s26"
SCORE = 30.0
EDITS = [
    ("        x = minitorch.dropout(x, self.dropout_prob, ignore=not self.training)\n", """\
        if self.training:  # inverted dropout, as in PyTorch: keep the expected activation
            keep = minitorch.rand(x.shape, backend=x.backend) > self.dropout_prob
            x = x * keep * (1.0 / (1.0 - self.dropout_prob))
"""),
]
