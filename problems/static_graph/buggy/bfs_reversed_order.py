"""Buggy: the order is a breadth-first search from the roots (a deque, a visited set), reversed: inputs tend to
come first, but a node reached from the roots by a short path and by a long one (x1 in the lecture's
f = x1 + exp(1.5 x1 + 2 x2)) is listed before the users on its long path. Not a topological order."""

from collections import deque

LABELS = ["not-topological"]
FAILS = ["topological_order"]


def _topological_order(
    roots: Iterable[Node], expand: Callable[[Node], bool] = lambda n: True
) -> List[Node]:
    seen = set()
    level_order: List[Node] = []
    queue = deque()
    for r in roots:
        if r not in seen:
            seen.add(r)
            queue.append(r)
    while queue:
        node = queue.popleft()
        level_order.append(node)
        if not expand(node):
            continue
        for inp in node.inputs:
            if inp not in seen:
                seen.add(inp)
                queue.append(inp)
    level_order.reverse()
    return level_order
