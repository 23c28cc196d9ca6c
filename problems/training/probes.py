"""Hidden probes for `training` (run in the sandbox): the student's loss and training loop
driving the reference Network.

Inputs come from the parent (inputs_dir/data.npz): training embeddings with
labels, and held-out embeddings WITHOUT labels. The accuracy probe returns
predicted probabilities; the parent, which alone has the labels, scores them.
"""

import os

import numpy as np

import minitorch
from minitorch import autodiff
from probekit import PROBES, probe  # noqa: F401
from project import run_sentiment as hw


def load(inputs_dir):
    data = np.load(os.path.join(inputs_dir, "data.npz"))
    return data["X_train"], data["y_train"], data["X_heldout"]


def as_lists(x):
    return np.asarray(x, dtype=np.float64).tolist()


def quiet_log(*args, **kwargs):
    pass


@probe("bce_values")
def bce_values(_):
    rng = np.random.default_rng(3)
    cases = []
    for batch in (1, 4, 9):
        p = minitorch.tensor(rng.uniform(0.05, 0.95, (batch,)), requires_grad=True)
        y = minitorch.tensor(rng.integers(0, 2, (batch,)).astype(float))
        loss = hw.binary_cross_entropy_loss(p, y)
        loss.backward()
        cases.append({"loss": float(loss.item()), "grad": as_lists(p.grad.to_numpy())})
    return cases


class Recorder:
    """Wraps autodiff.backpropagate to look at the leaves' gradients just before each backward pass."""

    def __init__(self):
        self.before = []
        self.original = autodiff.backpropagate

    def __call__(self, variable, deriv):
        leaves, seen, stack = [], set(), [variable]
        while stack:
            v = stack.pop()
            if v.unique_id in seen or v.is_constant():
                continue
            seen.add(v.unique_id)
            if v.is_leaf():
                leaves.append(v)
            else:
                stack.extend(v.parents)
        leftover = 0.0
        for leaf in leaves:
            grad = getattr(leaf, "grad", None)
            if grad is not None:
                leftover = max(leftover, float(np.max(np.abs(grad.to_numpy()))))
        self.before.append(leftover)
        return self.original(variable, deriv)


@probe("zero_grad")
def zero_grad(inputs_dir):
    X, y, _ = load(inputs_dir)
    X, y = X[:48], y[:48]
    trainer = hw.SentenceSentimentTrain()
    trainer.model = hw.Network(embedding_dim=X.shape[2], hidden_dim=8, dropout_prob=0.0)
    recorder = Recorder()
    autodiff.backpropagate = recorder
    try:
        trainer.train((as_lists(X), as_lists(y)), learning_rate=0.01, batch_size=16, max_epochs=2, log_fn=quiet_log)
    finally:
        autodiff.backpropagate = recorder.original
    return {"backward_calls": len(recorder.before), "leftover": recorder.before}


def fingerprints(X):
    """One number per example (its embeddings' sum), to recognise which rows a forward was fed."""
    return [round(float(v), 9) for v in np.asarray(X, dtype=np.float64).reshape(len(X), -1).sum(axis=1)]


class WatchedNetwork(hw.Network):
    """The reference Network, recording its mode and whether it was fed validation rows."""

    calls = []
    validation = set()

    def forward(self, embeddings):
        rows = fingerprints(embeddings.to_numpy())
        is_val = bool(rows) and all(r in WatchedNetwork.validation for r in rows)
        WatchedNetwork.calls.append((is_val, self.training))
        return super().forward(embeddings)


@probe("eval_mode")
def eval_mode(inputs_dir):
    X, y, X_held = load(inputs_dir)
    X, y, X_val = X[:40], y[:40], X_held[:23]
    WatchedNetwork.calls = []
    WatchedNetwork.validation = set(fingerprints(X_val)) - set(fingerprints(X))
    trainer = hw.SentenceSentimentTrain()
    trainer.model = WatchedNetwork(embedding_dim=X.shape[2], hidden_dim=8, dropout_prob=0.5)
    dummy_labels = [0.0] * len(X_val)
    trainer.train((as_lists(X), as_lists(y)), learning_rate=0.01, batch_size=20, max_epochs=2,
                  data_val=(as_lists(X_val), dummy_labels), log_fn=quiet_log)
    modes = {"validation": [], "training": []}
    for is_val, training in WatchedNetwork.calls:
        modes["validation" if is_val else "training"].append(training)
    return modes


@probe("accuracy")
def accuracy(inputs_dir):
    X, y, X_held = load(inputs_dir)
    trainer = hw.SentenceSentimentTrain()
    losses = []

    def log_fn(epoch, train_loss, *rest):
        losses.append(float(train_loss))

    trainer.train((as_lists(X), as_lists(y)), learning_rate=0.01, batch_size=32, max_epochs=6,
                  data_val=(as_lists(X_held[:50]), [0.0] * 50), log_fn=log_fn)
    model = trainer.model
    model.eval()
    probs = model.forward(minitorch.tensor(X_held)).to_numpy()
    return {"probabilities": as_lists(probs.reshape(-1)), "losses": losses}
