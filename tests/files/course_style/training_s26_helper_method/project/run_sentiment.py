"""Valid: validation moved into a helper method of the trainer, `self.evaluate(X_val, y_val)`."""

import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # `python project/run_sentiment.py`

import minitorch  # noqa: E402

# The course's starter defaults to "CudaKernelOps" (a GPU); we train and grade on the CPU.
backend_name = "FastOps"

if backend_name == "CudaKernelOps":
    from minitorch.cuda_kernel_ops import CudaKernelOps

    BACKEND = minitorch.TensorBackend(CudaKernelOps)
elif backend_name == "SimpleOps":
    from minitorch import SimpleOps

    BACKEND = minitorch.TensorBackend(SimpleOps)
else:
    BACKEND = minitorch.TensorBackend(minitorch.FastOps)

BATCH = 10


def RParam(*shape):
    """A Parameter drawn uniformly from [-0.05, 0.05) (one `random.random()` per element)."""
    r = 0.1 * (minitorch.rand(shape, backend=BACKEND) - 0.5)
    return minitorch.Parameter(r)


def binary_cross_entropy_loss(out, y):
    r"""Mean binary cross-entropy of probabilities `out` [B] against labels `y` [B]:

    $\ell = -\frac1B \sum_i y_i \log p_i + (1 - y_i) \log(1 - p_i)$

    `out` is the network's output, already a probability (the last layer is a
    sigmoid). Returns a Tensor with one element.
    """
    # BEGIN ASSIGN2_3
    batch = out.shape[0]
    per_example = y * out.log() + (-y + 1.0) * (-out + 1.0).log()
    return -per_example.sum() / float(batch)
    # END ASSIGN2_3


class Linear(minitorch.Module):
    r"""A fully connected layer $y = x W + b$.

    Args:
        in_size: features of each input row
        out_size: features of each output row

    Attributes:
        weights: Parameter of shape (in_size, out_size), made with RParam
        bias: Parameter of shape (out_size,), made with RParam after the weights
        out_size: out_size
    """

    def __init__(self, in_size, out_size):
        super().__init__()
        # BEGIN ASSIGN2_2
        self.weights = RParam(in_size, out_size)
        self.bias = RParam(out_size)
        self.out_size = out_size
        # END ASSIGN2_2

    def forward(self, x):
        """x: [batch, in_size] -> [batch, out_size]."""
        batch, in_size = x.shape
        # BEGIN ASSIGN2_2
        return x @ self.weights.value + self.bias.value
        # END ASSIGN2_2


class Network(minitorch.Module):
    """A MLP for SST-2 sentence sentiment classification:

    1. average over the sentence length;
    2. a Linear layer to hidden_dim, then ReLU and dropout;
    3. a Linear layer to size 1;
    4. a sigmoid.

    Args:
        embedding_dim: D, the size of a word embedding
        hidden_dim: H, the size of the hidden layer
        dropout_prob: probability of zeroing a hidden unit while training
    """

    def __init__(self, embedding_dim=50, hidden_dim=32, dropout_prob=0.5):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.dropout_prob = dropout_prob
        # BEGIN ASSIGN2_2
        self.hidden_dim = hidden_dim
        self.linear1 = Linear(embedding_dim, hidden_dim)
        self.linear2 = Linear(hidden_dim, 1)
        # END ASSIGN2_2

    def forward(self, embeddings):
        """embeddings: [batch, sentence_length, embedding_dim] -> probabilities [batch].

        Use minitorch.dropout(x, self.dropout_prob, ignore=not self.training).
        """
        # BEGIN ASSIGN2_2
        batch, length, dim = embeddings.shape
        x = embeddings.mean(1).view(batch, dim)
        x = self.linear1(x).relu()
        x = minitorch.dropout(x, self.dropout_prob, ignore=not self.training)
        x = self.linear2(x).sigmoid()
        return x.view(batch)
        # END ASSIGN2_2


# Evaluation helper methods
def get_predictions_array(y_true, model_output):
    """(true label, predicted label, probability) for every example of a batch.

    The predicted label is 1.0 when the probability exceeds 0.5, else 0;
    `y_true` may be a Tensor or a sequence (it is indexed with `y_true[j]`).
    """
    model_output = model_output.view(model_output.shape[0])
    probs = model_output.to_numpy()
    predictions_array = []
    for j in range(model_output.shape[0]):
        true_label = y_true[j]
        logit = float(probs[j])
        predicted_label = 1.0 if logit > 0.5 else 0
        predictions_array.append((true_label, predicted_label, logit))
    return predictions_array


def get_accuracy(predictions_array):
    """Fraction of (true, predicted, _) triples that agree (0.0 for none)."""
    if not predictions_array:
        return 0.0
    correct = sum(1 for y_true, y_pred, _ in predictions_array if y_true == y_pred)
    return correct / len(predictions_array)


best_val = 0.0


def default_log_fn(epoch, train_loss, train_accuracy, validation_predictions, validation_accuracy):
    """Print the epoch's mean batch loss, training accuracy and (if any) validation accuracy."""
    global best_val
    if validation_accuracy:
        best_val = best_val if best_val > validation_accuracy[-1] else validation_accuracy[-1]
    print(f"Epoch {epoch}, loss {train_loss}, train accuracy: {train_accuracy[-1]:.2%}")
    if len(validation_predictions) > 0:
        print(f"Validation accuracy: {validation_accuracy[-1]:.2%}")
        print(f"Best Valid accuracy: {best_val:.2%}")


class SentenceSentimentTrain:
    """The trainer of sentence sentiment classification (Adam on minibatches taken in order)."""

    def __init__(self):
        self.model = Network()

    def evaluate(self, X, y):
        """Predictions of the model (in its current mode) on (X, y)."""
        x = minitorch.tensor(X, backend=BACKEND)
        labels = minitorch.tensor(y, backend=BACKEND)
        return get_predictions_array(labels, self.model.forward(x))

    def train(
        self,
        data_train,
        learning_rate,
        batch_size=BATCH,
        max_epochs=500,
        data_val=None,
        log_fn=default_log_fn,
    ):
        """Train for `max_epochs` epochs; after each, evaluate on `data_val` in eval mode.

        Each step: forward, binary cross-entropy loss, backward, optimizer
        step. The optimizer replaces the parameters' values, so no gradient
        carries over to the next step. `log_fn(epoch, mean batch loss,
        train_accuracy, validation_predictions, validation_accuracy)` is
        called after every epoch.
        """
        model = self.model
        (X_train, y_train) = data_train
        n_training_samples = len(X_train)
        optim = minitorch.Adam(self.model.parameters(), learning_rate)
        losses = []
        train_accuracy = []
        validation_accuracy = []
        for epoch in range(1, max_epochs + 1):
            total_loss = 0.0
            n_batches = 0

            model.train()
            train_predictions = []
            batch_size = min(batch_size, n_training_samples)

            for batch_num, example_num in enumerate(range(0, n_training_samples, batch_size)):
                out = None

                # BEGIN ASSIGN2_3
                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND)
                y = minitorch.tensor(y_train[example_num : example_num + batch_size], backend=BACKEND)
                out = model.forward(x)
                loss = binary_cross_entropy_loss(out, y)
                loss.backward()
                optim.step()
                # END ASSIGN2_3

                # Save training results
                train_predictions += get_predictions_array(y, out)
                total_loss += loss[0]
                n_batches += 1

            # Evaluate on validation set at the end of the epoch
            validation_predictions = []
            if data_val is not None:
                (X_val, y_val) = data_val
                model.eval()

                # BEGIN ASSIGN2_3
                validation_predictions += self.evaluate(X_val, y_val)
                validation_accuracy.append(get_accuracy(validation_predictions))
                # END ASSIGN2_3

                model.train()

            train_accuracy.append(get_accuracy(train_predictions))
            losses.append(total_loss / n_batches)
            log_fn(
                epoch,
                total_loss / n_batches,
                train_accuracy,
                validation_predictions,
                validation_accuracy,
            )


def load_data(max_len=None):
    """The bundled corpus as (X_train, y_train), (X_val, y_val) plus the raw validation examples."""
    from minitorch.datasets import encode_sentences, load_embeddings, load_sentiment, max_sentence_length

    train, validation = load_sentiment()
    embeddings = load_embeddings()
    if max_len is None:  # one padded length for both splits (the network means over all L rows)
        max_len = max_sentence_length(train, validation)
    return (
        encode_sentences(train, embeddings, max_len=max_len),
        encode_sentences(validation, embeddings, max_len=max_len),
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
    from minitorch.datasets import accuracy_by_kind

    per_kind = accuracy_by_kind(validation, [1 if p > 0.5 else 0 for p in probs])
    print("Validation accuracy by sentence type: " + ", ".join(f"{k} {v:.2%}" for k, v in sorted(per_kind.items())))
