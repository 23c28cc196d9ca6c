"""Bugs: every backward is a wrong vector-Jacobian product. Five of them are the catalogue's misconceptions and
are named: Sigmoid's derivative taken of the saved input, Log and Exp returning their local derivative without
grad_output, LT and EQ passing the gradient through, Permute's gradient permuted by the same order, MatMul's
without transposes. The others (Neg's sign, Inv, Add's second input, Mul's swapped factors, ReLU's mask,
Sum, View's shape) name nothing."""

LABELS = [
    "comparison-gradient",
    "gradient-not-chained",
    "matmul-gradient-not-transposed",
    "permute-gradient-not-inverted",
    "sigmoid-derivative-of-input",
]

import minitorch


def _shape_of(t):
    return tuple(int(v) for v in t.to_numpy().reshape(-1))


class Neg(Function):
    @staticmethod
    def forward(ctx, t1):
        return t1.f.neg_map(t1)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


class Inv(Function):
    @staticmethod
    def forward(ctx, t1):
        ctx.save_for_backward(t1)
        return t1.f.inv_map(t1)

    @staticmethod
    def backward(ctx, grad_output):
        (t1,) = ctx.saved_tensors
        return grad_output * t1.f.inv_map(t1)


class Add(Function):
    @staticmethod
    def forward(ctx, a, b):
        return a.f.add_zip(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output * 0.0


class Mul(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a.f.mul_zip(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output * a, grad_output * b


class Sigmoid(Function):
    @staticmethod
    def forward(ctx, t1):
        ctx.save_for_backward(t1)
        return t1.f.sigmoid_map(t1)

    @staticmethod
    def backward(ctx, grad_output):
        (t1,) = ctx.saved_tensors
        return grad_output * t1 * (-t1 + 1.0)


class ReLU(Function):
    @staticmethod
    def forward(ctx, t1):
        ctx.save_for_backward(t1)
        return t1.f.relu_map(t1)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


class Log(Function):
    @staticmethod
    def forward(ctx, t1):
        ctx.save_for_backward(t1)
        return t1.f.log_map(t1)

    @staticmethod
    def backward(ctx, grad_output):
        (t1,) = ctx.saved_tensors
        return t1.f.inv_map(t1)


class Exp(Function):
    @staticmethod
    def forward(ctx, t1):
        out = t1.f.exp_map(t1)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return out


class Sum(Function):
    @staticmethod
    def forward(ctx, a, dim):
        ctx.save_for_backward(a.shape)
        return a.f.add_reduce(a, int(dim.item()))

    @staticmethod
    def backward(ctx, grad_output):
        (shape,) = ctx.saved_tensors
        return grad_output.zeros(shape), 0.0


class LT(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a.shape, b.shape)
        return a.f.lt_zip(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output


class EQ(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a.shape, b.shape)
        return a.f.eq_zip(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output


class Permute(Function):
    @staticmethod
    def forward(ctx, a, order):
        dims = _shape_of(order)
        ctx.save_for_backward(dims)
        return a._new(a._tensor.permute(*dims))

    @staticmethod
    def backward(ctx, grad_output):
        (dims,) = ctx.saved_tensors
        return grad_output._new(grad_output._tensor.permute(*dims)), 0.0


class View(Function):
    @staticmethod
    def forward(ctx, a, shape):
        assert a._tensor.is_contiguous(), "Must be contiguous to view"
        ctx.save_for_backward(a.shape)
        return minitorch.Tensor.make(a._tensor._storage, _shape_of(shape), backend=a.backend)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, 0.0


class MatMul(Function):
    @staticmethod
    def forward(ctx, t1, t2):
        ctx.save_for_backward(t1, t2)
        return t1.f.matrix_multiply(t1, t2)

    @staticmethod
    def backward(ctx, grad_output):
        t1, t2 = ctx.saved_tensors
        return grad_output @ t2, t1 @ grad_output
