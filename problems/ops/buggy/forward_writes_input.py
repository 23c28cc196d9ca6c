"""Bug: Exp's and ReLU's forwards map into their input (`out=t1`): the outputs, and the gradients (Exp saves the
output, which is its input now), are right, but the caller's tensor is overwritten, so `x + x.exp()` would read
exp(x) for x. Every other Function is the reference's."""

EXPECT = "forward-writes-input"
FAILS = ["exp_forward", "relu_forward"]
PASSES = ["exp_backward", "relu_backward", "neg_forward", "add_forward"]
MESSAGES = {"exp_forward": "wrote them into its input tensor"}


class Exp(Exp):  # noqa: F821
    @staticmethod
    def forward(ctx, t1):
        out = t1.f.exp_map(t1, t1)
        ctx.save_for_backward(out)
        return out


class ReLU(ReLU):  # noqa: F821
    @staticmethod
    def forward(ctx, t1):
        ctx.save_for_backward(t1.f.id_map(t1))
        return t1.f.relu_map(t1, t1)
