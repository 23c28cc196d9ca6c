"""Bug (spring 2026 layout): a backward pass on the validation loss and no optim.zero_grad() (its BASE, the
valid loop that clears them, without the optim.zero_grad()): the validation gradients are still on the
parameters at the next epoch's first step.

Gradients that really reach a step.
"""

BASE = "valid/course_validation_backward_cleared"
OFFERING = "s26"
LABELS = ["no-zero-grad"]
FAILS = ["zero_grad"]
SCORE = 25.263158
MESSAGES = {"zero_grad": "a backward pass on the validation data"}
EDITS = [("                optim.zero_grad()\n", "")]
