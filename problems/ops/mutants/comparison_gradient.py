"""LT and EQ pass the gradient through as if they were identities (they are flat: gradient 0)."""

MISCONCEPTION = "comparison-gradient"


class LT(Function):  # noqa: F821
    @staticmethod
    def forward(ctx, a, b):
        return a.f.lt_zip(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output


class EQ(Function):  # noqa: F821
    @staticmethod
    def forward(ctx, a, b):
        return a.f.eq_zip(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output
