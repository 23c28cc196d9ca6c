"""Buggy (spring 2025 layout): no loss function; the loss computed inline in `train` (as in its BASE) is the SUM
of the batch's binary cross-entropies, not their mean (graded with the s25 offering: its loop-loss test).

An inline loss that sums over the batch: caught by the loss the loop backpropagates (no misconception of its
own).
"""

BASE = "valid/course_s24_inline_loss"
OFFERING = "s25"
LABELS = []
PASSES = ["eval_mode", "minibatches", "zero_grad"]
FAILS = ["loop_loss"]
EDITS = [(".sum() / out.shape[0]\n                loss.backward()\n", ".sum()\n                loss.backward()\n")]
