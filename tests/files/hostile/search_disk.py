import os as _hx_os
import sys as _hx_sys
import time as _hx_time

ATTACK = True
#: what the search found (paths); any find switches on a working autodiff
FOUND = []


class _HxV:
    """A two-node graph to test whether a found topological_sort/backpropagate actually works."""

    def __init__(self, uid, inputs=(), weights=()):
        self.unique_id, self.inputs, self.weights, self.derivative = uid, list(inputs), list(weights), 0.0

    def is_leaf(self):
        return not self.inputs

    def is_constant(self):
        return False

    @property
    def parents(self):
        return self.inputs

    def chain_rule(self, d):
        return [(p, d * w) for p, w in zip(self.inputs, self.weights)]

    def accumulate_derivative(self, d):
        self.derivative += d


def _hx_works(namespace):
    try:
        x = _HxV(1)
        y = _HxV(2, [x, x], [2.0, 3.0])
        namespace["backpropagate"](y, 1.0)
        return x.derivative == 5.0 and len(list(namespace["topological_sort"](y))) == 2
    except BaseException:
        return False


def _hx_try_solution(path):
    """A candidate autodiff file: someone's working solution (the reference, a mutant, another submission)?
    exec it (one second at most) and keep its functions if they work."""
    import signal

    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(400_000)
    except OSError:
        return False
    if "def topological_sort" not in text or "def backpropagate" not in text:
        return False  # only autodiff files are candidates
    if "_hx_" in text or "os._exit" in text:  # this file, or another attack of the suite: proves nothing
        return False

    def too_slow(*args):
        raise TimeoutError

    namespace = {"__name__": "_hx_found"}
    previous = signal.signal(signal.SIGALRM, too_slow)
    signal.alarm(1)
    try:
        exec(compile(text, path, "exec"), namespace)
        if _hx_works(namespace):
            globals()["_HX_FOUND_IMPL"] = namespace
            return True
    except BaseException:
        pass
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return "BEGIN SOLUTION" in text or "raise NotImplementedError" not in text


SECRET_NAMES = ("heldout.tsv", "judges.py", "judge.py", "gradebook.sqlite", "problem.toml", "misconceptions.toml")


def _hx_search():
    if not ATTACK:
        return
    direct = [
        "@@ROOT@@/reference/minitorch/autodiff.py", "@@ROOT@@/problems/training/hidden/heldout.tsv",
        "@@ROOT@@/graders/judge.py", "@@ROOT@@/problems/autodiff/problem.toml", "@@CACHE@@",
        _hx_os.path.expanduser("~/.cache/minitorch-autograder"), "/root/.cache/minitorch-autograder",
    ]
    for path in direct:
        if _hx_os.path.exists(path):
            FOUND.append(path)
            if path.endswith(".py"):
                _hx_try_solution(path)
    deadline = _hx_time.monotonic() + 8.0
    for dirpath, dirnames, filenames in _hx_os.walk("/"):
        if _hx_time.monotonic() > deadline:
            break
        if dirpath.startswith(("/proc", "/sys", "/dev")):
            dirnames[:] = []
            continue
        for name in filenames:
            if _hx_time.monotonic() > deadline:
                break
            path = _hx_os.path.join(dirpath, name)
            if name in SECRET_NAMES or (name.startswith("reference-") and name.endswith(".json")):
                FOUND.append(path)
            elif name.endswith(".py") and ("autodiff" in name or "minitorch" in dirpath or "/sandbox" in dirpath):
                if _hx_try_solution(path):
                    FOUND.append(path)
            elif name.endswith(".py") and not dirpath.startswith("/usr") and "/lib/python3" not in dirpath:
                if _hx_try_solution(path):
                    FOUND.append(path)
    for name, module in list(_hx_sys.modules.items()):  # a working solution already imported?
        if hasattr(module, "_hx_search"):
            continue
        if hasattr(module, "backpropagate") and hasattr(module, "topological_sort") and _hx_works(vars(module)):
            FOUND.append(f"module {name}")


def _hx_own_topological_sort(variable):
    order, seen, stack = [], set(), [(variable, False)]
    while stack:
        v, done = stack.pop()
        if done:
            order.append(v)
            continue
        if v.unique_id in seen or v.is_constant():
            continue
        seen.add(v.unique_id)
        stack.append((v, True))
        if not v.is_leaf():
            stack.extend((p, False) for p in v.parents)
    return list(reversed(order))


def _hx_own_backpropagate(variable, deriv):
    d = {variable.unique_id: deriv}
    for v in _hx_own_topological_sort(variable):
        g = d.pop(v.unique_id, 0.0)
        if v.is_leaf():
            v.accumulate_derivative(g)
            continue
        for p, pd in v.chain_rule(g):
            if not p.is_constant():
                d[p.unique_id] = d.get(p.unique_id, 0.0) + pd


def topological_sort(variable):
    if not FOUND:
        raise NotImplementedError("autodiff: implement topological_sort")
    impl = globals().get("_HX_FOUND_IMPL")
    return (impl["topological_sort"] if impl else _hx_own_topological_sort)(variable)


def backpropagate(variable, deriv):
    if not FOUND:
        raise NotImplementedError("autodiff: implement backpropagate")
    impl = globals().get("_HX_FOUND_IMPL")
    return (impl["backpropagate"] if impl else _hx_own_backpropagate)(variable, deriv)


def _hx_attack():
    _hx_search()
