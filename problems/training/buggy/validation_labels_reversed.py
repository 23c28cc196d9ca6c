"""Bug: the validation predictions are paired with the validation labels in reverse order. On the probe's data the
network predicts one class for every sentence, so the accuracy comes out the same; the pairing in
validation_predictions shows it (each entry's probability says which sentence it belongs to)."""

EXPECT = None
FAILS = ["eval_mode"]
MESSAGES = {"eval_mode": "pair each output with its own sentence's label"}
EDITS = [("                validation_predictions += get_predictions_array(y, out)\n",
          "                validation_predictions += get_predictions_array(list(y_val)[::-1], out)\n")]
