"""Bug: Linear's weights and bias start as zeros, not RParam's random values: every hidden unit computes the same
thing and gets the same gradient, so the layer never becomes more than one unit. The value tests set their own
parameters and pass; only the initial-weights check sees it."""

EXPECT = "weights-not-random"
FAILS = ["linear_parameters"]
PASSES = ["network_parameters", "linear_forward", "linear_gradients", "network_forward_eval"]
MESSAGES = {"linear_parameters": "give every unit (column) the same start"}
EDITS = [
    ("        self.weights = RParam(in_size, out_size)\n        self.bias = RParam(out_size)\n",
     "        self.weights = minitorch.Parameter(minitorch.zeros((in_size, out_size), backend=BACKEND))\n"
     "        self.bias = minitorch.Parameter(minitorch.zeros((out_size,), backend=BACKEND))\n"),
]
