"""Valid: the trainer's own __init__ keeps the loss in `self.loss_fn`, which `train` calls.

The whole trainer class is the student's (its __init__).
"""

OFFERING = "s26"
SCORE = 30.0
EDITS = [
    ("        self.model = Network()\n", "        self.model = Network()\n        self.loss_fn = binary_cross_entropy_loss\n"),
    ("                loss = binary_cross_entropy_loss(out, y)\n", "                loss = self.loss_fn(out, y)\n"),
]
