"""Import stand-ins (child side): modules that import fine and fail only when something is USED.

A course file imports packages the sandbox does not have: the starter's
`tensor_functions.py` imports torch for a given gradient-check helper, and
the course's project scripts import `embeddings` and Hugging Face `datasets` for their
`__main__` block. Importing must cost nothing; only using such a package can.

* `StandInModule`: what `import pkg` / `import pkg.sub` gives. Any public name
  read from it (`torch.tensor`, `from datasets import load_dataset`) is a
  `StandIn`; submodules are stand-in modules too.
* `StandIn`: a name and nothing else. Reading a further name is still just a
  name (`torch.nn.Module`), and so is what needs no library behind it: type
  expressions (`Optional[torch.Tensor]`, `torch.Tensor | None`), identity,
  equality and hashing, truth value (every library name is truthy), and
  `isinstance`/`issubclass` against it (always False: no object of the
  library can exist in the sandbox). DOING anything with it is a use:
  calling it, subclassing it, arithmetic, ordering, conversion, iteration,
  indexing, `with`. A use calls the module's `on_use(name, action)`, which
  must raise (and may report first); a call may return a harmless value
  instead (see the harness).
* `StandInFinder`: a meta-path finder serving stand-in modules for a set of
  top-level package names.

Standard library only: this runs before anything else is importable.
"""

import importlib.machinery
import types

__all__ = ["PolicyViolation", "StandIn", "StandInModule", "StandInFinder", "is_dunder"]


class PolicyViolation(ImportError):
    """Raised when graded code uses a forbidden library's stand-in (the parent scores the problem 0)."""


def is_dunder(name):
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _use(stand_in, action):
    """Hand the use to the owning module's policy (which raises)."""
    on_use = object.__getattribute__(stand_in, "_standin_on_use")
    return on_use(object.__getattribute__(stand_in, "_standin_name"), action)


def _using(action):
    """A special method whose only effect is to report the use."""

    def method(self, *args, **kwargs):
        return _use(self, action)

    method.__name__ = f"__{action}__"
    return method


class StandIn:
    """A name exported by a stand-in module (`torch.tensor`): inert until used.

    Calls go through `on_use(name, "call")`; a policy may return a harmless
    value for a few configuration calls (see the harness), else it raises.
    """

    __slots__ = ("_standin_name", "_standin_on_use", "__weakref__")

    def __init__(self, name, on_use):
        object.__setattr__(self, "_standin_name", name)
        object.__setattr__(self, "_standin_on_use", on_use)

    def __getattr__(self, name):
        if is_dunder(name):  # introspection (`__wrapped__`, `__array__`, ...): an ordinary absent attribute
            raise AttributeError(name)
        own = object.__getattribute__(self, "_standin_name")
        return StandIn(f"{own}.{name}", object.__getattribute__(self, "_standin_on_use"))

    def __setattr__(self, name, value):  # `torch.backends.cudnn.deterministic = True`: no effect, not a use
        return None

    def __delattr__(self, name):
        return None

    def __repr__(self):
        return f"<stand-in for {object.__getattribute__(self, '_standin_name')}: not available while grading>"

    __str__ = __repr__

    def __dir__(self):
        return []

    # not uses: identity equality and hashing (object's), truthiness, type expressions, instance checks
    def __bool__(self):
        return True

    def __or__(self, other):  # `torch.Tensor | None` in an annotation
        import typing

        return typing.Union[self, other]

    def __ror__(self, other):
        import typing

        return typing.Union[other, self]

    def __instancecheck__(self, instance):  # no object of a stand-in library exists
        return False

    def __subclasscheck__(self, subclass):
        return False

    def __call__(self, *args, **kwargs):
        name = object.__getattribute__(self, "_standin_name")
        on_use = object.__getattribute__(self, "_standin_on_use")
        return on_use(name, "call", *args, **kwargs)

    __mro_entries__ = _using("subclassed")  # `class Net(torch.nn.Module)`


_OPERATORS = (
    "add radd iadd sub rsub isub mul rmul imul matmul rmatmul imatmul truediv rtruediv itruediv "
    "floordiv rfloordiv ifloordiv mod rmod imod divmod rdivmod pow rpow ipow lshift rlshift ilshift "
    "rshift rrshift irshift and rand iand ior xor rxor ixor neg pos abs invert round trunc floor ceil "
    "int float complex index len iter next reversed contains getitem setitem delitem "
    "lt le gt ge enter exit aenter aexit await aiter anext buffer"
).split()
for _op in _OPERATORS:
    setattr(StandIn, f"__{_op}__", _using(_op))
del _op


class StandInModule(types.ModuleType):
    """A stand-in package: every public name is a `StandIn`, every submodule another stand-in module."""

    def __init__(self, name, on_use):
        super().__init__(name)
        self.__dict__["_standin_on_use"] = on_use

    def __getattr__(self, name):
        if is_dunder(name):  # `__all__`, `__file__`, ...: absent, as in any module without them
            raise AttributeError(name)
        value = StandIn(f"{self.__name__}.{name}", self.__dict__["_standin_on_use"])
        self.__dict__[name] = value  # the same object each time (`torch.tensor is torch.tensor`)
        return value

    def __repr__(self):
        return f"<stand-in module {self.__name__!r}: not available while grading>"


class StandInFinder:
    """A meta-path finder: `module_for(fullname)` builds the stand-in module, or None to pass.

    `tops` are the top-level names served; every dotted name under them is
    served too (`torch.nn.functional` imported as F). Modules are packages, so
    any submodule import works.
    """

    def __init__(self, tops, module_for):
        self.tops = frozenset(tops)
        self.module_for = module_for

    def find_spec(self, fullname, path=None, target=None):
        if fullname.partition(".")[0] not in self.tops:
            return None
        # its own loader (create_module, exec_module) without importlib.abc.Loader as a base: importlib.abc
        # would import typing, pathlib and more into the child before the student's code
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)  # type: ignore[arg-type]

    def create_module(self, spec):
        return self.module_for(spec.name)

    def exec_module(self, module):
        return None
