_hx_recursive_sort = topological_sort


def topological_sort(variable):
    """The recursive sort in a new thread with a 64 MiB stack and the limit raised through the C API."""
    import ctypes
    import sys
    import threading

    result, failure = [], []

    def work():
        try:
            result.extend(_hx_recursive_sort(variable))
        except BaseException as exc:
            failure.append(exc)

    old_size = threading.stack_size(64 << 20)
    old = sys.getrecursionlimit()
    ctypes.pythonapi.Py_SetRecursionLimit(100000)
    try:
        worker = threading.Thread(target=work)
        worker.start()
        worker.join()
    finally:
        ctypes.pythonapi.Py_SetRecursionLimit(old)
        threading.stack_size(old_size)
    if failure:
        raise failure[0]
    return result
