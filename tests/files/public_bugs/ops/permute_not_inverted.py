"""Permute.backward permutes grad_output by the same order instead of its inverse."""


def _permute_backward(ctx, grad_output):
    (order_list,) = ctx.saved_values
    return grad_output._new(grad_output._tensor.permute(*order_list)), 0.0


Permute.backward = staticmethod(_permute_backward)
