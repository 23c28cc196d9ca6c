"""Bug, of the parameter contract only (as a real spring-2025 student wrote it): Linear's bias is a (1, out_size)
Parameter instead of (out_size,). It broadcasts like the contract's, so the network computes the same numbers: only
the parameter-shape tests fail (the probe gives a (1, out) bias the values of the (out,) one)."""

EXPECT = None
FAILS = ["linear_parameters", "network_parameters"]
PASSES = ["linear_forward", "linear_gradients", "network_forward_eval", "network_forward_no_dropout",
          "network_gradients", "network_dropout"]
EDITS = [("        self.bias = RParam(out_size)\n", "        self.bias = RParam(1, out_size)\n")]
