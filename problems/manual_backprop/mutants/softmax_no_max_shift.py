"""softmax and log-sum-exp without subtracting the row maximum: exp(1000) overflows to inf (inf / inf = nan)."""

MISCONCEPTION = "softmax-overflow"


def softmax(z):
    e = np.exp(np.asarray(z, dtype=np.float64))  # noqa: F821
    return e / e.sum(axis=-1, keepdims=True)


def log_softmax(z):
    z = np.asarray(z, dtype=np.float64)  # noqa: F821
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))  # noqa: F821
