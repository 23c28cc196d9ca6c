"""Bug (two of them): `topological_sort` is a recursive post-order with no visited set, so a node is listed once
per path from the output (every diamond doubles the work); `backpropagate` keys its table of adjoints by the
variables themselves (unhashable: it fails on the framework's Scalars and Tensors) and drops each one when it is
processed, so on a graph with fan-out the next contribution to a node listed twice has no entry to go to
(KeyError): the backward pass crashes everywhere. The sort's work is measured on its own:
`path-recursion`; the deep chains: `recursion-limit`."""

LABELS = ["path-recursion", "recursion-limit"]
SCORE = 0.0
TAGS = {"work_on_diamonds": "path-recursion", "deep_chain_3000": "recursion-limit"}
MESSAGES = {"work_on_diamonds": "topological_sort alone", "topological_order_random": "appears more than once"}


def topological_sort(variable: Variable) -> Iterable[Variable]:
    # BEGIN ASSIGN2_1
    order: List[Variable] = []

    def dfs(var: Variable) -> None:
        if var.is_constant():
            return
        if not var.is_leaf():
            for parent in var.parents:
                dfs(parent)
        order.append(var)

    dfs(variable)
    order.reverse()
    return order
    # END ASSIGN2_1


def backpropagate(variable: Variable, deriv: Any) -> None:
    # BEGIN ASSIGN2_1
    order = topological_sort(variable)
    grads = {var: 0.0 for var in order}
    grads[variable] = deriv
    for var in order:
        d = grads.pop(var)  # done with it
        if var.is_leaf():
            var.accumulate_derivative(d)
            continue
        for parent, d_parent in var.chain_rule(d):
            if not parent.is_constant():
                grads[parent] += d_parent
    # END ASSIGN2_1
