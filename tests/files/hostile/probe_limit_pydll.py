_hx_recursive_sort = topological_sort


def topological_sort(variable):
    """The recursive sort, with the limit raised through ctypes.PyDLL(None) and restored after."""
    import ctypes
    import sys

    api = ctypes.PyDLL(None)
    old = sys.getrecursionlimit()
    api.Py_SetRecursionLimit(100000)
    try:
        return list(_hx_recursive_sort(variable))
    finally:
        api.Py_SetRecursionLimit(old)
