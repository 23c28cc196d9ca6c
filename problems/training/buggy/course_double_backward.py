"""Bug (spring 2026 layout): loss.backward() is called twice before each step (a leftover line), so every
step uses twice the batch's gradient.

Gradients that really reach a step.
"""

OFFERING = "s26"
LABELS = ["no-zero-grad"]
FAILS = ["zero_grad"]
SCORE = 24.0
MESSAGES = {"zero_grad": "2 backward passes (one batch"}
EDITS = [("                loss.backward()\n", "                loss.backward()\n                loss.backward()\n")]


def binary_cross_entropy_loss(out, y):
    # BEGIN ASSIGN2_3
    ones = minitorch.tensor_functions.ones(y.shape, backend=out.backend)
    log_p = out.log()
    log_not_p = (ones - out).log()
    return -(y * log_p + (ones - y) * log_not_p).mean()
    # END ASSIGN2_3
