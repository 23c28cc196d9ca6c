"""Bugs: every forward computes the wrong function. The backwards are those of its BASE, the valid alternative
(written with Tensor operations, they run through the buggy forwards): each class below extends the base's and
replaces only its forward."""

BASE = "valid/alternative"
EXPECT = None


class Neg(Neg):
    @staticmethod
    def forward(ctx, t1):
        return t1.f.id_map(t1)


class Inv(Inv):
    @staticmethod
    def forward(ctx, t1):
        ctx.save_for_backward(t1)
        return t1.f.neg_map(t1.f.inv_map(t1))


class Add(Add):
    @staticmethod
    def forward(ctx, a, b):
        return a.f.mul_zip(a, b)


class Mul(Mul):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a.f.add_zip(a, b)


class Sigmoid(Sigmoid):
    @staticmethod
    def forward(ctx, t1):
        ctx.save_for_backward(t1)
        return t1.f.relu_map(t1)


class ReLU(ReLU):
    @staticmethod
    def forward(ctx, t1):
        ctx.save_for_backward(t1)
        return t1.f.id_map(t1)


class Log(Log):
    @staticmethod
    def forward(ctx, t1):
        ctx.save_for_backward(t1)
        return t1.f.exp_map(t1)


class Exp(Exp):
    @staticmethod
    def forward(ctx, t1):
        out = t1.f.id_map(t1)
        ctx.save_for_backward(out)
        return out


class Sum(Sum):
    @staticmethod
    def forward(ctx, a, dim):
        ctx.save_for_backward(a.shape)
        return a.f.mul_reduce(a, int(dim.item()))


class LT(LT):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a.shape, b.shape)
        return a.f.lt_zip(b, a)


class EQ(EQ):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a.shape, b.shape)
        return a.f.lt_zip(a, b)


class Permute(Permute):
    @staticmethod
    def forward(ctx, a, order):
        dims = _shape_of(order)
        ctx.save_for_backward(dims)
        return a._new(a._tensor.permute(*sorted(range(len(dims)), key=lambda i: dims[i])))


class View(View):
    @staticmethod
    def forward(ctx, a, shape):
        ctx.save_for_backward(a.shape)
        return minitorch.Tensor.make(a._tensor._storage, tuple(reversed(_shape_of(shape))), backend=a.backend)


class MatMul(MatMul):
    @staticmethod
    def forward(ctx, t1, t2):
        ctx.save_for_backward(t1, t2)
        return t1.f.matrix_multiply(t1, t2) * 2.0
