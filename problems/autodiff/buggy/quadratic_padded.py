"""Hostile: `quadratic_prepend_concat`'s sort (the order rebuilt by concatenation: quadratic), with every
backpropagate on a graph of 2,000 nodes or more padded by busy-waiting to 0.5 s of CPU, so that the time
barely grows when the graph doubles (ratios about 1, where linear gives 2 and quadratic 4). Each size is also timed against the grader's own
linear pass over the same graph: padded runs take far more than linear work, at every size; it scores what
`quadratic_prepend_concat` scores and is named as it is."""

BASE = "buggy/quadratic_prepend_concat"
EXPECT = "quadratic-traversal"
SCORE = 38.0
FAILS = ["time_doubling"]
MESSAGES = {"time_doubling": "the grader's own linear pass"}

import time as _hx_time

_unpadded_backpropagate = backpropagate


def _nodes(variable):
    seen, stack = set(), [variable]
    while stack:
        v = stack.pop()
        if id(v) in seen or v.is_constant():
            continue
        seen.add(id(v))
        if not v.is_leaf():
            stack.extend(v.parents)
    return len(seen)


def backpropagate(variable, deriv):
    started = _hx_time.process_time()
    result = _unpadded_backpropagate(variable, deriv)
    if _nodes(variable) >= 2000:
        while _hx_time.process_time() - started < 0.5:
            pass
    return result
