"""Backwards written with Tensor operations and the gradient of Sum left to chain_rule's broadcasting;
Permute.backward inverts the order with argsort."""

import numpy as _np


def _sigmoid_backward(ctx, grad_output):
    (s,) = ctx.saved_values
    return grad_output * s * (-s + 1.0)


def _sum_backward(ctx, grad_output):
    return grad_output, 0.0  # chain_rule expands [.., 1, ..] back to the input's shape


def _permute_backward(ctx, grad_output):
    (order_list,) = ctx.saved_values
    inverse = [int(i) for i in _np.argsort(order_list)]
    return grad_output._new(grad_output._tensor.permute(*inverse)), 0.0


Sigmoid.backward = staticmethod(_sigmoid_backward)
Sum.backward = staticmethod(_sum_backward)
Permute.backward = staticmethod(_permute_backward)
