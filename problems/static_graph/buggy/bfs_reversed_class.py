"""Buggy, TensorSlow-style: a small traversal class keeps a FIFO of nodes to visit and the nodes it has seen;
visiting a node enqueues its (expandable) inputs; the order is the visit order read backwards. A breadth-first
order reversed is not topological (a node reached early by a short path precedes users on a longer path)."""

LABELS = ["not-topological"]
FAILS = ["topological_order"]


class _Traversal:
    def __init__(self, expand):
        self.expand = expand
        self.visited = []
        self.marked = set()
        self.fifo = []
        self.head = 0

    def enqueue(self, node):
        if node not in self.marked:
            self.marked.add(node)
            self.fifo.append(node)

    def run(self, roots):
        for root in roots:
            self.enqueue(root)
        while self.head < len(self.fifo):
            node = self.fifo[self.head]
            self.head += 1
            self.visited.append(node)
            if self.expand(node):
                for input_node in node.inputs:
                    self.enqueue(input_node)
        return self


def _topological_order(roots, expand=lambda n: True):
    visited = _Traversal(expand).run(list(roots)).visited
    return [visited[i] for i in range(len(visited) - 1, -1, -1)]
