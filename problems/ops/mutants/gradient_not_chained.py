"""Exp, Log and Inv return their local derivative without multiplying by grad_output."""

MISCONCEPTION = "gradient-not-chained"


class Exp(Function):  # noqa: F821
    @staticmethod
    def forward(ctx, t1):
        out = t1.f.exp_map(t1)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_values
        return out


class Log(Function):  # noqa: F821
    @staticmethod
    def forward(ctx, t1):
        ctx.save_for_backward(t1)
        return t1.f.log_map(t1)

    @staticmethod
    def backward(ctx, grad_output):
        (t1,) = ctx.saved_values
        return t1.f.inv_map(t1)


class Inv(Function):  # noqa: F821
    @staticmethod
    def forward(ctx, t1):
        ctx.save_for_backward(t1)
        return t1.f.inv_map(t1)

    @staticmethod
    def backward(ctx, grad_output):
        (t1,) = ctx.saved_values
        f = t1.f
        return f.neg_map(f.mul_zip(f.inv_map(t1), f.inv_map(t1)))
