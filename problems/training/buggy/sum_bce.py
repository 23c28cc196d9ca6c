"""Bug: the loss sums over the batch instead of averaging."""

EXPECT = None


def binary_cross_entropy_loss(out, y):
    per_example = y * out.log() + (-y + 1.0) * (-out + 1.0).log()
    return -per_example.sum()
