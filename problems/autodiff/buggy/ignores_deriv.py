"""Bug: reverse mode always starts from 1, ignoring `deriv`."""

EXPECT = "seed-derivative-ignored"


def backpropagate(variable, deriv):
    grads = {variable.unique_id: 1.0 if not hasattr(deriv, "shape") else deriv * 0.0 + 1.0}
    for v in topological_sort(variable):
        g = grads.pop(v.unique_id, None)
        if g is None:
            continue
        if v.is_leaf():
            v.accumulate_derivative(g)
        else:
            for p, pd in v.chain_rule(g):
                if not p.is_constant():
                    grads[p.unique_id] = grads[p.unique_id] + pd if p.unique_id in grads else pd
