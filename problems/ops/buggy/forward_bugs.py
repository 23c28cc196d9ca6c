"""Bugs: every forward computes the wrong function. The backwards are the case's own (written with Tensor
operations, they run through the buggy forwards), except where they do what the reference's do: Add extends
the reference's class with its forward only, and EDITS change the forwards of ReLU, LT and EQ in the reference's."""

EXPECT = None
EDITS = [
    ("        return t1.f.relu_map(t1)\n", "        return t1.f.id_map(t1)\n"),
    ("        return a.f.lt_zip(a, b)\n", "        return a.f.lt_zip(b, a)\n"),
    ("        return a.f.eq_zip(a, b)\n", "        return a.f.lt_zip(a, b)\n"),
]


def _shape_of(t):
    return tuple(int(v) for v in t.to_numpy().reshape(-1))


class Neg(Function):
    @staticmethod
    def forward(ctx, t1):
        return t1.f.id_map(t1)

    @staticmethod
    def backward(ctx, grad_output):
        return -grad_output


class Inv(Function):
    @staticmethod
    def forward(ctx, t1):
        ctx.save_for_backward(t1)
        return t1.f.neg_map(t1.f.inv_map(t1))

    @staticmethod
    def backward(ctx, grad_output):
        (t1,) = ctx.saved_tensors
        inv = t1.f.inv_map(t1)
        return -(grad_output * inv * inv)


class Add(Add):
    @staticmethod
    def forward(ctx, a, b):
        return a.f.mul_zip(a, b)


class Mul(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a.f.add_zip(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output * b, grad_output * a


class Sigmoid(Function):
    @staticmethod
    def forward(ctx, t1):
        ctx.save_for_backward(t1)
        return t1.f.relu_map(t1)

    @staticmethod
    def backward(ctx, grad_output):
        (t1,) = ctx.saved_tensors
        s = t1.f.sigmoid_map(t1)
        return grad_output * s * (-s + 1.0)


class Log(Function):
    @staticmethod
    def forward(ctx, t1):
        ctx.save_for_backward(t1)
        return t1.f.exp_map(t1)

    @staticmethod
    def backward(ctx, grad_output):
        (t1,) = ctx.saved_tensors
        return grad_output / t1


class Exp(Function):
    @staticmethod
    def forward(ctx, t1):
        out = t1.f.id_map(t1)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * out


class Sum(Function):
    @staticmethod
    def forward(ctx, a, dim):
        ctx.save_for_backward(a.shape)
        return a.f.mul_reduce(a, int(dim.item()))

    @staticmethod
    def backward(ctx, grad_output):
        (shape,) = ctx.saved_tensors
        return grad_output.zeros(shape) + grad_output, 0.0


class Permute(Function):
    @staticmethod
    def forward(ctx, a, order):
        dims = _shape_of(order)
        ctx.save_for_backward(dims)
        return a._new(a._tensor.permute(*sorted(range(len(dims)), key=lambda i: dims[i])))

    @staticmethod
    def backward(ctx, grad_output):
        (dims,) = ctx.saved_tensors
        back = sorted(range(len(dims)), key=lambda i: dims[i])
        return grad_output._new(grad_output._tensor.permute(*back)), 0.0


class View(Function):
    @staticmethod
    def forward(ctx, a, shape):
        ctx.save_for_backward(a.shape)
        return minitorch.Tensor.make(a._tensor._storage, tuple(reversed(_shape_of(shape))), backend=a.backend)

    @staticmethod
    def backward(ctx, grad_output):
        (original,) = ctx.saved_tensors
        return grad_output.contiguous().view(*original), 0.0


class MatMul(Function):
    @staticmethod
    def forward(ctx, t1, t2):
        ctx.save_for_backward(t1, t2)
        return t1.f.matrix_multiply(t1, t2) * 2.0

    @staticmethod
    def backward(ctx, grad_output):
        t1, t2 = ctx.saved_tensors

        def swap_last(t):
            order = list(range(t.dims))
            order[-1], order[-2] = order[-2], order[-1]
            return t.permute(*order)

        return grad_output @ swap_last(t2), swap_last(t1) @ grad_output
