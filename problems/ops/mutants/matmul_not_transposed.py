"""MatMul.backward multiplies by the other factor without transposing it (the reference's MatMul, extended)."""

MISCONCEPTION = "matmul-gradient-not-transposed"


class MatMul(MatMul):  # noqa: F821
    @staticmethod
    def backward(ctx, grad_output):
        t1, t2 = ctx.saved_values
        f = grad_output.f
        return f.matrix_multiply(grad_output, t2), f.matrix_multiply(t1, grad_output)
