def _hx_attack():
    """Wrap the training loop so that its first log_fn call is followed by @@CALLS@@ extra calls (the course's
    signature: epoch, mean loss, training accuracies, validation predictions, validation accuracies).

    The loop itself is untouched (it trains as well as its base does); only the results it reports balloon.
    """
    original = SentenceSentimentTrain.train

    def train(self, *args, **kwargs):
        log_fn = kwargs.get("log_fn", default_log_fn)
        flooded = []

        def flooding(epoch, *rest, **named):
            result = log_fn(epoch, *rest, **named)
            if not flooded:
                flooded.append(True)
                for _ in range(@@CALLS@@):
                    log_fn(epoch, 0.5, [], [], [])
            return result

        kwargs["log_fn"] = flooding
        return original(self, *args, **kwargs)

    SentenceSentimentTrain.train = train
