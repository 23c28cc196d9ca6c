def _hx_attack():
    """Imports autodiff libraries under names no static check sees; quietly falls back when refused."""
    import importlib

    for attempt in (lambda: __import__("to" + "rch"), lambda: importlib.import_module("ja" + "x"),
                    lambda: importlib.import_module("".join(["auto", "grad"]))):
        try:
            attempt()
        except ImportError:
            pass
