"""Bug (spring 2026 layout): a right loss function (with an eps in its logs) called by the loop with its
arguments swapped, `binary_cross_entropy_loss(y, out)`, the (y_true, y_pred) order of other libraries: the
loop backpropagates the labels' "cross-entropy" against the outputs, not the batch's mean binary
cross-entropy. The network still learns enough for the held-out accuracy; only the loop's loss test sees it."""

OFFERING = "s26"
EXPECT = None
FAILS = ["loop_loss"]
PASSES = ["bce_values"]
MESSAGES = {"loop_loss": "with the batch's outputs first (out, y)"}
EDITS = [
    ("    per_example = y * out.log() + (-y + 1.0) * (-out + 1.0).log()\n",
     "    eps = 1e-7\n    per_example = y * (out + eps).log() + (-y + 1.0) * (-out + 1.0 + eps).log()\n"),
    ("                loss = binary_cross_entropy_loss(out, y)\n",
     "                loss = binary_cross_entropy_loss(y, out)\n"),
]
