"""Sigmoid.backward uses x (1 - x) of the input instead of s (1 - s) of the output."""

MISCONCEPTION = "sigmoid-derivative-of-input"


class Sigmoid(Function):  # noqa: F821 - appended to the reference module
    @staticmethod
    def forward(ctx, t1):
        ctx.save_for_backward(t1)
        return t1.f.sigmoid_map(t1)

    @staticmethod
    def backward(ctx, grad_output):
        (t1,) = ctx.saved_values
        f = grad_output.f
        one_minus = f.add_zip(f.neg_map(t1), _const(1.0, t1))  # noqa: F821
        return f.mul_zip(grad_output, f.mul_zip(t1, one_minus))
