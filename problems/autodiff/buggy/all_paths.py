"""Bug: propagates (node, derivative) pairs breadth-first along every path; right values, exponential work."""

EXPECT = "path-recursion"

from collections import deque


def topological_sort(variable):
    post, seen, stack = [], set(), [(variable, False)]
    while stack:
        v, done = stack.pop()
        if done:
            post.append(v)
        elif not v.is_constant() and v.unique_id not in seen:
            seen.add(v.unique_id)
            stack.append((v, True))
            if not v.is_leaf():
                stack.extend((p, False) for p in v.parents)
    return post[::-1]


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
