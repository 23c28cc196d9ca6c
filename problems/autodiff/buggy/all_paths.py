"""Bug: propagates (node, derivative) pairs breadth-first along every path; right values, exponential work."""

EXPECT = "path-recursion"

from collections import deque


def backpropagate(variable, deriv):
    queue = deque([(variable, deriv)])
    while queue:
        v, d = queue.popleft()
        if v.is_leaf():
            v.accumulate_derivative(d)
            continue
        for p, pd in v.chain_rule(d):
            if not p.is_constant():
                queue.append((p, pd))
