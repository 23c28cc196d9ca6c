"""Bug: the optimizer never takes a step."""

EXPECT = None
EDITS = [("                optim.step()\n", "")]
