"""Valid (fall 2025): the batches are built on the pure-Python backend, as that starter's TODO says
(graded on the NumPy backend, which computes the same values).

The pure-Python backend.
"""

OFFERING = "f25"
SCORE = 30.0
EDITS = [
    ("""\
                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND)
                y = minitorch.tensor(y_train[example_num : example_num + batch_size], backend=BACKEND)
""", """\
                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=minitorch.SimpleBackend)
                y = minitorch.tensor(y_train[example_num : example_num + batch_size], backend=minitorch.SimpleBackend)
"""),
    ("                loss = binary_cross_entropy_loss(out, y)\n", "                loss = cross_entropy_loss(out, y)\n"),
]


def cross_entropy_loss(out, y):
    # BEGIN ASSIGN2_3
    batch = out.shape[0]
    per_example = y * out.log() + (-y + 1.0) * (-out + 1.0).log()
    return -per_example.sum() / float(batch)
    # END ASSIGN2_3
