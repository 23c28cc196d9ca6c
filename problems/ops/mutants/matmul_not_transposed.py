"""MatMul.backward multiplies by the other factor without transposing it."""

MISCONCEPTION = "matmul-gradient-not-transposed"


class MatMul(Function):  # noqa: F821
    @staticmethod
    def forward(ctx, t1, t2):
        ctx.save_for_backward(t1, t2)
        return t1.f.matrix_multiply(t1, t2)

    @staticmethod
    def backward(ctx, grad_output):
        t1, t2 = ctx.saved_values
        f = grad_output.f
        return f.matrix_multiply(grad_output, t2), f.matrix_multiply(t1, grad_output)
