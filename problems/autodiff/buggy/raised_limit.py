"""Bug: a recursive DFS that raises the recursion limit to survive deep graphs."""

EXPECT = "recursion-limit"

import sys


def topological_sort(variable):
    sys.setrecursionlimit(100000)
    seen = set()
    post = []

    def dfs(v):
        if v.is_constant() or v.unique_id in seen:
            return
        seen.add(v.unique_id)
        if not v.is_leaf():
            for p in v.parents:
                dfs(p)
        post.append(v)

    dfs(variable)
    return post[::-1]
