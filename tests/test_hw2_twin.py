r"""The HW2 network (reference/project/run_sentiment.py) against a PyTorch float64 twin.

The twin starts from the same parameters, sees the same batches and replays
the SAME dropout masks: every mask minitorch draws is recorded by wrapping
`minitorch.nn.dropout_mask` and fed to torch as the course's UNSCALED dropout
(`h * mask`). Its loss is written out like `binary_cross_entropy_loss` (mean
over the batch) and it is trained with the course's Adam written out below
(`CourseAdam`: denominator $\sqrt{v} + \epsilon$, step
$\eta\sqrt{1-\beta_2^t}/(1-\beta_1^t)$; torch.optim.Adam puts epsilon
elsewhere). So the two runs must agree to rounding: losses to 1e-9 over 100+
Adam steps (batch 32, length 20, dim 50, hidden 32, dropout 0.5, lr 0.01), on
random embeddings and on the bundled corpus through the script's own
`SentenceSentimentTrain.train`.
"""

import importlib.util
import math
import random
from pathlib import Path
from typing import ClassVar, Dict, List

import numpy as np
import pytest
import torch

import minitorch

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "reference" / "project" / "run_sentiment.py"

B, L, D, H, P, LR = 32, 20, 50, 32, 0.5, 0.01
TOL = 1e-9


def _load_script():
    spec = importlib.util.spec_from_file_location("hw2_run_sentiment_under_test", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


hw2 = _load_script()


@pytest.fixture
def masks(monkeypatch) -> List[np.ndarray]:
    """Record every dropout mask `minitorch.dropout` draws."""
    drawn: List[np.ndarray] = []
    orig = minitorch.nn.dropout_mask

    def rec(shape, rate, backend=None):
        m = orig(shape, rate, backend=backend)
        drawn.append(m.to_numpy())
        return m

    monkeypatch.setattr(minitorch.nn, "dropout_mask", rec)
    return drawn


class CourseAdam:
    """The course's Adam (spring 2026 optim.py), written out in torch float64."""

    def __init__(self, params, lr, beta1=0.9, beta2=0.999, eps=1e-8):
        self.params, self.lr, self.beta1, self.beta2, self.eps = list(params), lr, beta1, beta2, eps
        self.t = 0
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        self.t += 1
        bc1, bc2 = 1.0 - self.beta1**self.t, 1.0 - self.beta2**self.t
        step_size = self.lr * math.sqrt(bc2) / bc1
        for i, p in enumerate(self.params):
            g = p.grad
            self.m[i] = self.m[i] * self.beta1 + (1 - self.beta1) * g
            self.v[i] = self.v[i] * self.beta2 + (1 - self.beta2) * g**2
            p -= step_size * self.m[i] / (self.v[i].sqrt() + self.eps)


class Twin:
    """The HW2 network in torch float64, parameters copied from a minitorch Network."""

    NAMES: ClassVar[List[str]] = ["linear1.weights", "linear1.bias", "linear2.weights", "linear2.bias"]

    def __init__(self, model):
        named = dict(model.named_parameters())
        assert list(named) == self.NAMES, f"unexpected parameter names {list(named)}"
        shapes = [named[n].value.shape for n in self.NAMES]
        assert shapes == [(D, H), (H,), (H, 1), (1,)], shapes
        self.params: Dict[str, torch.Tensor] = {
            n: torch.tensor(named[n].value.to_numpy(), dtype=torch.float64, requires_grad=True)
            for n in self.NAMES
        }
        self.opt = CourseAdam(self.params.values(), lr=LR)

    def forward(self, x: torch.Tensor, mask=None) -> torch.Tensor:
        p = self.params
        h = torch.relu(x.mean(1) @ p["linear1.weights"] + p["linear1.bias"])
        if mask is not None:
            h = h * torch.tensor(mask, dtype=torch.float64)  # unscaled, as the course
        return torch.sigmoid(h @ p["linear2.weights"] + p["linear2.bias"]).view(x.shape[0])

    @staticmethod
    def loss(out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return -(y * out.log() + (1.0 - y) * (1.0 - out).log()).sum() / out.shape[0]

    def step(self, xb, yb, mask) -> float:
        self.opt.zero_grad()
        out = self.forward(torch.tensor(np.asarray(xb), dtype=torch.float64), mask)
        loss = self.loss(out, torch.tensor(np.asarray(yb), dtype=torch.float64))
        loss.backward()
        self.opt.step()
        return loss.item()

    def assert_params_equal(self, model, where: str) -> None:
        for n, p in model.named_parameters():
            np.testing.assert_allclose(
                p.value.to_numpy(), self.params[n].detach().numpy(), rtol=TOL, atol=TOL, err_msg=f"{n} {where}"
            )


def _random_data(n: int, seed: int):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, L, D))
    X[:, 15:, :] *= rng.random((n, 1, 1)) < 0.5  # some zero padding, as in encoded sentences
    y = (rng.random(n) > 0.5).astype(np.float64)
    return X, y


def test_network_shapes_and_eval_is_deterministic(masks):
    random.seed(0)
    model = hw2.Network(embedding_dim=D, hidden_dim=H, dropout_prob=P)
    x = minitorch.tensor(_random_data(5, 1)[0], backend=hw2.BACKEND)
    out = model.forward(x)
    assert out.shape == (5,)
    assert len(masks) == 1 and masks[0].shape == (5, H)
    model.eval()
    a, b = model.forward(x).to_numpy(), model.forward(x).to_numpy()
    assert len(masks) == 1, "eval mode must not draw a dropout mask"
    np.testing.assert_array_equal(a, b)
    twin = Twin(model)
    np.testing.assert_allclose(
        a, twin.forward(torch.tensor(x.to_numpy(), dtype=torch.float64)).detach().numpy(), rtol=1e-13, atol=1e-15
    )
    assert np.all((a > 0) & (a < 1))


def test_loss_function_matches_torch_bce():
    rng = np.random.default_rng(2)
    probs = rng.uniform(0.05, 0.95, size=B)
    y = (rng.random(B) > 0.5).astype(np.float64)
    out = minitorch.tensor(probs, backend=hw2.BACKEND, requires_grad=True)
    loss = hw2.binary_cross_entropy_loss(out, minitorch.tensor(y, backend=hw2.BACKEND))
    tout = torch.tensor(probs, dtype=torch.float64, requires_grad=True)
    tloss = torch.nn.functional.binary_cross_entropy(tout, torch.tensor(y, dtype=torch.float64))
    assert loss.size == 1
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-13, atol=0)
    loss.backward()
    tloss.backward()
    np.testing.assert_allclose(out.grad.to_numpy(), tout.grad.numpy(), rtol=1e-12, atol=0)


def test_training_step_by_step_on_random_embeddings(masks):
    """120 steps of the run_sentiment.py step; the last batch of each pass is partial (8 rows)."""
    n = 7 * B + 8
    X, y = _random_data(n, 3)
    random.seed(4)
    model = hw2.Network(embedding_dim=D, hidden_dim=H, dropout_prob=P)
    twin = Twin(model)
    optim = minitorch.Adam(model.parameters(), LR)
    ours, theirs = [], []
    starts = list(range(0, n, B))
    for step in range(120):
        i = starts[step % len(starts)]
        xb, yb = X[i : i + B], y[i : i + B]
        # exactly the training-loop body of run_sentiment.py
        x = minitorch.tensor(xb, backend=hw2.BACKEND)
        yt = minitorch.tensor(yb, backend=hw2.BACKEND)
        out = model.forward(x)
        loss = hw2.binary_cross_entropy_loss(out, yt)
        loss.backward()
        optim.step()
        ours.append(loss.item())

        assert len(masks) == step + 1, "one dropout mask per training forward"
        assert masks[-1].shape == (len(xb), H)
        theirs.append(twin.step(xb, yb, masks[-1]))
        if step % 10 == 9:
            twin.assert_params_equal(model, f"after step {step + 1}")
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=TOL)
    twin.assert_params_equal(model, "at the end")
    # The masks are real Bernoulli(1/2) draws, and training moved the loss.
    # (No zero_grad in the loop above: each step replaces the parameters, as the course's optimizer.)
    keep = np.concatenate([m.reshape(-1) for m in masks]).mean()
    assert 0.45 < keep < 0.55
    assert np.mean(ours[-8:]) < np.mean(ours[:8])


def test_train_method_on_the_bundled_corpus(masks, monkeypatch):
    """`SentenceSentimentTrain.train` itself: 2 epochs over the 2400 sentences = 150 Adam steps."""
    from minitorch.datasets import encode_sentences, load_embeddings, load_sentiment

    train, validation = load_sentiment()
    emb = load_embeddings()
    X_train, y_train = encode_sentences(train, emb, max_len=L)
    X_val, y_val = encode_sentences(validation, emb, max_len=L)
    assert np.asarray(X_train).shape == (2400, L, D)

    random.seed(5)
    trainer = hw2.SentenceSentimentTrain()
    assert trainer.model.dropout_prob == P and trainer.model.hidden_dim == H
    twin = Twin(trainer.model)

    # The course's log_fn sees no training predictions: record them where the loop makes them.
    predictions: List[list] = []
    orig_predictions = hw2.get_predictions_array

    def rec_predictions(y_true, model_output):
        out = orig_predictions(y_true, model_output)
        predictions.append(out)
        return out

    monkeypatch.setattr(hw2, "get_predictions_array", rec_predictions)
    logs = []

    def log_fn(epoch, train_loss, train_accuracy, validation_predictions, validation_accuracy):
        logs.append(dict(epoch=epoch, mean_loss=train_loss, train_acc=list(train_accuracy),
                         val_pred=list(validation_predictions), val_acc=list(validation_accuracy),
                         n_masks=len(masks), n_predictions=len(predictions)))

    trainer.train((X_train, y_train), LR, batch_size=B, max_epochs=2, data_val=(X_val, y_val), log_fn=log_fn)
    steps_per_epoch = 2400 // B
    assert len(masks) == 2 * steps_per_epoch, "one mask per training step; none while validating"
    assert [lg["n_masks"] for lg in logs] == [steps_per_epoch, 2 * steps_per_epoch]
    # one prediction list per training batch, then one for the validation set, per epoch
    assert [lg["n_predictions"] for lg in logs] == [steps_per_epoch + 1, 2 * (steps_per_epoch + 1)]

    Xt, yt = torch.tensor(np.asarray(X_train)), torch.tensor(np.asarray(y_train))
    Xv, yv = torch.tensor(np.asarray(X_val)), np.asarray(y_val)
    for epoch in range(2):
        losses, probs = [], []
        for k, i in enumerate(range(0, 2400, B)):
            mask = masks[epoch * steps_per_epoch + k]
            twin.opt.zero_grad()
            out = twin.forward(Xt[i : i + B], mask)
            loss = twin.loss(out, yt[i : i + B])
            loss.backward()
            twin.opt.step()
            losses.append(loss.item())
            probs.extend(out.detach().numpy())
        log = logs[epoch]
        # the epoch's mean batch loss (the course's total_loss / n_batches) and every training prediction
        np.testing.assert_allclose(log["mean_loss"], np.mean(losses), rtol=0, atol=TOL)
        first = epoch * (steps_per_epoch + 1)
        train_pred = [t for batch in predictions[first : first + steps_per_epoch] for t in batch]
        np.testing.assert_allclose([p for _, _, p in train_pred], probs, rtol=0, atol=TOL)
        train_acc = np.mean([float(t) == float(p) for t, p, _ in train_pred])
        np.testing.assert_allclose(log["train_acc"][-1], train_acc, rtol=0, atol=0)
        # validation in eval mode: no dropout, same probabilities as the twin without a mask
        val_probs = twin.forward(Xv).detach().numpy()
        np.testing.assert_allclose([p for _, _, p in log["val_pred"]], val_probs, rtol=0, atol=TOL)
        np.testing.assert_allclose(log["val_acc"][-1], np.mean((val_probs > 0.5) == (yv == 1)), rtol=0, atol=0)
    twin.assert_params_equal(trainer.model, "after 2 epochs")
    assert logs[1]["mean_loss"] < logs[0]["mean_loss"]
    assert logs[1]["val_acc"][-1] > 0.65  # two epochs of unscaled dropout on 20-word prefixes
