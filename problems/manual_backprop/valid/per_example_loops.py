"""A valid solution with loops: row-by-row softmax, an example loop for the loss, and a backward that
averages the per-example gradients (outer products); its own cache keys; a += SGD step.
"""


def softmax(z: np.ndarray) -> np.ndarray:
    z = np.asarray(z, dtype=np.float64)
    out = np.empty_like(z)
    for i in range(z.shape[0]):
        row = np.exp(z[i] - np.max(z[i]))
        out[i] = row / np.sum(row)
    return out


def log_softmax(z: np.ndarray) -> np.ndarray:
    z = np.asarray(z, dtype=np.float64)
    out = np.empty_like(z)
    for i in range(z.shape[0]):
        shifted = z[i] - np.max(z[i])
        out[i] = shifted - np.log(np.sum(np.exp(shifted)))
    return out


def cross_entropy(logits: np.ndarray, y: np.ndarray) -> float:
    logp = log_softmax(logits)
    total = 0.0
    for i, label in enumerate(y):
        total -= logp[i, int(label)]
    return total / len(y)


def forward(params: Params, x: np.ndarray) -> Tuple[np.ndarray, dict]:
    pre = np.asarray(x, dtype=np.float64) @ params["W1"] + params["b1"]
    act = np.maximum(pre, 0)
    out = act @ params["W2"] + params["b2"]
    return out, {"inputs": np.asarray(x, dtype=np.float64), "pre": pre, "act": act, "out": out}


def backward(params: Params, cache: dict, y: np.ndarray) -> Params:
    # one example at a time: the batch gradient is the mean of the per-example gradients
    x, pre, act, out = cache["inputs"], cache["pre"], cache["act"], cache["out"]
    batch = out.shape[0]
    grads = {name: np.zeros_like(value) for name, value in params.items()}
    probs = softmax(out)
    for i in range(batch):
        d_out = probs[i].copy()
        d_out[int(y[i])] -= 1.0
        grads["W2"] += np.outer(act[i], d_out)
        grads["b2"] += d_out
        d_pre = (params["W2"] @ d_out) * (pre[i] > 0)
        grads["W1"] += np.outer(x[i], d_pre)
        grads["b1"] += d_pre
    return {name: g / batch for name, g in grads.items()}


def sgd_step(params: Params, grads: Params, lr: float) -> Params:
    for name, grad in grads.items():
        params[name] -= lr * grad
    return params
