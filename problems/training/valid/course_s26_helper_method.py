"""Valid: validation moved into a helper method of the trainer, `self.evaluate(X_val, y_val)`.

The whole trainer class is the student's (its helper methods).
"""

OFFERING = "s26"
SCORE = 30.0
EDITS = [
    ("        self.model = Network()\n", '''\
        self.model = Network()

    def evaluate(self, X, y):
        """Predictions of the model (in its current mode) on (X, y)."""
        x = minitorch.tensor(X, backend=BACKEND)
        labels = minitorch.tensor(y, backend=BACKEND)
        return get_predictions_array(labels, self.model.forward(x))
'''),
    ("""\
                x = minitorch.tensor(X_val, backend=BACKEND)
                y = minitorch.tensor(y_val, backend=BACKEND)
                out = model.forward(x)
                validation_predictions += get_predictions_array(y, out)
""", "                validation_predictions += self.evaluate(X_val, y_val)\n"),
]
