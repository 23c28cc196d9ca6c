"""Bug: the validation block pairs the validation predictions with training labels (`y_train[:len(X_val)]`
instead of `y_val`), so the validation accuracy handed to log_fn measures nothing. The validation block is the
student's in every starter (its TODO: "Obtain the validation accuracy using the get_accuracy function"); the
probe's validation labels differ from the training labels, so the reported accuracy is not the model's.
"""

EXPECT = None
FAILS = ["eval_mode"]
PASSES = ["bce_values", "zero_grad", "minibatches", "accuracy"]
SCORE = 25.263158
MESSAGES = {"eval_mode": "the validation accuracy passed to log_fn is"}
EDITS = [("                y = minitorch.tensor(y_val, backend=BACKEND)\n",
          "                y = minitorch.tensor(y_train[: len(X_val)], backend=BACKEND)\n")]
