"""Buggy: backward returns the gradients negated (the sign of g flipped), so training climbs the loss."""

EXPECT = None
SCORE = 6.0

_true_backward = backward


def backward(params, cache, y):
    return {name: -grad for name, grad in _true_backward(params, cache, y).items()}
