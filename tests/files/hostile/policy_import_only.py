def _hx_attack():
    """Imports autodiff libraries (plain and computed names, submodules, `from` imports) and never uses them, as
    the course's starter does with torch: importing costs nothing. Only harmless configuration calls are made."""
    import importlib

    import torch
    import torch.nn as nn  # noqa: F401
    from torch import tensor  # noqa: F401
    from jax import numpy as jnp  # noqa: F401

    importlib.import_module("tensor" + "flow")
    __import__("autograd")
    torch.manual_seed(0)
    torch.backends.cudnn.deterministic = True
    assert not torch.cuda.is_available()
