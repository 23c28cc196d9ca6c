"""Buggy: The update adds the gradient (p + lr * grad): gradient ascent on the loss."""

EXPECT = None
EDITS = [
    ("    return {name: value - lr * grads[name] for name, value in params.items()}\n",
     "    return {name: value + lr * grads[name] for name, value in params.items()}\n"),
]
