"""Bug (of the loop's contract): the loop never steps the optimizer the given code builds; it updates every
parameter itself (p <- p - lr * grad, a new value, as the course's optimizers make). The step test says so; the accuracy is
that of the parameters its own updates trained (they changed from one training batch to the next), not of the
untrained network, and carries no note about values set outside training."""

EXPECT = None
SCORE = 18.263158  # accuracy 57.8 % credited; the untrained network (50 %) would give 15.789474
FAILS = ["zero_grad"]
PASSES = ["minibatches"]
EDITS = [("                optim.step()\n",
          "                for p in model.parameters():\n"
          "                    p.update(p.value - p.value.grad * learning_rate * 50.0)\n")]
