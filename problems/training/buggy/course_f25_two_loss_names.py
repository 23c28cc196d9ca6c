"""Buggy (fall 2025 names): a correct `binary_cross_entropy_loss` left unused, and the `cross_entropy_loss`
that `train` calls, a log-softmax over the batch (graded: the one the loop uses).

Both loss names defined: the one the loop calls is graded (a correct unused one earns nothing).
"""

OFFERING = "f25"
LABELS = ["bce-logsoftmax"]
PASSES = ["eval_mode", "minibatches", "zero_grad"]
FAILS = ["bce_values"]


def cross_entropy_loss(out, y):
    """The fall-2025 starter's hint read literally: log-softmax over the batch (a real misconception)."""
    ones = minitorch.tensor([1.0] * out.shape[0], backend=out.backend)
    def lsm(v):
        return v - v.exp().sum().log()
    return -(y * lsm(out) + (ones - y) * lsm(ones - out)).sum() / float(out.shape[0])


class SentenceSentimentTrain:
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

                # BEGIN SOLUTION
                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND)
                y = minitorch.tensor(y_train[example_num : example_num + batch_size], backend=BACKEND)
                out = model.forward(x)
                loss = cross_entropy_loss(out, y)
                loss.backward()
                optim.step()
                # END SOLUTION

                # Save training results
                train_predictions += get_predictions_array(y, out)
                total_loss += loss[0]
                n_batches += 1

            # Evaluate on validation set at the end of the epoch
            validation_predictions = []
            if data_val is not None:
                (X_val, y_val) = data_val
                model.eval()

                # BEGIN SOLUTION
                x = minitorch.tensor(X_val, backend=BACKEND)
                y = minitorch.tensor(y_val, backend=BACKEND)
                out = model.forward(x)
                validation_predictions += get_predictions_array(y, out)
                validation_accuracy.append(get_accuracy(validation_predictions))
                # END SOLUTION

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
