"""Valid: written for the llmsys starter: an iterative DFS whose sort returns a `reversed(...)` iterator."""


def topological_sort(variable: Variable) -> Iterable[Variable]:
    result: List[Variable] = []
    visited = set()
    stack = [(variable, False)]
    while stack:
        var, processed = stack.pop()
        if var.is_constant():
            continue
        if processed:
            result.append(var)
        elif var.unique_id not in visited:
            visited.add(var.unique_id)
            stack.append((var, True))
            if not var.is_leaf():
                for parent in var.parents:
                    if parent.unique_id not in visited:
                        stack.append((parent, False))
    return reversed(result)


def backpropagate(variable: Variable, deriv: Any) -> None:
    order = topological_sort(variable)
    derivatives = {}
    derivatives[variable.unique_id] = deriv
    for var in order:
        d = derivatives[var.unique_id]
        if var.is_leaf():
            var.accumulate_derivative(d)
        else:
            for v, dv in var.chain_rule(d):
                if v.is_constant():
                    continue
                if v.unique_id in derivatives:
                    derivatives[v.unique_id] += dv
                else:
                    derivatives[v.unique_id] = dv
