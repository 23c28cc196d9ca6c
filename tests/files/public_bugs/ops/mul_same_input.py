"""Mul.backward multiplies grad_output by each input itself instead of by the other input."""


def _mul_backward(ctx, grad_output):
    a, b = ctx.saved_values
    f = grad_output.f
    return f.mul_zip(grad_output, a), f.mul_zip(grad_output, b)


Mul.backward = staticmethod(_mul_backward)
