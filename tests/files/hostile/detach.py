def _hx_attack():
    """Daemons: setsid + double fork, deaf to SIGTERM/SIGHUP, renamed @@TOKEN@@; one keeps every fd
    (the result pipe included), one execs /bin/sleep. The probe itself then returns normally."""
    import os
    import signal
    import time

    for how in ("keep-fds", "exec"):
        try:
            pid = os.fork()
        except OSError:
            return
        if pid == 0:
            try:
                os.setsid()
                if os.fork() != 0:
                    os._exit(0)
                for name in ("SIGTERM", "SIGHUP", "SIGINT"):
                    signal.signal(getattr(signal, name), signal.SIG_IGN)
                if how == "exec":
                    os.execv("/bin/sleep", ["@@TOKEN@@", "100000"])
                with open("/proc/self/comm", "w") as comm:
                    comm.write("@@TOKEN@@")
                while True:
                    time.sleep(1000)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
