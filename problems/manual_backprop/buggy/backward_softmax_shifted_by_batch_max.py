"""Buggy (red team): its BASE (stable softmax, log_softmax and cross_entropy; a backward that recomputes the
probabilities inline) with the probabilities shifted by the WHOLE batch's maximum, not each row's: a row whose
logits all sit 750 below another row's maximum becomes 0 / 0 (nan). Only the output layer's test judges the
confident problems; no misconception is named (a shift is there, not per row)."""

BASE = "buggy/backward_unshifted_softmax"
EXPECT = None
FAILS = ["grad_output_layer"]
PASSES = ["softmax", "log_softmax", "cross_entropy", "forward", "grad_hidden_layer", "batch_scale", "sgd_step",
          "digits_accuracy"]
MESSAGES = {"grad_output_layer": "its OWN maximum"}
EDITS = [("    e = np.exp(logits)\n", '    e = np.exp(logits - np.max(logits))\n')]
