"""Valid: the loop backpropagates through a helper that holds the framework's backpropagate in a default argument
(bound when the module was imported, under another name): the same backward pass, which the audits must see."""

EDITS = [("                loss.backward()\n", "                _backward(loss)\n")]


def _backward(loss, run=minitorch.backpropagate):
    run(loss, loss.zeros(loss.shape) + 1.0)
