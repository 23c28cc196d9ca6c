"""Bug: loss.backward() twice per step, so each step uses twice the batch's gradient."""

import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # `python project/run_sentiment.py`

import minitorch  # noqa: E402

BACKEND = minitorch.TensorBackend(minitorch.FastOps)


def RParam(*shape):
    """A Parameter drawn uniformly from [-0.05, 0.05)."""
    r = 0.1 * (minitorch.rand(shape, backend=BACKEND) - 0.5)
    return minitorch.Parameter(r)


class Linear(minitorch.Module):
    r"""A fully connected layer $y = x W + b$.

    Args:
        in_size: features of each input row
        out_size: features of each output row

    Attributes:
        weights: Parameter of shape (in_size, out_size)
        bias: Parameter of shape (out_size,)
    """

    def __init__(self, in_size, out_size):
        super().__init__()
        self.weights = RParam(in_size, out_size)
        self.bias = RParam(out_size)
        self.out_size = out_size

    def forward(self, x):
        """x: [batch, in_size] -> [batch, out_size]."""
        return x @ self.weights.value + self.bias.value


class Network(minitorch.Module):
    """mean over the sentence -> Linear -> ReLU -> Dropout -> Linear -> sigmoid.

    Args:
        embedding_dim: D, the size of a word embedding
        hidden_dim: H, the size of the hidden layer
        dropout_prob: probability of zeroing a hidden unit while training
    """

    def __init__(self, embedding_dim=50, hidden_dim=32, dropout_prob=0.5):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.hidden_dim = hidden_dim
        self.dropout_prob = dropout_prob
        self.linear1 = Linear(embedding_dim, hidden_dim)
        self.linear2 = Linear(hidden_dim, 1)

    def forward(self, embeddings):
        """embeddings: [batch, sentence_length, embedding_dim] -> probabilities [batch].

        Use minitorch.dropout(x, self.dropout_prob, ignore=not self.training).
        """
        batch, length, dim = embeddings.shape
        x = embeddings.mean(1).view(batch, dim)
        x = self.linear1(x).relu()
        x = minitorch.dropout(x, self.dropout_prob, ignore=not self.training)
        x = self.linear2(x).sigmoid()
        return x.view(batch)


def binary_cross_entropy_loss(out, y):
    r"""Mean binary cross-entropy of probabilities `out` [B] against labels `y` [B]:

    $\ell = -\frac1B \sum_i y_i \log p_i + (1 - y_i) \log(1 - p_i)$

    Returns a Tensor with one element.
    """
    batch = out.shape[0]
    per_example = y * out.log() + (-y + 1.0) * (-out + 1.0).log()
    return -per_example.sum() / float(batch)


def get_predictions_array(y_true, model_output):
    """(true label, predicted label, probability) for every example of a batch."""
    truth = y_true.to_numpy().reshape(-1)
    probs = model_output.to_numpy().reshape(-1)
    return [(float(t), 1.0 if p > 0.5 else 0.0, float(p)) for t, p in zip(truth, probs)]


def get_accuracy(predictions_array):
    """Fraction of (true, predicted, _) triples that agree."""
    if not predictions_array:
        return 0.0
    return sum(1 for t, p, _ in predictions_array if t == p) / len(predictions_array)


best_val = 0.0


def default_log_fn(epoch, train_loss, losses, train_predictions, train_accuracy, validation_predictions, validation_accuracy):
    global best_val
    if validation_accuracy:
        best_val = max(best_val, validation_accuracy[-1])
    line = f"Epoch {epoch}, loss {train_loss:.4f}, train accuracy: {train_accuracy[-1]:.2%}"
    if validation_accuracy:
        line += f", validation accuracy: {validation_accuracy[-1]:.2%}, best: {best_val:.2%}"
    print(line)


class SentenceSentimentTrain:
    """Trains a Network with Adam on (embeddings, labels) batches."""

    def __init__(self):
        self.model = Network()

    def train(
        self,
        data_train,
        learning_rate,
        batch_size=32,
        max_epochs=10,
        data_val=None,
        log_fn=default_log_fn,
    ):
        """Train for `max_epochs` epochs; after each epoch, evaluate on `data_val` in eval mode.

        Each step: clear the gradients, forward, binary cross-entropy loss,
        backward, optimizer step. Batches are taken in order.
        """
        model = self.model
        (X_train, y_train) = data_train
        n_training_samples = len(X_train)
        optim = minitorch.Adam(model.parameters(), learning_rate)
        losses = []
        train_accuracy = []
        validation_accuracy = []
        for epoch in range(1, max_epochs + 1):
            total_loss = 0.0
            model.train()
            train_predictions = []
            batch_size = min(batch_size, n_training_samples)
            for example_num in range(0, n_training_samples, batch_size):
                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND)
                y = minitorch.tensor(y_train[example_num : example_num + batch_size], backend=BACKEND)
                out = model.forward(x)
                loss = binary_cross_entropy_loss(out, y)
                loss.backward()
                loss.backward()
                optim.step()
                train_predictions += get_predictions_array(y, out)
                total_loss += loss.item()

            validation_predictions = []
            if data_val is not None:
                (X_val, y_val) = data_val
                model.eval()
                x = minitorch.tensor(X_val, backend=BACKEND)
                y = minitorch.tensor(y_val, backend=BACKEND)
                out = model.forward(x)
                validation_predictions += get_predictions_array(y, out)
                validation_accuracy.append(get_accuracy(validation_predictions))
                model.train()

            train_accuracy.append(get_accuracy(train_predictions))
            losses.append(total_loss)
            log_fn(epoch, total_loss, losses, train_predictions, train_accuracy, validation_predictions, validation_accuracy)


def load_data(max_len=None):
    """The bundled corpus as (X_train, y_train), (X_val, y_val) plus the raw validation examples."""
    from minitorch import datasets

    train, validation = datasets.load_sentiment()
    embeddings = datasets.load_embeddings()
    return (
        datasets.encode_sentences(train, embeddings, max_len=max_len),
        datasets.encode_sentences(validation, embeddings, max_len=max_len),
        validation,
    )


if __name__ == "__main__":
    random.seed(0)
    np.random.seed(0)
    data_train, data_val, validation = load_data()
    trainer = SentenceSentimentTrain()
    trainer.train(data_train, learning_rate=0.01, batch_size=32, max_epochs=10, data_val=data_val)
    trainer.model.eval()
    probs = trainer.model.forward(minitorch.tensor(data_val[0], backend=BACKEND)).to_numpy()
    from minitorch import datasets

    per_kind = datasets.accuracy_by_kind(validation, [1 if p > 0.5 else 0 for p in probs])
    print("Validation accuracy by sentence type: " + ", ".join(f"{k} {v:.2%}" for k, v in sorted(per_kind.items())))
