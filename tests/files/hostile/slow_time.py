_hx_linear_backpropagate = backpropagate


def backpropagate(variable, deriv):
    """Right values, but the CPU time grows with the fourth power of the graph (0.3 s at 16000 nodes, where the
    linear work in the timed window is about 0.09 s): a known-slow base whose time ratio on the largest pair (about 6)
    stays far above the bound (3) on a loaded machine, and out of the band (2.5 to 4.5) that makes the probe measure
    more rounds. It is graded five times per run (alone and under four attacks), each time with six timed runs at
    16000 nodes."""
    import time

    n = len(list(topological_sort(variable)))
    until = time.process_time() + 0.3 * (n / 16000.0) ** 4
    while time.process_time() < until:  # burn CPU: the grader times CPU, read from the kernel
        pass
    return _hx_linear_backpropagate(variable, deriv)


def _hx_attack():
    pass
