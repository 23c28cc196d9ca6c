"""Bug (spring 2026 layout): the batch is sliced X_train[example_num:], everything from example_num to
the end of the training set.

X_train[example_num:] as every batch: named, and stopped early.
"""

OFFERING = "s26"
LABELS = ["whole-set-every-batch"]
PASSES = ["bce_values", "eval_mode", "zero_grad"]
FAILS = ["accuracy", "minibatches"]
SCORE = 18.0
MESSAGES = {"minibatches": "X_train[example_num:]", "accuracy": "whole training set"}
EDITS = [
    ("""\
                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND)
                y = minitorch.tensor(y_train[example_num : example_num + batch_size], backend=BACKEND)
""", """\
                x = minitorch.tensor(X_train[example_num:], backend=BACKEND)
                y = minitorch.tensor(y_train[example_num:], backend=BACKEND)
"""),
]


def binary_cross_entropy_loss(out, y):
    # BEGIN ASSIGN2_3
    ones = minitorch.tensor_functions.ones(y.shape, backend=out.backend)
    log_p = out.log()
    log_not_p = (ones - out).log()
    return -(y * log_p + (ones - y) * log_not_p).mean()
    # END ASSIGN2_3
