def _hx_attack():
    """Tries to get a REAL torch past the import stand-in without unhooking the blocker: drops the stand-in from
    sys.modules, asks the path finder directly and executes what it finds; uses the result for Neg.forward."""
    import importlib.machinery
    import importlib.util
    import sys

    for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
        del sys.modules[name]
    try:
        spec = importlib.machinery.PathFinder.find_spec("to" + "rch")
        if spec is None:
            return
        torch = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = torch
        spec.loader.exec_module(torch)
        torch.neg(torch.zeros(1))
    except BaseException:
        return
    import minitorch

    def forward(ctx, t1):
        return minitorch.tensor(torch.from_numpy(t1.to_numpy().copy()).neg().numpy().tolist())

    globals()["Neg"].forward = staticmethod(forward)
