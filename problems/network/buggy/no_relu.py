"""Bug: no ReLU between the two layers."""

EXPECT = None
MESSAGES = {"network_forward_eval": "where there is no ReLU between the two Linear layers"}
EDITS = [("        x = self.linear1(x).relu()\n", "        x = self.linear1(x)\n")]
