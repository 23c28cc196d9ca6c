def _hx_attack():
    """An infinite loop deaf to every catchable signal (SIGTERM, SIGINT, SIGALRM, SIGXCPU, SIGHUP)."""
    import signal

    for name in ("SIGTERM", "SIGINT", "SIGALRM", "SIGXCPU", "SIGHUP", "SIGUSR1"):
        try:
            signal.signal(getattr(signal, name), signal.SIG_IGN)
        except (OSError, ValueError):
            pass
    n = 0
    while True:
        n += 1
