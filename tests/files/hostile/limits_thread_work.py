def _hx_attack():
    """Right derivatives, plus work that grows with the square of the graph (n²/4 steps, under the
    probe's 1.5 s early stop at 16000 nodes) done @@WHERE@@: "main" on the calling thread; "thread" in
    a worker thread while the main thread waits in join(); "autoreap" in a forked child that the kernel
    reaps itself (SIGCHLD ignored: its CPU time never reaches the parent's reaped-children total) while
    the parent blocks on a pipe."""
    import os
    import signal
    import threading

    global backpropagate
    inner = backpropagate

    def padding(variable):
        n = len(list(topological_sort(variable)))
        for _ in range(n * n // 4):
            pass

    def in_autoreaped_child(variable):
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
        read_end, write_end = os.pipe()
        if os.fork() == 0:
            try:
                padding(variable)
            finally:
                os.write(write_end, b"x")
                os._exit(0)
        os.close(write_end)
        os.read(read_end, 1)
        os.close(read_end)

    def backpropagate(variable, deriv):
        if "@@WHERE@@" == "thread":
            worker = threading.Thread(target=padding, args=(variable,))
            worker.start()
            worker.join()
        elif "@@WHERE@@" == "autoreap":
            in_autoreaped_child(variable)
        else:
            padding(variable)
        inner(variable, deriv)
