"""Bug (deep graphs only): a recursive generator (`yield from` per parent), reversed at the end, and an
otherwise right `backpropagate` with a defaultdict of adjoints. Only `recursion-limit` applies."""

LABELS = ["recursion-limit"]
FAILS = ["deep_chain_3000", "deep_chain_10000", "deep_scalar_chain", "deep_tensor_chain"]
SCORE = 35.0

from collections import defaultdict


def topological_sort(variable: Variable) -> Iterable[Variable]:
    # BEGIN ASSIGN2_1
    done = set()

    def visit(node: Variable) -> Iterable[Variable]:
        if node.is_constant() or node.unique_id in done:
            return
        if not node.is_leaf():
            for parent in node.parents:
                yield from visit(parent)
        if node.unique_id not in done:
            done.add(node.unique_id)
            yield node

    return list(visit(variable))[::-1]
    # END ASSIGN2_1


def backpropagate(variable: Variable, deriv: Any) -> None:
    # BEGIN ASSIGN2_1
    adjoints: Dict[int, Any] = defaultdict(lambda: 0.0)
    adjoints[variable.unique_id] = deriv
    for var in topological_sort(variable):
        if var.is_leaf():
            var.accumulate_derivative(adjoints[var.unique_id])
            continue
        for parent, d in var.chain_rule(adjoints[var.unique_id]):
            if not parent.is_constant():
                adjoints[parent.unique_id] = adjoints[parent.unique_id] + d
    # END ASSIGN2_1
