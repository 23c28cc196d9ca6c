"""Bug: View.backward reuses the output gradient's storage as is (`Tensor.make(grad_output._tensor._storage,
original)`) without making the gradient contiguous first. Right whenever the gradient is contiguous, but a
gradient with permuted strides (`x.view(4, 3).permute(1, 0)`: Permute.backward hands View a permuted view)
has its storage in another order than its row-major values, so the input gradient comes out scrambled.
(The course starters give View.backward in this form; only the offerings where the student writes View, this
repository's `minitorch` and `all`, grade it.) View.forward and every other Function are
the reference's."""

import minitorch

EXPECT = None
FAILS = ["view_backward"]
PASSES = ["neg_forward", "neg_backward", "inv_forward", "inv_backward", "add_forward", "add_backward", "mul_forward",
          "mul_backward", "sigmoid_forward", "sigmoid_backward", "relu_forward", "relu_backward", "log_forward",
          "log_backward", "exp_forward", "exp_backward", "sum_forward", "sum_backward", "lt_forward", "lt_backward",
          "eq_forward", "eq_backward", "permute_forward", "permute_backward", "view_forward", "matmul_forward",
          "matmul_backward"]
MESSAGES = {"view_backward": "may be non-contiguous"}


class View(View):  # noqa: F821
    @staticmethod
    def backward(ctx, grad_output):
        (original,) = ctx.saved_values
        return (
            minitorch.Tensor.make(grad_output._tensor._storage, original, backend=grad_output.backend),
            0.0,
        )
