"""Hostile: `no_step`'s loop (the optimizer never steps), which then sets the network's parameters to a
closed-form least-squares fit of the labels on the mean embeddings (a linear classifier carried by two
hidden units): the held-out accuracy of parameters the loop did not train. It must score what `no_step`
scores: the accuracy is measured on the parameters the loop's steps produced, and the message says why."""

BASE = "buggy/no_step"
EXPECT = None
SCORE = 15.789474
MESSAGES = {"accuracy": "not values an optimizer step produced"}

_train_without_steps = SentenceSentimentTrain.train


def _closed_form_fit(self, data_train, *args, **kwargs):
    result = _train_without_steps(self, data_train, *args, **kwargs)
    X = np.asarray(data_train[0], dtype=np.float64).mean(axis=1)
    y = 2.0 * np.asarray(data_train[1], dtype=np.float64) - 1.0
    A = np.hstack([X, np.ones((len(X), 1))])
    coef = np.linalg.solve(A.T @ A + 1e-3 * np.eye(A.shape[1]), A.T @ y)
    hidden = self.model.linear1.bias.value.shape[0]
    w1, b1 = np.zeros((X.shape[1], hidden)), np.zeros(hidden)
    w1[:, 0], w1[:, 1], b1[0], b1[1] = coef[:-1], -coef[:-1], coef[-1], -coef[-1]
    w2 = np.zeros((hidden, 1))
    w2[0, 0], w2[1, 0] = 4.0, -4.0
    for parameter, value in ((self.model.linear1.weights, w1), (self.model.linear1.bias, b1),
                             (self.model.linear2.weights, w2), (self.model.linear2.bias, np.zeros(1))):
        parameter.update(minitorch.tensor(value.tolist(), backend=BACKEND))
    return result


SentenceSentimentTrain.train = _closed_form_fit
