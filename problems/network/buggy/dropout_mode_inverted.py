"""Bug (as a real fall-2025 student wrote it): the dropout flag inverted, ignore=self.training: no unit is dropped
while training, and the validation predictions are random. Named as the inverted mode, not only as dropout left
on during evaluation."""

EXPECT = "dropout-mode-inverted"
FAILS = ["network_dropout"]
EDITS = [("        x = minitorch.dropout(x, self.dropout_prob, ignore=not self.training)\n",
          "        x = minitorch.dropout(x, self.dropout_prob, self.training)\n")]
