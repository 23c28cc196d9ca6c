def _hx_attack():
    """An exception message no UTF-8 writer accepts as is (a lone surrogate) that also reorders what a
    reader sees (a right-to-left override), with an escape sequence."""
    raise RuntimeError("\ud800 lone \u202eevil\u202c \x1b[31m red")
