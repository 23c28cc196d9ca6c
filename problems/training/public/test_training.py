r"""Public tests for problem `training`: the loss and `SentenceSentimentTrain.train`.

HW2 handout: every step of the loop takes the next batch of `batch_size`
examples, runs the forward pass, computes the mean binary cross-entropy, calls
backward and steps the optimizer; after each epoch the model is evaluated on
the validation data in evaluation mode (dropout off). The course's optimizers
replace every parameter's value at each step, so `optim.zero_grad()` is
optional; what matters is that each step uses the gradient of one backward pass.

Your loop is tested driving a small stand-in model (`StandIn` below: the mean
of the word vectors → one linear layer → sigmoid), not your `Network`, so that
a bug in the `network` problem does not show up here — the hidden grading does
the same with the course's Network. The hidden grading also measures accuracy
on held-out sentences that are not in data/; see README.md.

The loop runs backward through your `autodiff` answer: while it gets the
lecture's example wrong, the tests that need it are skipped, with one line
saying to fix autodiff first (the `working_autodiff` fixture of conftest.py);
the hidden grading uses the course's own backward instead.
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
        batch, _length, dim = embeddings.shape
        self.calls.append((self.training, fingerprints(embeddings.to_numpy())))
        return self.linear(embeddings.mean(1).view(batch, dim)).sigmoid().view(batch)


def fingerprints(X):
    """One number per example (the sum of its embeddings), to recognise which rows a forward was fed."""
    X = np.asarray(X, dtype=np.float64)
    return [round(float(v), 9) for v in X.reshape(len(X), -1).sum(axis=1)]


def loss_function():
    """The loss: `binary_cross_entropy_loss` (spring 2026) or `cross_entropy_loss` (fall 2025)."""
    for name in ("binary_cross_entropy_loss", "cross_entropy_loss"):
        if hasattr(hw, name):
            return getattr(hw, name)
    pytest.fail("define binary_cross_entropy_loss(out, y) in project/run_sentiment.py")


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

    def __call__(self, epoch, train_loss, *rest):
        """The course's log_fn(epoch, train_loss, train_accuracy, validation_predictions, validation_accuracy)."""
        validation_accuracy = rest[-1] if rest else []
        self.epochs.append({"epoch": epoch, "loss": float(train_loss),
                            "validation_accuracy": list(validation_accuracy)})


# ---------------------------------------------------------------------------
# The loss
# ---------------------------------------------------------------------------


#: An eps up to 1e-7 inside the logs (log(p + eps)) is fine: with p in [0.05, 0.95] it moves the
#: loss by less than 4e-5 of its value and each gradient entry by less than 2e-6 of its value.
LOSS_RTOL, GRAD_RTOL = 1e-4, 1e-5


def test_bce_value_and_gradient(request):
    """ℓ = −(1/B) Σᵢ yᵢ log pᵢ + (1 − yᵢ) log(1 − pᵢ), and ∂ℓ/∂pᵢ = (pᵢ − yᵢ) / (B pᵢ(1 − pᵢ))."""
    p_np = np.array([0.9, 0.2, 0.6, 0.35])
    y_np = np.array([1.0, 0.0, 0.0, 1.0])
    batch = len(p_np)
    p = minitorch.tensor(p_np, backend=hw.BACKEND, requires_grad=True)
    y = minitorch.tensor(y_np, backend=hw.BACKEND)
    loss = loss_function()(p, y)
    assert loss.size == 1, f"return ONE number, the mean over the batch — the loss has shape {loss.shape}"
    per_example = -(y_np * np.log(p_np) + (1 - y_np) * np.log(1 - p_np))
    expected = per_example.mean()
    got = loss.item()
    if math.isclose(got, per_example.sum(), rel_tol=LOSS_RTOL):
        why = "the loss is the SUM over the batch: divide by the batch size B (the mean)"
    elif math.isclose(got, -expected, rel_tol=LOSS_RTOL):
        why = "the sign is flipped: the loss is MINUS the mean log-likelihood"
    else:
        why = "the loss must be the mean binary cross-entropy −(1/B) Σᵢ yᵢ log pᵢ + (1 − yᵢ) log(1 − pᵢ)"
    assert math.isclose(got, expected, rel_tol=LOSS_RTOL, abs_tol=1e-12), (
        f"{why} — binary_cross_entropy_loss = {got:.10g}, expected the mean BCE {expected:.10g}"
    )
    request.getfixturevalue("working_autodiff")  # the gradient needs your backpropagate: skipped while it is wrong
    loss.backward()
    assert p.grad is not None, "no gradient reached the probabilities: build the loss from tensor operations"
    expected_grad = (p_np - y_np) / (p_np * (1 - p_np)) / batch
    got_grad = p.grad.to_numpy()
    assert np.allclose(got_grad, expected_grad, rtol=GRAD_RTOL, atol=1e-12), (
        "the loss's gradient must be (p − y) / (B p (1 − p)): build it from tensor operations that "
        f"backward goes through — ∂ℓ/∂p = {got_grad}, expected {expected_grad}"
    )


# ---------------------------------------------------------------------------
# The loop
# ---------------------------------------------------------------------------


class StepAudit:
    """Counts, per parameter value, the backward passes its gradient has summed; reads the count at each step.

    The course's Adam replaces the parameters' values at every step (new tensors
    without gradient), so one backward pass per step gives a count of 1 whether
    or not the loop calls zero_grad(); a second backward pass before the step
    (or one on the validation loss) adds to the same gradient.
    """

    def __init__(self, model):
        self.model = model
        self.passes = {}  # id(value) -> [value, count]
        self.at_steps = []
        self.backward_calls = 0

    def backpropagate(self, original):
        def recording(variable, deriv):
            values = [p.value for p in self.model.parameters()]
            before = [None if v.grad is None else v.grad.to_numpy().copy() for v in values]
            result = original(variable, deriv)
            self.backward_calls += 1
            for v, old in zip(values, before):
                if v.grad is None or (old is not None and np.array_equal(old, v.grad.to_numpy())):
                    continue
                entry = self.passes.get(id(v))
                if old is None or entry is None or entry[0] is not v:
                    self.passes[id(v)] = [v, 1]
                else:
                    entry[1] += 1
            return result

        return recording

    def step(self, original):
        def recording(optimizer):
            counts = [self.passes[id(p.value)][1] for p in optimizer.parameters
                      if p.value.grad is not None and id(p.value) in self.passes]
            self.at_steps.append(max(counts, default=0))
            return original(optimizer)

        return recording


def test_each_step_uses_one_backward_pass(stand_in, monkeypatch, working_autodiff):
    """3 batches × 2 epochs: 6 steps, each using the gradient of exactly one backward pass."""
    X = np.random.default_rng(1).uniform(-1, 1, (30, 4, 5)).tolist()
    y = [float(i % 2) for i in range(30)]
    X_val = np.random.default_rng(2).uniform(-1, 1, (6, 4, 5)).tolist()
    trainer = hw.SentenceSentimentTrain()
    trainer.model = StandIn(embedding_dim=5)
    audit = StepAudit(trainer.model)
    monkeypatch.setattr(autodiff, "backpropagate", audit.backpropagate(autodiff.backpropagate))
    monkeypatch.setattr(minitorch.optim.Adam, "step", audit.step(minitorch.optim.Adam.step))
    trainer.train((X, y), learning_rate=0.1, batch_size=10, max_epochs=2, data_val=(X_val, [1.0] * 6),
                  log_fn=lambda *a: None)
    assert audit.backward_calls >= 6, \
        f"call loss.backward() in every step — {audit.backward_calls} backward passes for 6 batches"
    assert len(audit.at_steps) == 6, \
        f"call optim.step() once per batch — {len(audit.at_steps)} optimizer steps for 3 batches × 2 epochs"
    worst = max(audit.at_steps)
    assert worst == 1, (
        "call loss.backward() once per step, never on the validation loss (or call optim.zero_grad() before "
        f"loss.backward()) — an optimizer step used a gradient summed over {worst} backward passes"
        if worst > 1 else "call loss.backward() before optim.step() — an optimizer step found no gradient"
    )


def test_each_step_takes_one_batch(stand_in, working_autodiff):
    """Each step trains on the next batch_size examples: every example exactly once per epoch."""
    X = np.random.default_rng(3).uniform(-1, 1, (30, 4, 5)).tolist()
    y = [float(i % 2) for i in range(30)]
    trainer = hw.SentenceSentimentTrain()
    trainer.model = StandIn(embedding_dim=5)
    trainer.train((X, y), learning_rate=0.1, batch_size=10, max_epochs=2, log_fn=lambda *a: None)
    batches = [rows for training, rows in trainer.model.calls if training]
    sizes = [len(rows) for rows in batches]
    assert max(sizes) <= 10, (
        "each step must train on one batch: slice X_train[example_num : example_num + batch_size] (not all of "
        f"X_train, nor X_train[example_num:]) — training batches of {sizes} examples for batch_size 10"
    )
    seen = sorted(r for rows in batches for r in rows)
    assert seen == sorted(fingerprints(X) * 2), (
        "in 2 epochs, every training example must be in exactly one batch per epoch: "
        "batches X_train[example_num : example_num + batch_size] for example_num in range(0, n, batch_size)"
    )


def test_validation_runs_in_eval_mode(stand_in, corpus, working_autodiff):
    """Validation forwards in eval mode (dropout off); one training forward per batch in training mode."""
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
    batches = 2 * 2  # 2 epochs of 40 examples in batches of 20
    assert sum(1 for training in on_training if training) >= batches, (
        "some training batches ran in evaluation mode: call model.train() again after evaluating "
        "(only a forward pass that merely measures, such as the training accuracy with dropout off, may run in "
        "evaluation mode)"
    )


def test_short_training_run_learns(stand_in, corpus, working_autodiff):
    """600 training sentences, 3 epochs: the validation accuracy reaches 70% and the loss decreases."""
    (X, y), (X_val, y_val) = corpus
    log = Log()
    trainer = hw.SentenceSentimentTrain()
    trainer.train((X, y), learning_rate=0.05, batch_size=10, max_epochs=3, data_val=(X_val, y_val), log_fn=log)
    losses = [e["loss"] for e in log.epochs]
    assert len(losses) == 3 and losses[-1] < losses[0], (
        "the loss should go down: each step needs a batch, forward, loss, backward and optim.step() — "
        f"training losses per epoch {losses}"
    )
    model = trainer.model
    model.eval()
    probs = model.forward(minitorch.tensor(X_val, backend=hw.BACKEND)).to_numpy()
    accuracy = float(np.mean((probs > 0.5) == (np.asarray(y_val) > 0.5)))
    assert accuracy >= 0.70, (
        "the model did not learn enough: check that every step takes one batch, computes the loss, calls "
        f"backward and steps — validation accuracy {accuracy:.1%} after 3 epochs (the reference loop reaches "
        "about 78%)"
    )
    reported = log.epochs[-1]["validation_accuracy"]
    assert reported and abs(reported[-1] - accuracy) <= 1.0 / len(y_val) + 1e-12, (
        "after each epoch, evaluate on data_val and append get_accuracy(...) to validation_accuracy — the loop "
        f"reported validation accuracies {reported}, but the trained model scores {accuracy:.4f} on data_val"
    )
