"""Hostile: `backward_negated`'s backward (gradient tests lost), with an sgd_step that, once an epoch of
batches went by, returns parameters fitted in closed form to the batches its backward saw (a least-squares linear classifier on the pixels, carried by an identity hidden layer). Before,
its held-out accuracy was credited; now no training step is params - lr * grads, so the accuracy is not:
it scores what its twin `backward_negated` scores, and is told why."""

BASE = "buggy/backward_negated"
EXPECT = None
SCORE = 6.0
MESSAGES = {"digits_accuracy": "not credited"}

_SEEN = {"sums": {}, "steps": 0}
_negated_backward, _given_step = backward, sgd_step


def backward(params, cache, y):
    # what a least-squares fit to every batch seen so far needs, summed as the batches come (the fit below is the one
    # over all of them stacked; summing per batch keeps each step's cost from growing with the batches seen)
    x = np.asarray(cache["x"], dtype=np.float64)
    a = np.hstack([x, np.ones((len(x), 1))])
    gram, by_label = _SEEN["sums"].setdefault(x.shape[1], [np.zeros((a.shape[1], a.shape[1])), {}])
    gram += a.T @ a
    for label in np.unique(np.asarray(y).astype(int)):
        by_label[label] = by_label.get(label, 0) + a[np.asarray(y).astype(int) == label].sum(axis=0)
    return _negated_backward(params, cache, y)


def sgd_step(params, grads, lr):
    _SEEN["steps"] += 1
    if _SEEN["steps"] < 40 or params["W1"].shape[0] != params["W1"].shape[1]:
        return _given_step(params, grads, lr)
    gram, by_label = _SEEN["sums"][params["W1"].shape[0]]
    classes = params["b2"].shape[0]
    rhs = np.stack([by_label.get(c, np.zeros(gram.shape[0])) for c in range(classes)], axis=1)
    fit = np.linalg.solve(gram + 1e-2 * np.eye(gram.shape[0]), rhs)
    return {"W1": np.eye(params["W1"].shape[0], params["W1"].shape[1]), "b1": np.zeros(params["b1"].shape),
            "W2": fit[:-1], "b2": fit[-1]}
