"""Bug: PyTorch's (out, in) weight layout instead of the contract's (in, out)."""

EXPECT = None
EDITS = [
    ("        self.weights = RParam(in_size, out_size)\n", "        self.weights = RParam(out_size, in_size)\n"),
    ("        return x @ self.weights.value + self.bias.value\n",
     "        return x @ self.weights.value.permute(1, 0) + self.bias.value\n"),
]
