def _hx_attack():
    """Imports autodiff libraries under names no static check sees and uses them; quietly falls back when refused."""
    import importlib

    for attempt in (lambda: __import__("to" + "rch").zeros(3),
                    lambda: importlib.import_module("ja" + "x").numpy.ones(2),
                    lambda: importlib.import_module("".join(["auto", "grad"])).grad(abs)):
        try:
            attempt()
        except Exception:
            pass
