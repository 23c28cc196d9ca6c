"""Exp, Log and Inv return their local derivative without multiplying by grad_output. Each class extends the
reference's and replaces its backward."""

MISCONCEPTION = "gradient-not-chained"


class Exp(Exp):  # noqa: F821
    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_values
        return out


class Log(Log):  # noqa: F821
    @staticmethod
    def backward(ctx, grad_output):
        (t1,) = ctx.saved_values
        return t1.f.inv_map(t1)


class Inv(Inv):  # noqa: F821
    @staticmethod
    def backward(ctx, grad_output):
        (t1,) = ctx.saved_values
        f = t1.f
        return f.neg_map(f.mul_zip(f.inv_map(t1), f.inv_map(t1)))
