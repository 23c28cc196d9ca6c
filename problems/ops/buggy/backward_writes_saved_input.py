"""Bug: Log's backward computes 1/x into the input it saved (`inv_map(t1, t1)`): the gradient is right, but the
caller's x holds 1/x once backward has run. Every other Function is the reference's."""

EXPECT = "backward-writes-in-place"
FAILS = ["log_backward"]
PASSES = ["log_forward", "exp_backward", "neg_backward"]
MESSAGES = {"log_backward": "wrote into a tensor it saved"}


class Log(Log):  # noqa: F821
    @staticmethod
    def backward(ctx, grad_output):
        (t1,) = ctx.saved_values
        return grad_output.f.mul_zip(grad_output, t1.f.inv_map(t1, t1))
