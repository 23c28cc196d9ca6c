"""Valid, written differently: random weights drawn with a wider range than RParam's and a bias that starts at zero
(as many libraries do): the weights break the symmetry, a constant bias does not need to."""

EDITS = [
    ("        self.weights = RParam(in_size, out_size)\n        self.bias = RParam(out_size)\n",
     "        self.weights = minitorch.Parameter(0.5 * (minitorch.rand((in_size, out_size), backend=BACKEND) - 0.5))\n"
     "        self.bias = minitorch.Parameter(minitorch.zeros((out_size,), backend=BACKEND))\n"),
]
