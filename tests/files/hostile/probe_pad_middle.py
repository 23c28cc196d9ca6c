# (issue 21, red team) No tampering at all: busy-wait only on graphs of about 8000 nodes, to twice the run's own
# time. The best time per size then makes the largest pair (16000 over 8000) look linear, and the 4000 -> 8000
# ratio goes over the bound (which once switched the check against the grader's linear pass off).
import time as _hx_time

_hx_unpadded = backpropagate


def _hx_nodes(variable):
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
    result = _hx_unpadded(variable, deriv)
    if 7000 <= _hx_nodes(variable) <= 9000:
        spent = _hx_time.process_time() - started
        while _hx_time.process_time() - started < 2.0 * spent:
            pass
    return result
