"""Bug (spring 2026 layout): a right loss function that the loop does not use: it backpropagates the mean
squared error of the outputs instead of binary cross-entropy."""

OFFERING = "s26"
EXPECT = None
FAILS = ["loop_loss"]
PASSES = ["bce_values"]
EDITS = [
    ("                loss = binary_cross_entropy_loss(out, y)\n",
     "                loss = ((out - y) * (out - y)).mean()\n"),
]
