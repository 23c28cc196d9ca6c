"""Permute.backward permutes the gradient by the same order instead of its inverse."""

MISCONCEPTION = "permute-gradient-not-inverted"


class Permute(Function):  # noqa: F821
    @staticmethod
    def forward(ctx, a, order):
        order_list = [int(order[i]) for i in range(order.size)]
        ctx.save_for_backward(order_list)
        return a._new(a._tensor.permute(*order_list))

    @staticmethod
    def backward(ctx, grad_output):
        (order_list,) = ctx.saved_values
        return grad_output._new(grad_output._tensor.permute(*order_list)), 0.0
