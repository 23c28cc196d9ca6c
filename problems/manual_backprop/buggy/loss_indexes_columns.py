"""A student whose cross_entropy indexes logp[:, y] (a B x B block) instead of logp[range(B), y]: wrong, but not a log of an underflowed probability, so log-of-softmax must not be named."""

EXPECT = None
EDITS = [("    return float(-np.mean(logp[np.arange(y.shape[0]), y]))\n", "    return float(-np.mean(logp[:, y]))\n")]
