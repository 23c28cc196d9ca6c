_hx_linear_backpropagate = backpropagate


def backpropagate(variable, deriv):
    """Right values, but the CPU time grows with the fourth power of the graph (1 s at 16000 nodes): a known-slow base
    whose time ratios (about 6 on the largest pair) stay far above the bound (3) on a loaded machine."""
    import time

    n = len(list(topological_sort(variable)))
    until = time.process_time() + 1.0 * (n / 16000.0) ** 4
    while time.process_time() < until:  # burn CPU: the grader times CPU, read from the kernel
        pass
    return _hx_linear_backpropagate(variable, deriv)


def _hx_attack():
    pass
