"""Buggy: the ReLU's backward masks with the ReLU's OUTPUT, [h >= 0], which is always true."""

EXPECT = None


def backward(params: Params, cache: dict, y: np.ndarray) -> Params:
    x, z1, h, logits = cache["x"], cache["z1"], cache["h"], cache["logits"]
    B = x.shape[0]
    dlogits = (softmax(logits) - one_hot(y, logits.shape[1])) / B
    dW2 = h.T @ dlogits
    db2 = dlogits.sum(axis=0)
    dh = dlogits @ params["W2"].T
    dz1 = dh * (h >= 0)
    dW1 = x.T @ dz1
    db1 = dz1.sum(axis=0)
    return {"W1": dW1, "b1": db1, "W2": dW2, "b2": db2}
