def _hx_attack():
    """The process kills itself in the middle of a probe."""
    import os
    import signal

    os.kill(os.getpid(), signal.SIGKILL)
