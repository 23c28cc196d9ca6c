"""Bug: validation runs in training mode (dropout on)."""

EXPECT = "dropout-in-eval"
EDITS = [("                model.eval()\n", "")]
