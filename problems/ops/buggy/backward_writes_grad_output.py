"""Bug: Neg's backward negates the `grad_output` it is handed in place (`out=grad_output`). Its own gradient is
right, but Add hands one tensor to both of its inputs, so in `a - b` a's gradient comes out negated. Every other
Function is the reference's."""

EXPECT = "backward-writes-in-place"
FAILS = ["neg_backward"]
PASSES = ["neg_forward", "mul_backward", "add_backward", "exp_backward"]
MESSAGES = {"neg_backward": "Add.backward hands the same one to both of its inputs"}


class Neg(Neg):  # noqa: F821
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.f.neg_map(grad_output, grad_output)
