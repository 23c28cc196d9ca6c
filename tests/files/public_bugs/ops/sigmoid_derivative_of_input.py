"""Sigmoid.backward uses x(1 - x) of the saved input instead of sigma(x)(1 - sigma(x))."""


def _sigmoid_forward(ctx, t1):
    ctx.save_for_backward(t1)
    return t1.f.sigmoid_map(t1)


def _sigmoid_backward(ctx, grad_output):
    (x,) = ctx.saved_values
    f = grad_output.f
    one_minus_x = f.add_zip(minitorch.tensor([1.0], backend=f), f.neg_map(x))
    return f.mul_zip(grad_output, f.mul_zip(x, one_minus_x))


Sigmoid.forward = staticmethod(_sigmoid_forward)
Sigmoid.backward = staticmethod(_sigmoid_backward)
