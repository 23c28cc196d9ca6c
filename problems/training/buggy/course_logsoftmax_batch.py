"""Bug (fall 2025 layout): the loss takes a log-softmax over the batch dimension instead of the log of
each probability (a reading of the starter's "log softmax" hint).

A log-softmax over the batch is no BCE (the loop around it is right).
"""

OFFERING = "f25"
LABELS = ["bce-logsoftmax"]
PASSES = ["eval_mode", "minibatches", "zero_grad"]
FAILS = ["bce_values"]
EDITS = [
    ("                loss = binary_cross_entropy_loss(out, y)\n", "                loss = cross_entropy_loss(out, y)\n"),
    ("                optim.step()\n", "                optim.step()\n                optim.zero_grad()\n"),
]


def cross_entropy_loss(out, y):
    # BEGIN ASSIGN1_3
    ones = minitorch.tensor_functions.ones(y.shape, backend=out.backend)
    log_p = minitorch.nn.logsoftmax(out, 0)
    log_not_p = minitorch.nn.logsoftmax(ones - out, 0)
    return (-(y * log_p) - (ones - y) * log_not_p).mean()
    # END ASSIGN1_3
