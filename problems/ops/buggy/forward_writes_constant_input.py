"""Bug: Exp's forward maps into its input when no gradient is needed (`ctx.no_grad`: every input a constant), as
if nobody could still need it: `x.exp()` of a constant x overwrites x. With gradients it is the reference's, so only
the forward on constants shows it. Every other Function is the reference's."""

EXPECT = "forward-writes-input"
FAILS = ["exp_forward"]
PASSES = ["exp_backward", "log_forward"]


class Exp(Exp):  # noqa: F821
    @staticmethod
    def forward(ctx, t1):
        if ctx.no_grad:
            return t1.f.exp_map(t1, t1)
        out = t1.f.exp_map(t1)
        ctx.save_for_backward(out)
        return out
