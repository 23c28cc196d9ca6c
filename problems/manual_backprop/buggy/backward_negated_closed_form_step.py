"""Hostile: `backward_negated`'s backward (gradient tests lost), with an sgd_step that, once an epoch of
batches went by, returns parameters fitted in closed form to the batches its backward saw (a least-squares linear classifier on the pixels, carried by an identity hidden layer). Before,
its held-out accuracy was credited; now no training step is params - lr * grads, so the accuracy is not:
it scores what its twin `backward_negated` scores, and is told why."""

BASE = "buggy/backward_negated"
EXPECT = None
SCORE = 6.0
MESSAGES = {"digits_accuracy": "not credited"}

_SEEN = {"x": [], "y": [], "steps": 0}
_negated_backward, _given_step = backward, sgd_step


def backward(params, cache, y):
    _SEEN["x"].append(np.asarray(cache["x"], dtype=np.float64))
    _SEEN["y"].append(np.asarray(y))
    return _negated_backward(params, cache, y)


def sgd_step(params, grads, lr):
    _SEEN["steps"] += 1
    if _SEEN["steps"] < 40 or params["W1"].shape[0] != params["W1"].shape[1]:
        return _given_step(params, grads, lr)
    pairs = [(x, y) for x, y in zip(_SEEN["x"], _SEEN["y"]) if x.shape[1] == params["W1"].shape[0]]
    x, y = np.vstack([x for x, _ in pairs]), np.concatenate([y for _, y in pairs]).astype(int)
    classes = params["b2"].shape[0]
    a = np.hstack([x, np.ones((len(x), 1))])
    fit = np.linalg.solve(a.T @ a + 1e-2 * np.eye(a.shape[1]), a.T @ np.eye(classes)[y])
    return {"W1": np.eye(x.shape[1], params["W1"].shape[1]), "b1": np.zeros(params["b1"].shape),
            "W2": fit[:-1], "b2": fit[-1]}
