"""Buggy (fall 2025 names): a correct `binary_cross_entropy_loss` left unused, and the `cross_entropy_loss`
that `train` calls, a log-softmax over the batch (graded: the one the loop uses).

Both loss names defined: the one the loop calls is graded (a correct unused one earns nothing).
"""

OFFERING = "f25"
LABELS = ["bce-logsoftmax"]
PASSES = ["eval_mode", "minibatches", "zero_grad"]
FAILS = ["bce_values"]
EDITS = [
    ("                loss = binary_cross_entropy_loss(out, y)\n", "                loss = cross_entropy_loss(out, y)\n"),
]


def cross_entropy_loss(out, y):
    """The fall-2025 starter's hint read literally: log-softmax over the batch (a real misconception)."""
    ones = minitorch.tensor([1.0] * out.shape[0], backend=out.backend)
    def lsm(v):
        return v - v.exp().sum().log()
    return -(y * lsm(out) + (ones - y) * lsm(ones - out)).sum() / float(out.shape[0])
