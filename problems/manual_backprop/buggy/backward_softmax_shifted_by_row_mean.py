"""Buggy (red team): its BASE (stable softmax, log_softmax and cross_entropy; a backward that recomputes the
probabilities inline) with the probabilities shifted by each row's MEAN, not its maximum: right while a row's
logits stay within about 709.8 of its mean, nan on the row (0, -1000, 1000). Only the output layer's test judges
the confident problems; no misconception is named (a shift is there, not per row)."""

BASE = "buggy/backward_unshifted_softmax"
EXPECT = None
FAILS = ["grad_output_layer"]
PASSES = ["softmax", "log_softmax", "cross_entropy", "forward", "grad_hidden_layer", "batch_scale", "sgd_step",
          "digits_accuracy"]
MESSAGES = {"grad_output_layer": "its OWN maximum"}
EDITS = [("    e = np.exp(logits)\n", '    e = np.exp(logits - logits.mean(axis=1, keepdims=True))\n')]
