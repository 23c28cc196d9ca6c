"""Buggy (spring 2025 layout): no loss function; the loss computed inline in `train` is the SUM of the
batch's binary cross-entropies, not their mean (graded with the s25 offering: its loop-loss test).

An inline loss that sums over the batch: caught by the loss the loop backpropagates (no misconception of its
own).
"""

OFFERING = "s25"
LABELS = []
PASSES = ["eval_mode", "minibatches", "zero_grad"]
FAILS = ["loop_loss"]


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
