"""log_softmax is the log of the (stable) softmax: a probability that underflows to 0 gives log 0 = -inf."""

MISCONCEPTION = "log-of-softmax"


def log_softmax(z):
    return np.log(softmax(z))  # noqa: F821
