def _hx_attack():
    """Sleeps for ten days (no CPU used: only a wall clock stops it)."""
    import signal
    import time

    for name in ("SIGTERM", "SIGINT", "SIGALRM", "SIGHUP"):
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    time.sleep(10 * 24 * 3600)
