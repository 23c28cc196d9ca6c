"""Bug (as real students write it): the network's output is never viewed as (batch,): the second Linear's output
comes out as [B, 1]. The values are right; their shape is not, and the loss sum(out * g) of the gradient probe
broadcasts. Each message says so as shapes."""

EXPECT = None
FAILS = ["network_forward_eval", "network_forward_no_dropout", "network_gradients"]
MESSAGES = {"network_forward_eval": "the output has shape [3, 1], expected [3]",
            "network_gradients": "the output has shape [5, 1], expected [5]"}
EDITS = [("        return x.view(batch)\n", "        return x\n")]
