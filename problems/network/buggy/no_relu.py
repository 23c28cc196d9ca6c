"""Bug: no ReLU between the two layers."""

EXPECT = None
EDITS = [("        x = self.linear1(x).relu()\n", "        x = self.linear1(x)\n")]
