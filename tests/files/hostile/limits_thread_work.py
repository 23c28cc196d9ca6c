def _hx_attack():
    """Right derivatives, plus work that grows with the square of the graph (n²/4 steps, under the
    probe's 1.5 s early stop at 16000 nodes) done @@WHERE@@: in a worker thread the main thread only
    waits in join(), so a clock that reads the main thread alone sees linear time."""
    import threading

    global backpropagate
    inner = backpropagate

    def padding(variable):
        n = len(list(topological_sort(variable)))
        for _ in range(n * n // 4):
            pass

    def backpropagate(variable, deriv):
        if "@@WHERE@@" == "thread":
            worker = threading.Thread(target=padding, args=(variable,))
            worker.start()
            worker.join()
        else:
            padding(variable)
        inner(variable, deriv)
