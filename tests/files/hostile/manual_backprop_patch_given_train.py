"""Hostile (red team): `backward` is not done yet (zeros), and a correct trainer of its own is patched into
the module's given `train` (`from . import digits_mlp as _given; _given.train = ...`). No accuracy points: the
grader trains through the student's functions with its own loop; the integrity screen lists the patch
(a delta of project/digits_mlp.py, composed and graded like a case of `manual_backprop` by
tests/test_problem_plugins.py)."""


def backward(params: Params, cache: dict, y: np.ndarray) -> Params:
    return {k: np.zeros_like(v) for k, v in params.items()}   # not done yet


# ---- "helpers"
from . import digits_mlp as _given


def _my_backward(params, cache, y):
    logits = cache["logits"]
    g = (softmax(logits) - one_hot(y, logits.shape[1])) / logits.shape[0]
    gz = (g @ params["W2"].T) * (cache["z1"] > 0)
    return {"W2": cache["h"].T @ g, "b2": g.sum(0), "W1": cache["x"].T @ gz, "b1": gz.sum(0)}


def _my_train(x, y, hidden=64, lr=0.5, epochs=30, batch_size=32, seed=0, max_seconds=None, log_fn=None):
    x = np.asarray(x, dtype=np.float64); y = np.asarray(y, dtype=np.int64)
    params = init_params(x.shape[1], hidden, int(y.max()) + 1, seed)
    rng = np.random.default_rng(seed + 1)
    losses = []
    for epoch in range(epochs):
        order = rng.permutation(x.shape[0])
        for s in range(0, x.shape[0], batch_size):
            idx = order[s:s + batch_size]
            logits, cache = forward(params, x[idx])
            grads = _my_backward(params, cache, y[idx])
            params = {k: v - lr * grads[k] for k, v in params.items()}
        losses.append(0.1)
    return params, losses


_given.train = _my_train
