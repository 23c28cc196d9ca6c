"""Bug (speed): a correct DFS whose order is built by `order = [node] + order` (a whole copy per node: quadratic)."""

EXPECT = "quadratic-traversal"


def topological_sort(variable):
    order, seen, stack = [], set(), [(variable, False)]
    while stack:
        v, done = stack.pop()
        if done:
            order = [v] + order
            continue
        if v.is_constant() or v.unique_id in seen:
            continue
        seen.add(v.unique_id)
        stack.append((v, True))
        if not v.is_leaf():
            stack.extend((p, False) for p in v.parents)
    return order
