"""Buggy, written as one chain: probabilities from exp(z) / sum(exp(z)) (no max subtracted), log-probabilities
as their log, the loss from those log-probabilities by a loop over the batch. Overflow on +1000 and log(0) on
confident logits: both named."""

LABELS = ["softmax-overflow", "log-of-softmax"]
FAILS = ["softmax", "log_softmax", "cross_entropy"]


def softmax(z: np.ndarray) -> np.ndarray:
    z = np.array(z, dtype=float)
    out = np.empty_like(z)
    for i, row in enumerate(z):
        weights = np.exp(row)
        out[i] = weights / np.sum(weights)
    return out


def log_softmax(z: np.ndarray) -> np.ndarray:
    return np.log(softmax(z))


def cross_entropy(logits: np.ndarray, y: np.ndarray) -> float:
    logp = log_softmax(logits)
    total = 0.0
    for i, label in enumerate(y):
        total -= logp[i, int(label)]
    return float(total / len(y))
