"""The fall-2025 name of the loss, written with log-probabilities and an eps; a loop that clears the
gradients after each step, uses model(x), SGD-free Adam and evaluates the validation data in batches."""


def cross_entropy_loss(out, y):
    ones = minitorch.tensor_functions.ones(y.shape, backend=out.backend)
    eps = 1e-9
    return -(y * (out + eps).log() + (ones - y) * (ones - out + eps).log()).mean()


binary_cross_entropy_loss = cross_entropy_loss


def _train(self, data_train, learning_rate, batch_size=BATCH, max_epochs=500, data_val=None, log_fn=default_log_fn):
    model = self.model
    (X_train, y_train) = data_train
    n = len(X_train)
    optim = minitorch.Adam(model.parameters(), learning_rate)
    train_accuracy, validation_accuracy = [], []
    for epoch in range(1, max_epochs + 1):
        total_loss, n_batches = 0.0, 0
        model.train()
        train_predictions = []
        size = min(batch_size, n)
        for start in range(0, n, size):
            x = minitorch.tensor(X_train[start : start + size], backend=BACKEND)
            y = minitorch.tensor(y_train[start : start + size], backend=BACKEND)
            out = model(x)
            loss = cross_entropy_loss(out, y)
            loss.backward()
            optim.step()
            optim.zero_grad()
            train_predictions += get_predictions_array(y, out)
            total_loss += loss.item()
            n_batches += 1
        validation_predictions = []
        if data_val is not None:
            (X_val, y_val) = data_val
            model.eval()
            for start in range(0, len(X_val), 7):
                x = minitorch.tensor(X_val[start : start + 7], backend=BACKEND)
                y = minitorch.tensor(y_val[start : start + 7], backend=BACKEND)
                validation_predictions += get_predictions_array(y, model(x))
            validation_accuracy.append(get_accuracy(validation_predictions))
            model.train()
        train_accuracy.append(get_accuracy(train_predictions))
        log_fn(epoch, total_loss / n_batches, train_accuracy, validation_predictions, validation_accuracy)


SentenceSentimentTrain.train = _train
