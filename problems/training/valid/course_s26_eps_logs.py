"""Valid (spring 2026 layout): a stabilising eps = 1e-7 inside both logs of the loss, the sum divided by
the batch size, optim.zero_grad() at the start of every step.

A valid loop: an eps inside the logs.
"""

OFFERING = "s26"
SCORE = 30.0
EDITS = [
    ("                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND)\n",
     "                optim.zero_grad()\n"
     "                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND)\n"),
]


def binary_cross_entropy_loss(out, y):
    # BEGIN ASSIGN2_3
    eps = 1e-7
    ones = minitorch.tensor_functions.ones(y.shape, backend=out.backend)
    per_example = y * (out + eps).log() + (ones - y) * (ones - out + eps).log()
    return -per_example.sum() / out.shape[0]
    # END ASSIGN2_3
