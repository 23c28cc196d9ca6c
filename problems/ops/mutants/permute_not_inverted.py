"""Permute.backward permutes the gradient by the same order instead of its inverse (the reference's Permute,
extended)."""

MISCONCEPTION = "permute-gradient-not-inverted"


class Permute(Permute):  # noqa: F821
    @staticmethod
    def backward(ctx, grad_output):
        (order_list,) = ctx.saved_values
        return grad_output._new(grad_output._tensor.permute(*order_list)), 0.0
