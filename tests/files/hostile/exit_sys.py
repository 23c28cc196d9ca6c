def _hx_attack():
    """sys.exit(0): a harness that trusted exit codes would see a clean run."""
    import sys

    sys.exit(0)
