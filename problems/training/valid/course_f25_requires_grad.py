"""Valid (fall 2025 layout): the loss is `cross_entropy_loss` with eps = 1e-9 inside the logs, the pure-Python
SimpleOps backend, x and y made with requires_grad=True as the TODO list says, and optim.zero_grad()
after optim.step().

A valid loop: fall 2025's `cross_entropy_loss` on SimpleOps with requires_grad=True inputs.
"""

OFFERING = "f25"
SCORE = 30.0


def cross_entropy_loss(out, y):
    # BEGIN ASSIGN1_3
    eps = 1e-9
    ones = minitorch.tensor_functions.ones(y.shape, backend=out.backend)
    per_example = y * (out + eps).log() + (ones - y) * (ones - out + eps).log()
    return -per_example.sum() / out.shape[0]
    # END ASSIGN1_3


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

                # BEGIN ASSIGN1_3
                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND, requires_grad=True)
                y = minitorch.tensor(y_train[example_num : example_num + batch_size], backend=BACKEND, requires_grad=True)
                out = model.forward(x)
                loss = cross_entropy_loss(out, y)
                loss.backward()
                optim.step()
                optim.zero_grad()
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
