"""Bug (on deep graphs): a recursive post-order DFS."""

EXPECT = "recursion-limit"


def topological_sort(variable):
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
