"""Bug (as real students write it): the word embeddings are summed over the sentence's length instead of averaged.
The shapes are right, the values are not: the message says which step differs."""

EXPECT = None
FAILS = ["network_forward_eval", "network_forward_no_dropout", "network_gradients"]
MESSAGES = {"network_forward_eval": "where the word embeddings are summed over the sentence's length"}
EDITS = [("        x = embeddings.mean(1).view(batch, dim)\n", "        x = embeddings.sum(1).view(batch, dim)\n")]
