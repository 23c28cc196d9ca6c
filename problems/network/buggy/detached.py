"""Bug: the parameters are detached in forward, so no gradient reaches them."""

EXPECT = None
EDITS = [
    ("        return x @ self.weights.value + self.bias.value\n",
     "        return x @ self.weights.value.detach() + self.bias.value.detach()\n"),
]
