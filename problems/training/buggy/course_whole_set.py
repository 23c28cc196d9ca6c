"""Bug (fall 2025 layout): x and y are built from the whole training set in every batch (the slice is
forgotten; else the valid loop of its BASE, its `cross_entropy_loss` too), so every step trains on all examples.

The whole set as every batch: named, and stopped early.
"""

BASE = "valid/course_f25_requires_grad"
OFFERING = "f25"
LABELS = ["whole-set-every-batch"]
PASSES = ["bce_values", "eval_mode", "zero_grad"]
FAILS = ["accuracy", "minibatches"]
SCORE = 20.526316
MESSAGES = {"minibatches": "X_train[example_num : example_num + batch_size]", "accuracy": "whole training set"}
EDITS = [
    ("""\
                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND, requires_grad=True)
                y = minitorch.tensor(y_train[example_num : example_num + batch_size], backend=BACKEND, requires_grad=True)
                out""", """\
                x = minitorch.tensor(X_train, backend=BACKEND)
                y = minitorch.tensor(y_train, backend=BACKEND)
                out"""),
]
