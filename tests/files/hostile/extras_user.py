def _hx_attack():
    pass


def _hx_right_only_if_extras_ran(value):
    import builtins

    return value if getattr(builtins, "HX_EXTRAS_RAN", False) else value * 2.0
