def _hx_attack():
    """Forks by the hundred (each child forks once more), every process renamed @@TOKEN@@ and sleeping.
    Stops quietly at the first refused fork, so the probe itself completes."""
    import os
    import time

    for _ in range(200):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            try:
                with open("/proc/self/comm", "w") as comm:
                    comm.write("@@TOKEN@@")
                try:
                    os.fork()
                except OSError:
                    pass
                while True:
                    time.sleep(1000)
            finally:
                os._exit(0)
