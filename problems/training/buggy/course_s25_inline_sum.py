"""Buggy (spring 2025 layout): no loss function; the loss computed inline in `train` is the SUM of the
batch's binary cross-entropies, not their mean (graded with the s25 offering: its loop-loss test).

An inline loss that sums over the batch: caught by the loss the loop backpropagates (no misconception of its
own).
"""

OFFERING = "s25"
LABELS = []
PASSES = ["eval_mode", "minibatches", "zero_grad"]
FAILS = ["loop_loss"]
EDITS = [
    ("                out = model.forward(x)\n                loss = binary_cross_entropy_loss(out, y)\n", """\
                x.requires_grad_(True)
                y.requires_grad_(True)
                out = model.forward(x)
                ones = minitorch.tensor_functions.ones(y.shape, backend=BACKEND)
                loss = -(y * out.log() + (ones - y) * (ones - out).log()).sum()
"""),
]
