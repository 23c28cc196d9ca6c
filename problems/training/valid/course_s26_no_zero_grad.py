"""Valid (spring 2026 layout): the loop never calls optim.zero_grad(), as the course's TODO list; the
course's Adam replaces every parameter's value at each step, so no gradient carries over.

A valid loop with no zero_grad at all (the course's TODO list has none).
"""

OFFERING = "s26"
SCORE = 30.0


def binary_cross_entropy_loss(out, y):
    # BEGIN ASSIGN2_3
    ones = minitorch.tensor_functions.ones(y.shape, backend=out.backend)
    log_p = out.log()
    log_not_p = (ones - out).log()
    return -(y * log_p + (ones - y) * log_not_p).mean()
    # END ASSIGN2_3
