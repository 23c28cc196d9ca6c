"""Buggy, two misconceptions: softmax without the max shift (overflows on logits near +1000) and the loss as
-log(softmax(z)[y]) (log of a probability that underflows to 0 on confident logits). log_softmax is the
log-sum-exp form, also without the shift. Both misconceptions are named."""

LABELS = ["softmax-overflow", "log-of-softmax"]
FAILS = ["softmax", "log_softmax", "cross_entropy"]


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(np.asarray(z, dtype=np.float64))
    return e / e.sum(axis=1, keepdims=True)


def log_softmax(z: np.ndarray) -> np.ndarray:
    z = np.asarray(z, dtype=np.float64)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def cross_entropy(logits: np.ndarray, y: np.ndarray) -> float:
    p = softmax(logits)
    rows = np.arange(len(y))
    return float(-np.log(p[rows, y]).mean())
