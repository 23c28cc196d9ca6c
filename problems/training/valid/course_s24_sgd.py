"""Valid (spring 2024 layout): the starter's Adam could not run there (its Tensor had no `__pow__`), so
the loop builds SGD instead, as the course's FAQ allows; the mean binary cross-entropy is inline.

SGD instead of the starter's Adam (the accuracy run gives SGD its own step size and epochs).
"""

OFFERING = "s24"
SCORE = 30.0
EDITS = [
    ("        optim = minitorch.Adam(self.model.parameters(), learning_rate)\n",
     "        optim = minitorch.SGD(self.model.parameters(), learning_rate)\n"),
    ("                out = model.forward(x)\n                loss = binary_cross_entropy_loss(out, y)\n", """\
                x.requires_grad_(True)
                y.requires_grad_(True)
                out = model.forward(x)
                ones = minitorch.tensor_functions.ones(y.shape, backend=BACKEND)
                loss = -(y * out.log() + (ones - y) * (ones - out).log()).sum() / out.shape[0]
"""),
]
