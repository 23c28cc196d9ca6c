"""Valid (spring 2024 layout): no loss function; the mean binary cross-entropy is computed inline in
`train` (graded with the s24 offering, which has no loss test).

A valid loop: spring 2024's inline loss.
"""

OFFERING = "s24"
SCORE = 30.0
EDITS = [
    ("                out = model.forward(x)\n                loss = binary_cross_entropy_loss(out, y)\n", """\
                x.requires_grad_(True)
                y.requires_grad_(True)
                out = model.forward(x)
                ones = minitorch.tensor_functions.ones(y.shape, backend=BACKEND)
                loss = -(y * out.log() + (ones - y) * (ones - out).log()).sum() / out.shape[0]
"""),
]
