"""Valid: the loop calls `minitorch.backpropagate(loss, ones)` (the name minitorch re-exports, bound when it was
imported) instead of `loss.backward()`: the same backward pass, which the loop's audits must see."""

EDITS = [("                loss.backward()\n",
          "                minitorch.backpropagate(loss, loss.zeros(loss.shape) + 1.0)\n")]
