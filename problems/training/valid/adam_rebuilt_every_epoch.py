"""Valid: Adam built anew at the start of every epoch (its state restarts once an epoch, and carries over the
epoch's steps); the held-out accuracy is what the run reaches."""

SCORE = 30.0
EDITS = [
    ("""\
            model.train()
            train_predictions = []
""", """\
            model.train()
            optim = minitorch.Adam(model.parameters(), learning_rate)
            train_predictions = []
"""),
]
