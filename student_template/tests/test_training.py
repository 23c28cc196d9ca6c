r"""Public tests for problem `training`: `binary_cross_entropy_loss` and `SentenceSentimentTrain.train`.

HW2 handout: every step of the loop clears the gradients, runs the forward
pass, computes the mean binary cross-entropy, calls backward and steps the
optimizer; after each epoch the model is evaluated on the validation data in
evaluation mode (dropout off).

Your loop is tested driving a small stand-in model (`StandIn` below: the mean
of the word vectors → one linear layer → sigmoid), not your `Network`, so that
a bug in the `network` problem does not show up here — the hidden grading does
the same with the course's Network. The hidden grading also measures accuracy
on held-out sentences that are not in data/; see README.md.
"""

import math
import random

import numpy as np
import pytest

import minitorch
from minitorch import autodiff, datasets
from project import run_sentiment as hw

pytestmark = pytest.mark.training


class StandIn(minitorch.Module):
    """A model with Network's interface: embeddings [B, L, D] → probabilities [B].

    Records the mode (`training`) and the rows of every forward call.
    """

    def __init__(self, embedding_dim=50, hidden_dim=32, dropout_prob=0.5):
        super().__init__()
        self.linear = minitorch.nn.Linear(embedding_dim, 1, backend=hw.BACKEND)
        self.calls = []

    def forward(self, embeddings):
        batch, length, dim = embeddings.shape
        self.calls.append((self.training, fingerprints(embeddings.to_numpy())))
        return self.linear(embeddings.mean(1).view(batch, dim)).sigmoid().view(batch)


def fingerprints(X):
    """One number per example (the sum of its embeddings), to recognise which rows a forward was fed."""
    X = np.asarray(X, dtype=np.float64)
    return [round(float(v), 9) for v in X.reshape(len(X), -1).sum(axis=1)]


@pytest.fixture
def stand_in(monkeypatch):
    """SentenceSentimentTrain() builds a StandIn instead of your Network."""
    monkeypatch.setattr(hw, "Network", StandIn)
    np.random.seed(0)
    random.seed(0)


@pytest.fixture(scope="module")
def corpus():
    """The bundled corpus encoded with the bundled GloVe vectors (the same length L for both splits)."""
    train, validation = datasets.load_sentiment()
    embeddings = datasets.load_embeddings()
    length = datasets.max_sentence_length(train, validation)
    return (datasets.encode_sentences(train[:600], embeddings, max_len=length),
            datasets.encode_sentences(validation[:300], embeddings, max_len=length))


class Log:
    """A log_fn that keeps what the loop reports."""

    def __init__(self):
        self.epochs = []

    def __call__(self, epoch, train_loss, losses, train_predictions, train_accuracy,
                 validation_predictions, validation_accuracy):
        self.epochs.append({"epoch": epoch, "loss": train_loss, "validation_accuracy": list(validation_accuracy)})


# ---------------------------------------------------------------------------
# The loss
# ---------------------------------------------------------------------------


def test_bce_value_and_gradient():
    """ℓ = −(1/B) Σᵢ yᵢ log pᵢ + (1 − yᵢ) log(1 − pᵢ), and ∂ℓ/∂pᵢ = (pᵢ − yᵢ) / (B pᵢ(1 − pᵢ))."""
    p_np = np.array([0.9, 0.2, 0.6, 0.35])
    y_np = np.array([1.0, 0.0, 0.0, 1.0])
    batch = len(p_np)
    p = minitorch.tensor(p_np, backend=hw.BACKEND, requires_grad=True)
    y = minitorch.tensor(y_np, backend=hw.BACKEND)
    loss = hw.binary_cross_entropy_loss(p, y)
    assert loss.size == 1, f"the loss has shape {loss.shape}: return ONE number, the mean over the batch"
    per_example = -(y_np * np.log(p_np) + (1 - y_np) * np.log(1 - p_np))
    expected = per_example.mean()
    got = loss.item()
    if math.isclose(got, per_example.sum(), rel_tol=1e-9):
        why = ": that is the SUM over the batch — divide by the batch size B (the mean)"
    elif math.isclose(got, -expected, rel_tol=1e-9):
        why = ": the sign is flipped — the loss is MINUS the mean log-likelihood"
    else:
        why = ""
    assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12), (
        f"binary_cross_entropy_loss = {got:.10g}, expected the mean BCE {expected:.10g}{why}"
    )
    loss.backward()
    assert p.grad is not None, "no gradient reached the probabilities: build the loss from tensor operations"
    expected_grad = (p_np - y_np) / (p_np * (1 - p_np)) / batch
    got_grad = p.grad.to_numpy()
    assert np.allclose(got_grad, expected_grad, rtol=1e-9, atol=1e-12), (
        f"∂ℓ/∂p = {got_grad}, expected {expected_grad} = (p − y) / (B p (1 − p))"
    )


# ---------------------------------------------------------------------------
# The loop
# ---------------------------------------------------------------------------


class KeepsTensors(minitorch.optim.Optimizer):
    """SGD that updates each parameter's tensor in place, so its gradient stays unless the loop clears it."""

    def __init__(self, parameters, lr=0.01):
        super().__init__(parameters)
        self.lr = lr

    def step(self):
        for p in self.parameters:
            grad = p.value.grad
            if grad is not None:
                storage = p.value._tensor._storage
                storage[:] = (p.value.to_numpy() - self.lr * grad.to_numpy()).reshape(-1)


def test_gradients_cleared_before_every_backward(stand_in, monkeypatch):
    """Leaves accumulate (+=): each step must start from cleared gradients, one backward per batch."""
    X = np.random.default_rng(1).uniform(-1, 1, (30, 4, 5)).tolist()
    y = [float(i % 2) for i in range(30)]
    leftovers = []
    original = autodiff.backpropagate
    trainer = hw.SentenceSentimentTrain()

    def recording_backpropagate(variable, deriv):
        grads = [p.value.grad for p in trainer.model.parameters()]
        leftovers.append(max((float(np.max(np.abs(g.to_numpy()))) for g in grads if g is not None), default=0.0))
        return original(variable, deriv)

    trainer.model = StandIn(embedding_dim=5)
    monkeypatch.setattr(minitorch, "Adam", KeepsTensors)
    monkeypatch.setattr(autodiff, "backpropagate", recording_backpropagate)
    trainer.train((X, y), learning_rate=0.1, batch_size=10, max_epochs=2, log_fn=lambda *a: None)
    assert len(leftovers) == 6, (
        f"{len(leftovers)} backward passes for 3 batches × 2 epochs: call loss.backward() once per batch"
    )
    worst = max(leftovers)
    assert worst == 0.0, (
        f"gradients from an earlier step were still on the parameters when backward() ran (up to {worst:.3g}): "
        "leaves accumulate with +=, so call optim.zero_grad() in every step, before loss.backward()"
    )


def test_validation_runs_in_eval_mode(stand_in, corpus):
    """Validation forwards in eval mode (dropout off); training forwards in training mode."""
    (X, y), (X_val, y_val) = corpus
    X, y, X_val, y_val = X[:40], y[:40], X_val[:23], y_val[:23]
    validation_rows = set(fingerprints(X_val)) - set(fingerprints(X))
    trainer = hw.SentenceSentimentTrain()
    trainer.train((X, y), learning_rate=0.01, batch_size=20, max_epochs=2, data_val=(X_val, y_val),
                  log_fn=lambda *a: None)
    calls = trainer.model.calls
    on_validation = [training for training, rows in calls if rows and all(r in validation_rows for r in rows)]
    on_training = [training for training, rows in calls if not all(r in validation_rows for r in rows)]
    assert on_validation, "data_val was given but the model was never run on it: evaluate after every epoch"
    assert not any(on_validation), (
        "the validation data was run in training mode: call model.eval() before evaluating "
        "(dropout must be off when measuring accuracy)"
    )
    assert on_training and all(on_training), (
        "some training batches ran in evaluation mode: call model.train() again after evaluating"
    )


def test_short_training_run_learns(stand_in, corpus):
    """600 training sentences, 3 epochs: the validation accuracy reaches 70% and the loss decreases."""
    (X, y), (X_val, y_val) = corpus
    log = Log()
    trainer = hw.SentenceSentimentTrain()
    trainer.train((X, y), learning_rate=0.05, batch_size=10, max_epochs=3, data_val=(X_val, y_val), log_fn=log)
    losses = [e["loss"] for e in log.epochs]
    assert len(losses) == 3 and losses[-1] < losses[0], (
        f"training losses per epoch {losses}: the loss should go down — each step needs zero_grad, forward, "
        "loss, backward and optim.step()"
    )
    model = trainer.model
    model.eval()
    probs = model.forward(minitorch.tensor(X_val, backend=hw.BACKEND)).to_numpy()
    accuracy = float(np.mean((probs > 0.5) == (np.asarray(y_val) > 0.5)))
    assert accuracy >= 0.70, (
        f"validation accuracy {accuracy:.1%} after 3 epochs (the reference loop reaches about 78%): "
        "check that every step clears the gradients, computes the loss, calls backward and steps"
    )
    reported = log.epochs[-1]["validation_accuracy"]
    assert reported and abs(reported[-1] - accuracy) <= 1.0 / len(y_val) + 1e-12, (
        f"the loop reported validation accuracies {reported}, but the trained model scores {accuracy:.4f} "
        "on data_val: after each epoch, evaluate on data_val and append get_accuracy(...) to validation_accuracy"
    )
