"""Bug: loss.backward() twice per step, so each step uses twice the batch's gradient."""

EXPECT = "no-zero-grad"
EDITS = [("                loss.backward()\n", "                loss.backward()\n                loss.backward()\n")]
