"""Bug: dropout is applied in evaluation mode too."""

EXPECT = "dropout-in-eval"
EDITS = [
    ("        x = minitorch.dropout(x, self.dropout_prob, ignore=not self.training)\n",
     "        x = minitorch.dropout(x, self.dropout_prob, ignore=False)\n"),
]
