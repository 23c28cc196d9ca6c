"""Valid (fall 2025 layout): the loss is `cross_entropy_loss` with eps = 1e-9 inside the logs, the pure-Python
SimpleOps backend, x and y made with requires_grad=True as the TODO list says, and optim.zero_grad()
after optim.step().

A valid loop: fall 2025's `cross_entropy_loss` on SimpleOps with requires_grad=True inputs.
"""

OFFERING = "f25"
SCORE = 30.0
EDITS = [
    ("""\
                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND)
                y = minitorch.tensor(y_train[example_num : example_num + batch_size], backend=BACKEND)
""", """\
                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND, requires_grad=True)
                y = minitorch.tensor(y_train[example_num : example_num + batch_size], backend=BACKEND, requires_grad=True)
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
