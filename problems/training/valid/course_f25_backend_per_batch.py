"""Valid (fall 2025): each batch's tensors are built on a backend made inside the loop,
`minitorch.TensorBackend(SimpleOps)`: the starter's own BACKEND, made anew at every batch. The values are those of
the given BACKEND; the pure-Python backend is the course's, and is graded at the speed of the grader's own
(its held-out run must not hit the time limit for using it). Full marks.
"""

OFFERING = "f25"
SCORE = 30.0
EDITS = [
    ("""\
                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND)
                y = minitorch.tensor(y_train[example_num : example_num + batch_size], backend=BACKEND)
""", """\
                cpu = minitorch.TensorBackend(SimpleOps)
                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=cpu,
                                     requires_grad=True)
                y = minitorch.tensor(y_train[example_num : example_num + batch_size], backend=cpu,
                                     requires_grad=True)
"""),
    ("                loss = binary_cross_entropy_loss(out, y)\n", "                loss = cross_entropy_loss(out, y)\n"),
]

from minitorch import SimpleOps


def cross_entropy_loss(out, y):
    # BEGIN ASSIGN2_3
    terms = y * out.log() + (-y + 1.0) * (-out + 1.0).log()
    return -terms.mean()
    # END ASSIGN2_3
