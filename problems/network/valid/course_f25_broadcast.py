"""Valid (fall 2025 layout): Linear by broadcasting and summing (the offering's SimpleOps had no CPU matrix
multiply), parameters and layers registered through self._parameters / self._modules, the dropout's
arguments passed by position.

Networks: a broadcasting Linear with _parameters/_modules.
"""

OFFERING = "f25"
SCORE = 30.0

import pdb

import embeddings
sys.path.append('../')
from datasets import load_dataset

from minitorch import SimpleOps
BACKEND = minitorch.TensorBackend(SimpleOps)


def cross_entropy_loss(out, y):
    # BEGIN ASSIGN1_3
    ones = minitorch.tensor_functions.ones(y.shape, backend=out.backend)
    log_p = out.log()
    log_not_p = (ones - out).log()
    return -(y * log_p + (ones - y) * log_not_p).mean()
    # END ASSIGN1_3


class Linear(minitorch.Module):
    def __init__(self, in_size, out_size):
        super().__init__()
        # BEGIN ASSIGN1_2
        self._parameters["weights"] = self.weights = RParam(in_size, out_size)
        self._parameters["bias"] = self.bias = RParam(out_size)
        self.out_size = out_size
        # END ASSIGN1_2

    def forward(self, x):
        batch, in_size = x.shape
        # BEGIN ASSIGN1_2
        # no CPU matrix multiply in this offering's SimpleOps: broadcast, then sum over in_size
        products = x.view(batch, in_size, 1) * self.weights.value.view(1, in_size, self.out_size)
        return products.sum(1).view(batch, self.out_size) + self.bias.value.view(1, self.out_size)
        # END ASSIGN1_2


class Network(minitorch.Module):
    """
    Sentence sentiment MLP: mean over the words -> Linear -> ReLU -> Dropout -> Linear -> sigmoid.
    """

    def __init__(self, embedding_dim=50, hidden_dim=32, dropout_prob=0.5):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.dropout_prob = dropout_prob
        # BEGIN ASSIGN1_2
        self._modules["first"] = Linear(embedding_dim, hidden_dim)
        self._modules["second"] = Linear(hidden_dim, 1)
        # END ASSIGN1_2

    def forward(self, embeddings):
        """
        embeddings tensor: [batch x sentence length x embedding dim]
        """
        # BEGIN ASSIGN1_2
        batch = embeddings.shape[0]
        pooled = embeddings.mean(1).view(batch, self.embedding_dim)
        hidden = self._modules["first"].forward(pooled).relu()
        hidden = minitorch.dropout(hidden, self.dropout_prob, not self.training)
        return self._modules["second"].forward(hidden).sigmoid().view(batch)
        # END ASSIGN1_2


class SentenceSentimentTrain:
    """The sentence sentiment trainer."""

    def __init__(self):
        self.model = Network()

    def train(
        self,
        data_train,
        learning_rate,
        batch_size=BATCH,
        max_epochs=500,
        data_val=None,
        log_fn=default_log_fn,
    ):
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

                # BEGIN ASSIGN1_3
                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND)
                y = minitorch.tensor(y_train[example_num : example_num + batch_size], backend=BACKEND)
                out = model.forward(x)
                loss = cross_entropy_loss(out, y)
                loss.backward()
                optim.step()
                # END ASSIGN1_3

                # Save training results
                train_predictions += get_predictions_array(y, out)
                total_loss += loss[0]
                n_batches += 1

            # Evaluate on validation set at the end of the epoch
            validation_predictions = []
            if data_val is not None:
                (X_val, y_val) = data_val
                model.eval()

                # BEGIN ASSIGN1_3
                x = minitorch.tensor(X_val, backend=BACKEND)
                y = minitorch.tensor(y_val, backend=BACKEND)
                out = model.forward(x)
                validation_predictions += get_predictions_array(y, out)
                validation_accuracy.append(get_accuracy(validation_predictions))
                # END ASSIGN1_3

                model.train()

            train_accuracy.append(get_accuracy(train_predictions))
            losses.append(total_loss / n_batches)
            log_fn(epoch, total_loss / n_batches, train_accuracy, validation_predictions, validation_accuracy)
