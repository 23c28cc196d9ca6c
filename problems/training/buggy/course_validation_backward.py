"""Bug (spring 2026 layout): a backward pass on the validation loss and no optim.zero_grad(): the
validation gradients are still on the parameters at the next epoch's first step.

Gradients that really reach a step.
"""

OFFERING = "s26"
LABELS = ["no-zero-grad"]
FAILS = ["zero_grad"]
SCORE = 24.0
MESSAGES = {"zero_grad": "a backward pass on the validation data"}
EDITS = [
    ("                validation_predictions += get_predictions_array(y, out)\n", """\
                validation_loss = binary_cross_entropy_loss(out, y)
                validation_loss.backward()
                validation_predictions += get_predictions_array(y, out)
"""),
]


def binary_cross_entropy_loss(out, y):
    # BEGIN ASSIGN2_3
    ones = minitorch.tensor_functions.ones(y.shape, backend=out.backend)
    log_p = out.log()
    log_not_p = (ones - out).log()
    return -(y * log_p + (ones - y) * log_not_p).mean()
    # END ASSIGN2_3
