"""Bug: every batch is the whole training set (the batch slice is forgotten)."""

EXPECT = "whole-set-every-batch"


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
                x = minitorch.tensor(X_train, backend=BACKEND)
                y = minitorch.tensor(y_train, backend=BACKEND)
                out = model.forward(x)
                loss = binary_cross_entropy_loss(out, y)
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
