"""Valid (spring 2026 layout), if wasteful: its BASE's loop with a backward pass on the validation loss, but
optim.zero_grad() at the start of every training step clears what it leaves before it can reach a step.

A harmless backward pass on the validation loss (cleared before every step).
"""

BASE = "valid/course_s26_no_zero_grad"
OFFERING = "s26"
SCORE = 30.0
EDITS = [
    ("                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND)\n",
     "                optim.zero_grad()\n"
     "                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND)\n"),
    ("                validation_predictions += get_predictions_array(y, out)\n", """\
                validation_loss = binary_cross_entropy_loss(out, y)
                validation_loss.backward()
                validation_predictions += get_predictions_array(y, out)
"""),
]
