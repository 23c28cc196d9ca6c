_hx_recursive_sort = topological_sort


def topological_sort(variable):
    """The recursive sort, with the limit raised through the C API (ctypes.pythonapi) and restored after."""
    import ctypes
    import sys

    old = sys.getrecursionlimit()
    ctypes.pythonapi.Py_SetRecursionLimit(100000)
    try:
        return list(_hx_recursive_sort(variable))
    finally:
        ctypes.pythonapi.Py_SetRecursionLimit(old)
