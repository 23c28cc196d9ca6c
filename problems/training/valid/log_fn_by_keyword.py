"""Valid: log_fn called with the names of the course's `default_log_fn` parameters (all by keyword), which the
starters' logger accepts as it accepts the positional call."""

SCORE = 30.0
EDITS = [
    ("""\
            log_fn(
                epoch,
                total_loss / n_batches,
                train_accuracy,
                validation_predictions,
                validation_accuracy,
            )
""", """\
            log_fn(epoch=epoch, train_loss=total_loss / n_batches, train_accuracy=train_accuracy,
                   validation_predictions=validation_predictions, validation_accuracy=validation_accuracy)
"""),
]
