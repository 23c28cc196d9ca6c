"""Buggy: the backward divides by 32, the training batch size, written into the code instead of read from the
logits' rows: right for the training run's full batches, wrong for any other batch (the last, smaller one, and
the probes'). Told it divided by a fixed 32, not that it summed."""

EXPECT = "not-averaged-over-batch"
MESSAGES = {"batch_scale": "divided by a fixed 32 instead of this batch's size"}


def backward(params: Params, cache: dict, y: np.ndarray) -> Params:
    logits = cache["logits"]
    g = (softmax(logits) - one_hot(y, logits.shape[1])) / 32
    grads = {"W2": cache["h"].T @ g, "b2": g.sum(axis=0)}
    g_z1 = (g @ params["W2"].T) * (cache["z1"] > 0)
    grads["W1"] = cache["x"].T @ g_z1
    grads["b1"] = g_z1.sum(axis=0)
    return grads
