"""Buggy (red team): softmax, log_softmax and cross_entropy are the stable ones, but backward recomputes
the probabilities inline shifted by the WHOLE batch's maximum, not each row's: a row whose logits all sit 750 below another row's maximum becomes 0 / 0 (nan). Only the output layer's test judges the confident problems."""

EXPECT = None
FAILS = ["grad_output_layer"]
PASSES = ["softmax", "log_softmax", "cross_entropy", "forward", "grad_hidden_layer", "batch_scale", "sgd_step",
          "digits_accuracy"]
MESSAGES = {"grad_output_layer": "its OWN maximum"}


def backward(params: Params, cache: dict, y: np.ndarray) -> Params:
    logits = cache["logits"]
    batch = logits.shape[0]
    e = np.exp(logits - np.max(logits))
    probs = e / e.sum(axis=1, keepdims=True)
    g = (probs - one_hot(y, logits.shape[1])) / batch
    grads = {"W2": cache["h"].T @ g, "b2": g.sum(axis=0)}
    g_h = g @ params["W2"].T
    g_z1 = g_h * (cache["z1"] > 0)
    grads["W1"] = cache["x"].T @ g_z1
    grads["b1"] = g_z1.sum(axis=0)
    return grads
