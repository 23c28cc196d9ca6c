_hx_recursive_sort = topological_sort


def _hx_real_setter():
    """The interpreter's own setter, restored by re-creating the sys module from its saved state."""
    import _imp
    import importlib.machinery
    import sys

    try:
        return _imp.create_builtin(importlib.machinery.ModuleSpec("sys", None)).setrecursionlimit
    except Exception:
        return sys.setrecursionlimit


def topological_sort(variable):
    """(issue 21, class 2) The recursive sort with the depth watch switched off where the graph says it is
    (`variable.counter.watch_depth = False`, a plain attribute write) and the limit raised through the
    interpreter's own setter, restored after."""
    import sys

    for owner in (variable, getattr(variable, "history", None)):
        try:
            owner.counter.watch_depth = False
        except Exception:
            pass
    setter = _hx_real_setter()
    old = sys.getrecursionlimit()
    setter(100000)
    try:
        return list(_hx_recursive_sort(variable))
    finally:
        setter(old)
