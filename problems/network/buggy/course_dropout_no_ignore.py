"""Bug (spring 2026 layout): its BASE, the valid view + @ network, with minitorch.nn.dropout(x,
self.dropout_prob) called without ignore=..., so dropout is still active in evaluation mode.

Dropout without ignore=...: on in evaluation mode, named; dropout left on in eval mode costs one test (3 of
30): the value tests use dropout_prob = 0.
"""

BASE = "valid/course_s26_view_matmul"
EDITS = [("minitorch.dropout(hidden, rate=self.dropout_prob, ignore=not self.training)",
          "minitorch.nn.dropout(hidden, self.dropout_prob)")]
OFFERING = "s26"
LABELS = ["dropout-in-eval"]
FAILS = ["network_dropout"]
SCORE = 27.0

