"""Valid: an SGD loop that builds its optimizer at the start of every epoch (SGD keeps no state)
(the accuracy run gives the optimizer the loop steps its own budget).

An SGD built anew each epoch: the optimizer stepped decides.
"""

OFFERING = "s26"
SCORE = 30.0
EDITS = [
    ("        optim = minitorch.Adam(self.model.parameters(), learning_rate)\n", ""),
    ("            train_predictions = []\n",
     "            optim = minitorch.SGD(self.model.parameters(), learning_rate)  # SGD keeps no state: built per epoch\n"
     "            train_predictions = []\n"),
]
