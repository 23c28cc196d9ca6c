"""backward drops the 1/B: dL/dlogits = softmax - onehot, the gradient of the SUM over the batch (the loss is the mean)."""

MISCONCEPTION = "not-averaged-over-batch"


def backward(params, cache, y):
    logits = cache["logits"]
    g = softmax(logits) - one_hot(y, logits.shape[1])  # noqa: F821
    grads = {"W2": cache["h"].T @ g, "b2": g.sum(axis=0)}
    g_z1 = (g @ params["W2"].T) * (cache["z1"] > 0)
    grads["W1"] = cache["x"].T @ g_z1
    grads["b1"] = g_z1.sum(axis=0)
    return grads
