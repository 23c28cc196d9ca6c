"""Bug: the second Linear's output is returned as it is, without the sigmoid: logits, not probabilities."""

EXPECT = None
FAILS = ["network_forward_eval", "network_forward_no_dropout", "network_gradients"]
MESSAGES = {"network_forward_eval": "where there is no sigmoid after the second Linear layer"}
EDITS = [("        x = self.linear2(x).sigmoid()\n", "        x = self.linear2(x)\n")]
