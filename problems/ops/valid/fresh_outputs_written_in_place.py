"""Valid, written differently: Neg's and Exp's forwards and Neg's backward make a fresh tensor first and map into it
(`out=` a new tensor of zeros), so neither an input nor the `grad_output` handed in changes. Every other Function is
the reference's."""


class Neg(Neg):  # noqa: F821
    @staticmethod
    def forward(ctx, t1):
        out = t1.zeros(t1.shape)
        t1.f.neg_map(t1, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        out = grad_output.zeros(grad_output.shape)
        grad_output.f.neg_map(grad_output, out)
        return out


class Exp(Exp):  # noqa: F821
    @staticmethod
    def forward(ctx, t1):
        out = t1.zeros(t1.shape)
        t1.f.exp_map(t1, out)
        ctx.save_for_backward(out)
        return out

