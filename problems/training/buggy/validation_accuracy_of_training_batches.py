"""Bug: the validation block appends the accuracy of the epoch's training predictions to validation_accuracy
(`get_accuracy(train_predictions)`): the model is run on the validation data in eval mode, but the accuracy
handed to log_fn is the training accuracy.
"""

EXPECT = None
FAILS = ["eval_mode"]
PASSES = ["bce_values", "zero_grad", "minibatches", "accuracy"]
SCORE = 25.263158
MESSAGES = {"eval_mode": "the validation accuracy passed to log_fn is"}
EDITS = [("                validation_accuracy.append(get_accuracy(validation_predictions))\n",
          "                validation_accuracy.append(get_accuracy(train_predictions))\n")]
