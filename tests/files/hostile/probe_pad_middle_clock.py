# (issue 21, red team) The middle size padded as in probe_pad_middle, and the probe's own clock in this process
# (time.thread_time) bent: it sees about 0 s per run (never "too slow" to go on) and 100 s after the third run of
# a size (one run per extra row). The probe now reads this process's CPU clock from the trusted process.
import time as _hx_time

_hx_unpadded = backpropagate
_hx_real_thread_time = _hx_time.thread_time
_hx_offset = [0.0]
_hx_calls = {}
_hx_time.thread_time = lambda: _hx_real_thread_time() + _hx_offset[0]


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
    n = _hx_nodes(variable)
    started = _hx_real_thread_time()
    result = _hx_unpadded(variable, deriv)
    bucket = next((b for b, size in ((1, 4000), (2, 8000), (3, 16000)) if abs(n - size) < 60), None)
    if bucket is None:  # not one of the timing probe's graphs
        return result
    _hx_calls[bucket] = _hx_calls.get(bucket, 0) + 1
    if bucket == 2:
        spent = _hx_real_thread_time() - started
        while _hx_real_thread_time() - started < 2.0 * spent:
            pass
    spent = _hx_real_thread_time() - started
    _hx_offset[0] -= spent  # the probe sees ~0 s: never "too slow"
    if _hx_calls[bucket] > 3:
        _hx_offset[0] += 100.0  # the probe sees 100 s: one run is enough for this row
    return result
