"""Buggy (spring 2025 layout): no loss function; the loss computed inline in `train` is the SUM of the
batch's binary cross-entropies, not their mean (graded with the s25 offering: its loop-loss test).

An inline loss that sums over the batch: caught by the loss the loop backpropagates (no misconception of its
own).
"""

OFFERING = "s25"
LABELS = []
PASSES = ["eval_mode", "minibatches", "zero_grad"]
FAILS = ["loop_loss"]

import pdb

import embeddings
sys.path.append('../')
from datasets import load_dataset

backend_name = "CudaKernelOps"

if backend_name == "CudaKernelOps":
    from minitorch.cuda_kernel_ops import CudaKernelOps
    BACKEND = minitorch.TensorBackend(CudaKernelOps)


class Linear(minitorch.Module):
    def __init__(self, in_size, out_size):
        super().__init__()
        # BEGIN ASSIGN1_3
        self.weights = RParam(in_size, out_size)
        self.bias = RParam(out_size)
        self.out_size = out_size
        # END ASSIGN1_3

    def forward(self, x):
        batch, in_size = x.shape
        # BEGIN ASSIGN1_3
        flat = x.view(batch, in_size)
        out = flat @ self.weights.value.view(in_size, self.out_size)
        return out.view(batch, self.out_size) + self.bias.value.view(1, self.out_size)
        # END ASSIGN1_3


class Network(minitorch.Module):
    """
    Sentence sentiment MLP: mean over the words -> Linear -> ReLU -> Dropout -> Linear -> sigmoid.
    """

    def __init__(self, embedding_dim=50, hidden_dim=32, dropout_prob=0.5):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.dropout_prob = dropout_prob
        # BEGIN ASSIGN1_3
        self.first = Linear(embedding_dim, hidden_dim)
        self.second = Linear(hidden_dim, 1)
        # END ASSIGN1_3

    def forward(self, embeddings):
        """
        embeddings tensor: [batch x sentence length x embedding dim]
        """
        # BEGIN ASSIGN1_3
        batch = embeddings.shape[0]
        pooled = embeddings.mean(1).view(batch, self.embedding_dim)
        hidden = self.first(pooled).relu()
        hidden = minitorch.dropout(hidden, rate=self.dropout_prob, ignore=not self.training)
        return self.second(hidden).sigmoid().view(batch)
        # END ASSIGN1_3


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

                # BEGIN ASSIGN1_4
                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND)
                y = minitorch.tensor(y_train[example_num : example_num + batch_size], backend=BACKEND)
                x.requires_grad_(True)
                y.requires_grad_(True)
                out = model.forward(x)
                ones = minitorch.tensor_functions.ones(y.shape, backend=BACKEND)
                loss = -(y * out.log() + (ones - y) * (ones - out).log()).sum()
                loss.backward()
                optim.step()
                # END ASSIGN1_4

                # Save training results
                train_predictions += get_predictions_array(y, out)
                total_loss += loss[0]
                n_batches += 1

            # Evaluate on validation set at the end of the epoch
            validation_predictions = []
            if data_val is not None:
                (X_val, y_val) = data_val
                model.eval()

                # BEGIN ASSIGN1_4
                x = minitorch.tensor(X_val, backend=BACKEND)
                y = minitorch.tensor(y_val, backend=BACKEND)
                out = model.forward(x)
                validation_predictions += get_predictions_array(y, out)
                validation_accuracy.append(get_accuracy(validation_predictions))
                # END ASSIGN1_4

                model.train()

            train_accuracy.append(get_accuracy(train_predictions))
            losses.append(total_loss / n_batches)
            log_fn(epoch, total_loss / n_batches, train_accuracy, validation_predictions, validation_accuracy)
