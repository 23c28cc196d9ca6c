"""Every step builds x from X_train[example_num:] (everything to the end), not one batch."""


def _train(self, data_train, learning_rate, batch_size=BATCH, max_epochs=500, data_val=None, log_fn=default_log_fn):
    model = self.model
    (X_train, y_train) = data_train
    n_training_samples = len(X_train)
    optim = minitorch.Adam(self.model.parameters(), learning_rate)
    train_accuracy, validation_accuracy = [], []
    for epoch in range(1, max_epochs + 1):
        total_loss, n_batches = 0.0, 0
        model.train()
        train_predictions = []
        batch_size = min(batch_size, n_training_samples)
        for batch_num, example_num in enumerate(range(0, n_training_samples, batch_size)):
            x = minitorch.tensor(X_train[example_num:], backend=BACKEND)
            y = minitorch.tensor(y_train[example_num:], backend=BACKEND)
            out = model.forward(x)
            loss = binary_cross_entropy_loss(out, y)
            loss.backward()
            optim.step()
            train_predictions += get_predictions_array(y, out)
            total_loss += loss[0]
            n_batches += 1
        validation_predictions = []
        if data_val is not None:
            (X_val, y_val) = data_val
            model.eval()
            x = minitorch.tensor(X_val, backend=BACKEND)
            y = minitorch.tensor(y_val, backend=BACKEND)
            validation_predictions += get_predictions_array(y, model.forward(x))
            validation_accuracy.append(get_accuracy(validation_predictions))
            model.train()
        train_accuracy.append(get_accuracy(train_predictions))
        log_fn(epoch, total_loss / n_batches, train_accuracy, validation_predictions, validation_accuracy)


SentenceSentimentTrain.train = _train
