"""Bug (spring 2026 layout): its BASE, a valid loop, with loss.backward() called twice before each step (a
leftover line), so every step uses twice the batch's gradient.

Gradients that really reach a step.
"""

BASE = "valid/course_s26_no_zero_grad"
OFFERING = "s26"
LABELS = ["no-zero-grad"]
FAILS = ["zero_grad"]
SCORE = 25.263158
MESSAGES = {"zero_grad": "2 backward passes (one batch"}
EDITS = [("                loss.backward()\n", "                loss.backward()\n                loss.backward()\n")]
