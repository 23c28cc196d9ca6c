"""Buggy: dW = g^T a instead of a^T g (the weight gradients come out transposed)."""

EXPECT = None


def backward(params: Params, cache: dict, y: np.ndarray) -> Params:
    x, z1, h, logits = cache["x"], cache["z1"], cache["h"], cache["logits"]
    g = (softmax(logits) - one_hot(y, logits.shape[1])) / logits.shape[0]
    dz1 = (g @ params["W2"].T) * (z1 > 0)
    return {"W1": dz1.T @ x, "b1": dz1.sum(axis=0), "W2": g.T @ h, "b2": g.sum(axis=0)}
