def _hx_attack():
    """Five forked children of @@MIB@@ MiB each (every page touched), each under the per-process
    address-space limit, together far over the problem's memory limit; the parent goes on correctly once the
    kernel killed one of them (8 s at most)."""
    import os
    import time

    for _ in range(5):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            try:
                with open("/proc/self/comm", "w") as comm:
                    comm.write("@@TOKEN@@")
                block = bytearray(@@MIB@@ << 20)
                for i in range(0, len(block), 4096):
                    block[i] = 1
                time.sleep(30)
            finally:
                os._exit(0)
    deadline = time.monotonic() + 8
    while time.monotonic() < deadline:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:  # none left
            break
        if pid and os.WIFSIGNALED(status):  # killed for the memory the children hold together
            break
        time.sleep(0.05)
