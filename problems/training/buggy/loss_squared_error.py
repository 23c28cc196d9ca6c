"""Bug (as a real fall-2025 student wrote it): the loss function returns the mean squared error of the
probabilities, not binary cross-entropy. The loop uses the function as it should, so only the loss's own test
fails, told which loss it computed."""

EXPECT = None
FAILS = ["bce_values"]
PASSES = ["loop_loss"]
MESSAGES = {"bce_values": "mean squared error"}


def binary_cross_entropy_loss(out, y):
    diff = out - y
    return (diff * diff).mean()
