"""A student whose softmax is exp(log_softmax(z)) (stable, as log_softmax is)."""


def softmax(z: np.ndarray) -> np.ndarray:
    return np.exp(log_softmax(z))


def log_softmax(z: np.ndarray) -> np.ndarray:
    z = np.asarray(z, dtype=float)
    m = np.max(z, axis=1).reshape(-1, 1)
    lse = m + np.log(np.sum(np.exp(z - m), axis=1)).reshape(-1, 1)
    return z - lse


def cross_entropy(logits: np.ndarray, y: np.ndarray) -> float:
    z = np.asarray(logits, dtype=float)
    m = z.max(axis=1)
    lse = m + np.log(np.exp(z - m[:, None]).sum(axis=1))
    return float(np.mean(lse - z[np.arange(len(y)), y]))
