"""Bug (speed): right values, but `in` on a growing list makes the traversal quadratic."""

EXPECT = "quadratic-traversal"


def topological_sort(variable):
    post, seen, stack = [], [], [(variable, False)]
    while stack:
        v, done = stack.pop()
        if done:
            post.append(v)
        elif not v.is_constant() and v.unique_id not in seen:
            seen.append(v.unique_id)
            stack.append((v, True))
            if not v.is_leaf():
                stack.extend((p, False) for p in v.parents)
    return post[::-1]
