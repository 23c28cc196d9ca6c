def topological_sort(variable):
    """A depth-first post-order written as recursive generators, driven by an explicit stack of them
    (a trampoline): iterative, however deep the graph, so it keeps the recursion points."""
    seen, post = set(), []

    def visit(v):
        seen.add(v.unique_id)
        if not v.is_leaf():
            for p in v.parents:
                if not p.is_constant() and p.unique_id not in seen:
                    yield p
        post.append(v)

    if variable.is_constant():
        return []
    stack = [visit(variable)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
        elif child.unique_id not in seen:
            stack.append(visit(child))
    return post[::-1]
