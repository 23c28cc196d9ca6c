"""Bug: the optimizer never takes a step."""

EXPECT = None


class SentenceSentimentTrain:
    def __init__(self):
        self.model = Network()

    def train(self, data_train, learning_rate, batch_size=32, max_epochs=10, data_val=None, log_fn=default_log_fn):
        model = self.model
        X_train, y_train = data_train
        optim = minitorch.Adam(model.parameters(), learning_rate)
        validation_accuracy = []
        for epoch in range(1, max_epochs + 1):
            model.train()
            total_loss = 0.0
            for start in range(0, len(X_train), batch_size):
                x = minitorch.tensor(X_train[start : start + batch_size], backend=BACKEND)
                y = minitorch.tensor(y_train[start : start + batch_size], backend=BACKEND)
                optim.zero_grad()
                loss = binary_cross_entropy_loss(model.forward(x), y)
                loss.backward()
                total_loss += loss.item()
            if data_val is not None:
                model.eval()
                out = model.forward(minitorch.tensor(data_val[0], backend=BACKEND))
                validation_accuracy.append(get_accuracy(get_predictions_array(data_val[1], out)))
                model.train()
            log_fn(epoch, total_loss, [], [], validation_accuracy)
