"""A student whose cross_entropy indexes logp[:, y] (a B x B block) instead of logp[range(B), y]: wrong, but not a log of an underflowed probability, so log-of-softmax must not be named."""

EXPECT = None


def cross_entropy(logits: np.ndarray, y: np.ndarray) -> float:
    logp = log_softmax(logits)
    return float(-np.mean(logp[:, y]))
