"""Buggy: softmax and log-softmax subtract the maximum of the WHOLE batch, not each row's maximum."""

EXPECT = None


def softmax(z: np.ndarray) -> np.ndarray:
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - np.max(z))
    return e / e.sum(axis=1, keepdims=True)


def log_softmax(z: np.ndarray) -> np.ndarray:
    z = np.asarray(z, dtype=np.float64)
    shifted = z - np.max(z)
    return shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
