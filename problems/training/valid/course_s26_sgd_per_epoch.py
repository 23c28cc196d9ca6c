"""Valid: an SGD loop that builds its optimizer at the start of every epoch (SGD keeps no state)
(the accuracy run gives the optimizer the loop steps its own budget).

An SGD built anew each epoch: the optimizer stepped decides.
"""

OFFERING = "s26"
SCORE = 30.0


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
        losses = []
        train_accuracy = []
        validation_accuracy = []
        for epoch in range(1, max_epochs + 1):
            total_loss = 0.0
            n_batches = 0

            model.train()
            optim = minitorch.SGD(self.model.parameters(), learning_rate)  # SGD keeps no state: built per epoch
            train_predictions = []
            batch_size = min(batch_size, n_training_samples)

            for batch_num, example_num in enumerate(range(0, n_training_samples, batch_size)):
                out = None

                # BEGIN SOLUTION
                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND)
                y = minitorch.tensor(y_train[example_num : example_num + batch_size], backend=BACKEND)
                out = model.forward(x)
                loss = binary_cross_entropy_loss(out, y)
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
