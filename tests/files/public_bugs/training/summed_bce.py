"""binary_cross_entropy_loss sums over the batch instead of averaging."""


def binary_cross_entropy_loss(out, y):
    return -(y * out.log() + (-y + 1.0) * (-out + 1.0).log()).sum()
