"""Buggy: The update adds the gradient (p + lr * grad): gradient ascent on the loss."""

EXPECT = None


def sgd_step(params: Params, grads: Params, lr: float) -> Params:
    return {name: value + lr * grads[name] for name, value in params.items()}
