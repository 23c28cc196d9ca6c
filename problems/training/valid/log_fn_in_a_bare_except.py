"""Valid: the loop calls log_fn inside `try: ... except: pass` (a logging failure must not end the training). The
grader stops a student's training by raising from log_fn once the held-out accuracy is past the target; this loop
swallows that and trains on, is stopped again at its next log_fn call, and is credited the accuracy measured at the
first stop, as a loop without the wrapper is: full marks, and the message names that call."""

SCORE = 30.0
MESSAGES = {"accuracy": "measured at log_fn's call 3, where it had passed the target"}
EDITS = [("""            log_fn(
                epoch,
                total_loss / n_batches,
                train_accuracy,
                validation_predictions,
                validation_accuracy,
            )
""", """            try:
                log_fn(
                    epoch,
                    total_loss / n_batches,
                    train_accuracy,
                    validation_predictions,
                    validation_accuracy,
                )
            except:  # noqa: E722 - a logging failure must not end the training
                pass
"""),
]
