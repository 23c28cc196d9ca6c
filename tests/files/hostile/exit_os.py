def _hx_attack():
    """os._exit(0): no exception, no atexit, no summary: the process is simply gone with code 0."""
    import os
    import sys

    sys.stdout.flush()
    os._exit(0)
