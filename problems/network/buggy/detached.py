"""Bug: the parameters are detached in forward, so no gradient reaches them."""

EXPECT = None


class Linear(minitorch.Module):
    def __init__(self, in_size, out_size):
        super().__init__()
        self.weights = minitorch.Parameter(0.1 * (minitorch.rand((in_size, out_size), backend=BACKEND) - 0.5))
        self.bias = minitorch.Parameter(0.1 * (minitorch.rand((out_size,), backend=BACKEND) - 0.5))

    def forward(self, x):
        return x @ self.weights.value.detach() + self.bias.value.detach()
