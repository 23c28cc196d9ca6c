"""LT and EQ pass the gradient through as if they were identities (they are flat: gradient 0). Each class
extends the reference's and replaces its backward."""

MISCONCEPTION = "comparison-gradient"


class LT(LT):  # noqa: F821
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output


class EQ(EQ):  # noqa: F821
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output
