"""Bug: every batch is the whole training set (the batch slice is forgotten)."""

EXPECT = "whole-set-every-batch"
EDITS = [
    ("                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND)\n",
     "                x = minitorch.tensor(X_train, backend=BACKEND)\n"),
    ("                y = minitorch.tensor(y_train[example_num : example_num + batch_size], backend=BACKEND)\n",
     "                y = minitorch.tensor(y_train, backend=BACKEND)\n"),
]
