"""Valid: the library's BCE, gradients cleared by hand, a seeded shuffle of the batches each epoch."""


def binary_cross_entropy_loss(out, y):
    return minitorch.binary_cross_entropy(out, y)


class SentenceSentimentTrain:
    def __init__(self):
        self.model = None

    def train(self, data_train, learning_rate, batch_size=10, max_epochs=500, data_val=None, log_fn=default_log_fn):
        model = self.model
        X, y = data_train
        optimizer = minitorch.Adam(model.parameters(), learning_rate)
        shuffle = random.Random(0)
        losses, train_acc, val_acc = [], [], []
        for epoch in range(1, max_epochs + 1):
            model.train()
            starts = list(range(0, len(X), batch_size))
            shuffle.shuffle(starts)
            total, preds = 0.0, []
            for s in starts:
                for p in model.parameters():
                    p.value.grad = None
                xb = minitorch.tensor(np.array(X[s : s + batch_size]), backend=BACKEND)
                yb = minitorch.tensor(np.array(y[s : s + batch_size]), backend=BACKEND)
                out = model.forward(xb)
                loss = binary_cross_entropy_loss(out, yb)
                loss.backward()
                optimizer.step()
                total += loss.item() * len(yb.to_numpy())
                preds += list(zip(yb.to_numpy(), out.to_numpy() > 0.5))
            val_preds = []
            if data_val is not None:
                model.eval()
                out = model.forward(minitorch.tensor(np.array(data_val[0]), backend=BACKEND))
                val_preds = list(zip(data_val[1], out.to_numpy() > 0.5))
                val_acc.append(float(np.mean([t == p for t, p in val_preds])))
                model.train()
            losses.append(total)
            train_acc.append(float(np.mean([t == p for t, p in preds])))
            log_fn(epoch, total, losses, preds, train_acc, val_preds, val_acc)
