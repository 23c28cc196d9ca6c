def _hx_attack():
    """A Ctrl-C lookalike: not an Exception, so `except Exception` in a harness misses it."""
    raise KeyboardInterrupt
