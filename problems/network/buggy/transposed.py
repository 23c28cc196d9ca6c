"""Bug: PyTorch's (out, in) weight layout instead of the contract's (in, out)."""

EXPECT = None


class Linear(minitorch.Module):
    def __init__(self, in_size, out_size):
        super().__init__()
        self.weights = minitorch.Parameter(0.1 * (minitorch.rand((out_size, in_size), backend=BACKEND) - 0.5))
        self.bias = minitorch.Parameter(0.1 * (minitorch.rand((out_size,), backend=BACKEND) - 0.5))

    def forward(self, x):
        return x @ self.weights.value.permute(1, 0) + self.bias.value
