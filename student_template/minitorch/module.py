"""Modules and Parameters: a tree of layers whose Parameters register themselves."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple


class Module:
    """A layer: holds child Modules and Parameters, found automatically by attribute.

    Assigning a Module or a Parameter to an attribute registers it, so
    `parameters()` and `named_parameters()` walk the whole tree; `train()` and
    `eval()` set `training` on every descendant.
    """

    _modules: Dict[str, "Module"]
    _parameters: Dict[str, "Parameter"]
    training: bool

    def __init__(self) -> None:
        self.__dict__["_modules"] = {}
        self.__dict__["_parameters"] = {}
        self.__dict__["training"] = True

    def modules(self) -> Sequence["Module"]:
        """The direct children."""
        return list(self.__dict__["_modules"].values())

    def train(self) -> None:
        """Set training mode on this module and every descendant."""
        self.training = True
        for m in self.modules():
            m.train()

    def eval(self) -> None:
        """Set evaluation mode (e.g. dropout off) on this module and every descendant."""
        self.training = False
        for m in self.modules():
            m.eval()

    def named_parameters(self) -> Sequence[Tuple[str, "Parameter"]]:
        """(dotted name, Parameter) for this module and its descendants."""
        named = list(self.__dict__["_parameters"].items())
        for prefix, module in self.__dict__["_modules"].items():
            named.extend((f"{prefix}.{name}", p) for name, p in module.named_parameters())
        return named

    def parameters(self) -> Sequence["Parameter"]:
        """Every Parameter of the tree."""
        return [p for _, p in self.named_parameters()]

    def add_parameter(self, k: str, v: Any) -> "Parameter":
        """Register `v` (wrapped in a Parameter) under the name `k`."""
        val = Parameter(v, k)
        self.__dict__["_parameters"][k] = val
        return val

    def __setattr__(self, key: str, val: Any) -> None:
        if isinstance(val, Parameter):
            self.__dict__["_parameters"][key] = val
        elif isinstance(val, Module):
            self.__dict__["_modules"][key] = val
        else:
            super().__setattr__(key, val)

    def __getattr__(self, key: str) -> Any:
        """A registered Parameter or child Module; any other missing name is None, as the course's
        Module (so `self.anything` never raises). Dunder names still raise AttributeError, so
        copy, pickle and NumPy protocol look-ups behave normally."""
        if key in self.__dict__["_parameters"]:
            return self.__dict__["_parameters"][key]
        if key in self.__dict__["_modules"]:
            return self.__dict__["_modules"][key]
        if key.startswith("__") and key.endswith("__"):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{key}'")
        return None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def __repr__(self) -> str:
        children = "".join(f"\n  ({k}): " + repr(m).replace("\n", "\n  ") for k, m in self._modules.items())
        return f"{type(self).__name__}({children}\n)" if children else f"{type(self).__name__}()"


class Parameter:
    """A value a Module learns: wraps a Tensor (or Scalar) and keeps it a leaf.

    `update(x)` replaces the value in place for optimizers; the value is kept
    `requires_grad` so backpropagation reaches it.
    """

    def __init__(self, x: Any = None, name: Optional[str] = None) -> None:
        self.value = x
        self.name = name
        if hasattr(x, "requires_grad_"):
            self.value.requires_grad_(True)
            if self.name:
                self.value.name = self.name

    def update(self, x: Any) -> None:
        """Replace the parameter's value (the optimizer's step)."""
        self.value = x
        if hasattr(x, "requires_grad_"):
            self.value.requires_grad_(True)
            if self.name:
                self.value.name = self.name

    def __repr__(self) -> str:
        return repr(self.value)

    def __str__(self) -> str:
        return str(self.value)
