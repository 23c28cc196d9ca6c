"""Buggy (spring 2025 layout, a real student's loop): the inline loss computes `(1 - y)` and `(1 - out)` with a
number on the left of a Tensor. The course's `Tensor` has no `__rsub__` (spring 2024 to spring 2026), so on the
course's framework `train` raises a TypeError at its first batch (the student fixed it in the next commit); our
framework has the course's surface (tests/test_course_surface.py), so it fails the same way here, with the
TypeError in the message, instead of training and scoring.

Every test that runs the loop fails: the loop never gets past its first loss.
"""

OFFERING = "s25"
EXPECT = None
SCORE = 0.0
FAILS = ["eval_mode", "minibatches", "zero_grad", "accuracy"]
MESSAGES = {"minibatches": "TypeError"}
EDITS = [
    ("                out = model.forward(x)\n                loss = binary_cross_entropy_loss(out, y)\n", """\
                out = model.forward(x)
                loss = -(y * out.log() + (1 - y) * (1 - out).log()).sum() / out.shape[0]
"""),
]
