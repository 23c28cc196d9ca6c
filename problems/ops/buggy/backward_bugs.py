"""Bugs: every backward is a wrong vector-Jacobian product. Five of them are the catalogue's misconceptions and
are named: Sigmoid's derivative taken of the saved input, Log and Exp returning their local derivative without
grad_output, LT and EQ passing the gradient through, Permute's gradient permuted by the same order, MatMul's
without transposes. The others (Neg's sign, Inv, Add's second input, Mul's swapped factors, ReLU's mask,
Sum, View's shape) name nothing. EDITS replace the backwards of Neg, Inv, Add, Mul, ReLU, Log and Exp in the
reference's classes; each class below extends the reference's and replaces only its backward; Sigmoid's
forward is the case's too: it saves the input, which its backward takes for the output."""

LABELS = [
    "comparison-gradient",
    "gradient-not-chained",
    "matmul-gradient-not-transposed",
    "permute-gradient-not-inverted",
    "sigmoid-derivative-of-input",
]
EDITS = [
    ("        return grad_output.f.neg_map(grad_output)\n", "        return grad_output\n"),
    ("        (t1,) = ctx.saved_values\n        return grad_output.f.inv_back_zip(t1, grad_output)\n",
     "        (t1,) = ctx.saved_tensors\n        return grad_output * t1.f.inv_map(t1)\n"),
    ("        return grad_output, grad_output\n", "        return grad_output, grad_output * 0.0\n"),
    ("        a, b = ctx.saved_values\n"
     "        return grad_output.f.mul_zip(grad_output, b), grad_output.f.mul_zip(grad_output, a)\n",
     "        a, b = ctx.saved_tensors\n        return grad_output * a, grad_output * b\n"),
    ("        (t1,) = ctx.saved_values\n        return grad_output.f.relu_back_zip(t1, grad_output)\n",
     "        return grad_output\n"),
    ("        (t1,) = ctx.saved_values\n        return grad_output.f.log_back_zip(t1, grad_output)\n",
     "        (t1,) = ctx.saved_tensors\n        return t1.f.inv_map(t1)\n"),
    ("        (out,) = ctx.saved_values\n        return grad_output.f.mul_zip(grad_output, out)\n",
     "        (out,) = ctx.saved_tensors\n        return out\n"),
]


class Sigmoid(Function):
    @staticmethod
    def forward(ctx, t1):
        ctx.save_for_backward(t1)
        return t1.f.sigmoid_map(t1)

    @staticmethod
    def backward(ctx, grad_output):
        (t1,) = ctx.saved_tensors
        return grad_output * t1 * (-t1 + 1.0)


class Sum(Sum):
    @staticmethod
    def backward(ctx, grad_output):
        (shape,) = ctx.saved_tensors
        return grad_output.zeros(shape), 0.0


class LT(LT):
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output


class EQ(EQ):
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output


class Permute(Permute):
    @staticmethod
    def backward(ctx, grad_output):
        (dims,) = ctx.saved_tensors
        return grad_output._new(grad_output._tensor.permute(*dims)), 0.0


class View(View):
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, 0.0


class MatMul(MatMul):
    @staticmethod
    def backward(ctx, grad_output):
        t1, t2 = ctx.saved_tensors
        return grad_output @ t2, t1 @ grad_output
