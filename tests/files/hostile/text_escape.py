def _hx_attack():
    """An exception message built to drive a terminal (OSC window title, CSI clear screen) and to break XML
    (NUL, C0, DEL, the C1 CSI)."""
    raise RuntimeError("\x1b]0;pwned\x07\x1b[2J\x00\x01\x7f\x9b ok")
