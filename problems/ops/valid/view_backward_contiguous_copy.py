"""Valid: View.backward copies the output gradient into a fresh (contiguous) tensor, whatever its strides, and
gives that copy's storage the input's shape: right also for a gradient with permuted strides (a view that is
permuted later). Every other Function is the reference's."""

import minitorch


class View(View):  # noqa: F821
    @staticmethod
    def backward(ctx, grad_output):
        (original,) = ctx.saved_values
        fresh = grad_output.zeros(grad_output.shape)
        grad_output.f.id_map(grad_output, fresh)  # row-major copy of the values
        return minitorch.Tensor.make(fresh._tensor._storage, original, backend=grad_output.backend), 0.0
