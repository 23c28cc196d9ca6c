"""The library's mean BCE; a loop that clears the gradients after each step (instead of before) and
evaluates the validation data in batches."""


def binary_cross_entropy_loss(out, y):
    return minitorch.binary_cross_entropy(out, y)


def _train(self, data_train, learning_rate, batch_size=32, max_epochs=10, data_val=None, log_fn=default_log_fn):
    model = self.model
    (X_train, y_train) = data_train
    n_training_samples = len(X_train)
    optim = minitorch.Adam(model.parameters(), learning_rate)
    losses, train_accuracy, validation_accuracy = [], [], []
    optim.zero_grad()
    for epoch in range(1, max_epochs + 1):
        total_loss = 0.0
        model.train()
        train_predictions = []
        batch_size = min(batch_size, n_training_samples)
        for start in range(0, n_training_samples, batch_size):
            x = minitorch.tensor(X_train[start : start + batch_size], backend=BACKEND)
            y = minitorch.tensor(y_train[start : start + batch_size], backend=BACKEND)
            out = model(x)
            loss = binary_cross_entropy_loss(out, y)
            loss.backward()
            optim.step()
            optim.zero_grad()
            train_predictions += get_predictions_array(y, out)
            total_loss += loss.item()
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
        losses.append(total_loss)
        log_fn(epoch, total_loss, losses, train_predictions, train_accuracy, validation_predictions, validation_accuracy)


SentenceSentimentTrain.train = _train
