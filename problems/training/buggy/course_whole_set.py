"""Bug (fall 2025 layout): x and y are built from the whole training set in every batch (the slice is
forgotten), so every step trains on all examples.

The whole set as every batch: named, and stopped early.
"""

OFFERING = "f25"
LABELS = ["whole-set-every-batch"]
PASSES = ["bce_values", "eval_mode", "zero_grad"]
FAILS = ["accuracy", "minibatches"]
SCORE = 18.0
MESSAGES = {"minibatches": "X_train[example_num : example_num + batch_size]", "accuracy": "whole training set"}
EDITS = [
    ("""\
                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND)
                y = minitorch.tensor(y_train[example_num : example_num + batch_size], backend=BACKEND)
""", """\
                x = minitorch.tensor(X_train, backend=BACKEND)
                y = minitorch.tensor(y_train, backend=BACKEND)
"""),
    ("                loss = binary_cross_entropy_loss(out, y)\n", "                loss = cross_entropy_loss(out, y)\n"),
    ("                optim.step()\n", "                optim.step()\n                optim.zero_grad()\n"),
]


def cross_entropy_loss(out, y):
    # BEGIN ASSIGN1_3
    eps = 1e-9
    ones = minitorch.tensor_functions.ones(y.shape, backend=out.backend)
    per_example = y * (out + eps).log() + (ones - y) * (ones - out + eps).log()
    return -per_example.sum() / out.shape[0]
    # END ASSIGN1_3
