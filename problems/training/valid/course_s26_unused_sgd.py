"""Valid: the starter's Adam loop, plus a leftover `minitorch.SGD(...)` that is built but never stepped
(the accuracy run uses the optimizer the loop steps).

An SGD built but never stepped: the optimizer stepped decides.
"""

OFFERING = "s26"
SCORE = 30.0
EDITS = [(
    "        optim = minitorch.Adam(self.model.parameters(), learning_rate)\n",
    "        sgd = minitorch.SGD(self.model.parameters(), learning_rate)  # left over from an experiment, unused\n"
    "        optim = minitorch.Adam(self.model.parameters(), learning_rate)\n",
)]
