def _hx_attack():
    """Imports autodiff libraries in plain sight and uses one, swallowing whatever the use raises (importing alone
    costs nothing; any use of the library by graded code is the violation, caught or not)."""
    try:
        import torch
        from jax import numpy as jnp  # noqa: F401

        torch.tensor([1.0, 2.0]).sum()
    except Exception:
        pass
