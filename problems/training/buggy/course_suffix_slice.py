"""Bug (spring 2026 layout): its BASE, a valid loop, with the batch sliced X_train[example_num:], everything
from example_num to the end of the training set.

X_train[example_num:] as every batch: named, and stopped early.
"""

BASE = "valid/course_s26_no_zero_grad"
OFFERING = "s26"
LABELS = ["whole-set-every-batch"]
PASSES = ["bce_values", "eval_mode", "zero_grad"]
FAILS = ["accuracy", "minibatches"]
SCORE = 20.526316
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
