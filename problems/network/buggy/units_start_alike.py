"""Bug: Linear's weights repeat one random column for every unit (`[[c] * out_size for c in column]`, a list
multiplication slip): the weights are random, but every unit of the layer starts alike and stays alike."""

EXPECT = "weights-not-random"
FAILS = ["linear_parameters"]
PASSES = ["network_parameters", "linear_forward", "linear_gradients"]
EDITS = [
    ("        self.weights = RParam(in_size, out_size)\n",
     "        import random\n\n"
     "        column = [0.1 * (random.random() - 0.5) for _ in range(in_size)]\n"
     "        self.weights = minitorch.Parameter(minitorch.tensor([[c] * out_size for c in column], backend=BACKEND))\n"),
]
