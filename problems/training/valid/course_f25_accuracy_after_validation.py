"""Valid (fall 2025): the validation accuracy is computed after the `if data_val is not None:` block, from the
predictions it collected (`correct / len(...)`), so a call of `train()` without validation data divides by zero
at the end of the first epoch. The course's contract never makes that call: the starter's own `default_log_fn`
reads `validation_accuracy[-1]` at every epoch, so `train()` is always given validation data. Every training
step is right: full marks.
"""

OFFERING = "f25"
SCORE = 30.0
EDITS = [
    ("""\
                out = model.forward(x)
                validation_predictions += get_predictions_array(y, out)
                validation_accuracy.append(get_accuracy(validation_predictions))
                # END SOLUTION

                model.train()
""", """\
                out = model.forward(x)
                validation_predictions += get_predictions_array(y, out)
                # END SOLUTION

                model.train()

            right = sum(1 for truth, guess, _ in validation_predictions if truth == guess)
            validation_accuracy.append(right / len(validation_predictions))
"""),
    ("                loss = binary_cross_entropy_loss(out, y)\n", "                loss = cross_entropy_loss(out, y)\n"),
]


def cross_entropy_loss(out, y):
    # BEGIN ASSIGN2_3
    n = out.shape[0]
    log_likelihood = y * out.log() + (-y + 1.0) * (-out + 1.0).log()
    return -(log_likelihood.sum() / n)
    # END ASSIGN2_3
