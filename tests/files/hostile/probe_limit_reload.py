_hx_recursive_sort = topological_sort


def topological_sort(variable):
    """The recursive sort after importlib.reload(sys), hoping the reload brings the real setter back."""
    import importlib
    import sys

    importlib.reload(sys)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(100000)
    try:
        return list(_hx_recursive_sort(variable))
    finally:
        sys.setrecursionlimit(old)
