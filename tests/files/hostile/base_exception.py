class _HxEscape(BaseException):
    """Derives from BaseException only, and lies about itself when printed."""

    def __str__(self):
        raise RuntimeError("no message for you")


def _hx_attack():
    raise _HxEscape()
