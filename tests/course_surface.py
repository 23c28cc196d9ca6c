"""Compare reference/'s `minitorch` with a course starter's surface snapshot (problems/surfaces/OFFERING.json).

The snapshot (scripts/starter_surface.py) holds the course's names and signatures only. Ours is read at run
time (what a student file really reaches: a name added to a class after its definition counts too), with
the attributes `__init__` sets on `self` read from our source with the snapshot's own parser. A difference
is one of

* `missing`: the course has the name and ours does not (a student file using it fails here only);
* `extra`: ours has a public name or a dunder the course lacks (a student file using it crashes on the
  course's framework and works here). Names with one leading underscore that the course lacks are
  implementation details of either framework and are not compared in this direction;
* `signature`: both have it, with other parameters (names, kinds, defaults) or another kind of member.

`python tests/course_surface.py [OFFERING ...]` prints the differences that no exception explains.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import sys
import types
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
SURFACES = ROOT / "problems" / "surfaces"
sys.path.insert(0, str(ROOT / "scripts"))
import starter_surface  # noqa: E402  (scripts/ is not a package)

sys.path.pop(0)

#: what every class has from `object`, `type` or Python itself; never part of a course's surface
_AUTOMATIC = set(dir(object)) | {
    "__dict__", "__weakref__", "__module__", "__qualname__", "__annotations__", "__firstlineno__",
    "__static_attributes__", "__parameters__", "__orig_bases__", "__protocol_attrs__", "__non_callable_proto_members__",
    "__abstractmethods__", "_abc_impl", "_is_protocol", "_is_runtime_protocol", "__callable_proto_members_only__",
    "__annotate_func__", "__annotations_cache__", "__match_args__", "__dataclass_fields__",
    "__dataclass_params__", "__class_getitem__", "__init_subclass__", "__subclasshook__", "__orig_class__",
    "__weakrefoffset__", "__getstate__", "__reduce_ex__", "__reduce__", "__sizeof__", "__dir__", "__format__",
    "__str__", "__repr__", "__init__", "__new__", "__hash__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__",
    "__ge__", "__setattr__", "__getattribute__", "__delattr__", "__class__", "__doc__",
}
#: ... but a class that *defines* one of these in its body changes what it does: compared when either side does
_COMPARED_WHEN_DEFINED = {"__init__", "__repr__", "__str__", "__hash__", "__eq__", "__ne__", "__lt__", "__le__",
                          "__gt__", "__ge__", "__setattr__", "__getattribute__", "__delattr__", "__new__"}


def load(offering: str) -> Dict[str, Any]:
    return json.loads((SURFACES / f"{offering}.json").read_text(encoding="utf-8"))


def offerings() -> List[str]:
    return sorted(p.stem for p in SURFACES.glob("*.json"))


# ---------------------------------------------------------------------------
# the course's side (snapshot)
# ---------------------------------------------------------------------------


def _course_class(snap: Dict[str, Any], name: str) -> Optional[Dict[str, Any]]:
    for mod in snap["modules"].values():
        if name in mod["classes"]:
            return mod["classes"][name]
    return None


def course_members(snap: Dict[str, Any], cls: Dict[str, Any], seen: frozenset = frozenset()) -> Dict[str, Any]:
    """A snapshot class's members, its course bases' included (the nearest definition wins)."""
    members: Dict[str, Any] = {}
    for base in cls["bases"]:
        base_name = base.rpartition(".")[2]
        base_cls = _course_class(snap, base_name)
        if base_cls is not None and base_name not in seen:
            members.update(course_members(snap, base_cls, seen | {base_name}))
    members.update(cls["members"])
    if any(d.rpartition(".")[2].partition("(")[0] == "dataclass" for d in cls.get("decorators", ())):
        for name in ("__init__", "__repr__", "__eq__"):  # what @dataclass writes
            members.setdefault(name, {"kind": "method"})
    return members


# ---------------------------------------------------------------------------
# our side (run time, plus the `self.x =` of our __init__s)
# ---------------------------------------------------------------------------


def _our_init_attributes(cls: type) -> set:
    names: set = set()
    for klass in cls.__mro__:
        if klass is object or not klass.__module__.startswith("minitorch"):
            continue
        try:
            source = inspect.getsource(sys.modules[klass.__module__])
        except (OSError, TypeError):
            continue
        parsed = starter_surface.module(source)["classes"].get(klass.__name__)
        if parsed:
            names |= {n for n, m in parsed["members"].items() if m["kind"] == "instance attribute"}
    return names


def our_members(cls: type) -> Dict[str, Any]:
    """name -> the object (or None for an attribute set on instances) for every member of one of our classes."""
    members: Dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        if klass is object or klass.__module__ in ("typing", "typing_extensions", "abc", "builtins"):
            continue
        for name, value in vars(klass).items():
            if name in _AUTOMATIC and name not in _COMPARED_WHEN_DEFINED:
                continue
            if inspect.isfunction(value) and value.__module__ in ("typing", "typing_extensions", "abc"):
                continue  # a Protocol's own __init__
            if name == "__hash__" and value is None and "__eq__" in vars(klass):
                continue  # what Python does to a class that defines __eq__ (the course's as well)
            members[name] = value
        for name in getattr(klass, "__annotations__", {}) if "__annotations__" in vars(klass) else {}:
            members.setdefault(name, None)
    for name in _our_init_attributes(cls):
        members.setdefault(name, None)
    return members


def _kind(value: Any) -> str:
    if value is None:
        return "attribute"
    if isinstance(value, property):
        return "property"
    if isinstance(value, staticmethod):
        return "staticmethod"
    if isinstance(value, classmethod):
        return "classmethod"
    if inspect.isfunction(value):
        return "method"
    return "attribute"


def _course_kind(member: Dict[str, Any]) -> str:
    kind = member["kind"]
    return "attribute" if kind in ("class attribute", "instance attribute") else kind


def _our_signature(fn: Any, namespace: types.ModuleType) -> Optional[List[List[Any]]]:
    if isinstance(fn, (staticmethod, classmethod)):
        fn = fn.__func__
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    return [[p.name, p.kind.name, None if p.default is inspect.Parameter.empty else p.default]
            for p in sig.parameters.values()]


def _same_default(course: Optional[str], ours: Any, namespace: types.ModuleType) -> bool:
    if course is None:
        return ours is None
    try:
        value = ast.literal_eval(course)
    except (ValueError, SyntaxError):
        return getattr(namespace, course, object()) is ours  # a name: the same object in our module
    if isinstance(value, float) or isinstance(ours, float):
        return isinstance(ours, (int, float)) and not isinstance(ours, bool) and float(ours) == float(value)
    return type(value) is type(ours) and value == ours


def signature_difference(course: List[List[Any]], ours: Optional[List[List[Any]]],
                         namespace: types.ModuleType) -> Optional[str]:
    """None when the parameters agree (names, kinds, defaults), else a short description."""
    if ours is None:
        return None
    shown_c = ", ".join(p[0] + ("" if p[2] is None else "=" + p[2]) for p in course)
    shown_o = ", ".join(p[0] + ("" if p[2] is None else "=" + repr(p[2])) for p in ours)
    if [(p[0], p[1]) for p in course] != [(p[0], p[1]) for p in ours]:
        return f"course ({shown_c}), ours ({shown_o})"
    if not all(_same_default(c[2], o[2], namespace) for c, o in zip(course, ours)):
        return f"course ({shown_c}), ours ({shown_o})"
    return None


# ---------------------------------------------------------------------------
# the comparison
# ---------------------------------------------------------------------------

Difference = Tuple[str, str, str]  # (missing | extra | signature, "module.Class.name", detail)


def _our_module(name: str) -> Optional[types.ModuleType]:
    try:
        return importlib.import_module("minitorch" if name == "__init__" else f"minitorch.{name}")
    except ImportError:
        return None


def differences(snap: Dict[str, Any]) -> Iterator[Difference]:
    import minitorch

    ours_pkg = {n for n in vars(minitorch) if not (n.startswith("__") and n.endswith("__"))}
    course_pkg = set(snap["package"])
    for name in sorted(course_pkg - ours_pkg):
        yield ("missing", f"minitorch.{name}", "a name `import minitorch` gives")
    for name in sorted(ours_pkg - course_pkg):
        if not name.startswith("_"):
            yield ("extra", f"minitorch.{name}", "a name `import minitorch` gives")
    for mod_name, mod in snap["modules"].items():
        if mod_name == "__init__":
            continue
        where = f"minitorch.{mod_name}"
        ours = _our_module(mod_name)
        if ours is None:
            yield ("missing", where, "a module of the course's package")
            continue
        course_names = set(mod["functions"]) | set(mod["classes"]) | set(mod["names"])
        for name in sorted(n for n in course_names if not hasattr(ours, n)):
            yield ("missing", f"{where}.{name}", "a module-level name")
        for name, fn in mod["functions"].items():
            mine = getattr(ours, name, None)
            if mine is None or not callable(mine):
                continue
            detail = signature_difference(fn["signature"], _our_signature(mine, ours), ours)
            if detail:
                yield ("signature", f"{where}.{name}", detail)
        for cls_name, cls in mod["classes"].items():
            mine = getattr(ours, cls_name, None)
            if not isinstance(mine, type):
                continue
            yield from class_differences(snap, f"{where}.{cls_name}", cls, mine, ours)


def class_differences(snap: Dict[str, Any], where: str, cls: Dict[str, Any], mine: type,
                      namespace: types.ModuleType) -> Iterator[Difference]:
    course = course_members(snap, cls)
    ours = our_members(mine)
    for name in sorted(set(course) - set(ours)):
        if name in _AUTOMATIC and name not in _COMPARED_WHEN_DEFINED:
            continue
        if name in _COMPARED_WHEN_DEFINED:
            continue  # the course defines it; ours inherits object's: the behaviours are compared elsewhere
        yield ("missing", f"{where}.{name}", course[name]["kind"])
    for name in sorted(set(ours) - set(course)):
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            continue
        yield ("extra", f"{where}.{name}", _kind(ours[name]))
    for name in sorted(set(course) & set(ours)):
        c_kind, o_kind = _course_kind(course[name]), _kind(ours[name])
        if c_kind != o_kind:
            if {c_kind, o_kind} <= {"attribute", "property"}:
                continue  # read and written the same way by a student's code
            yield ("signature", f"{where}.{name}", f"course: {c_kind}, ours: {o_kind}")
            continue
        if "signature" in course[name]:
            detail = signature_difference(course[name]["signature"], _our_signature(ours[name], namespace),
                                          namespace)
            if detail:
                yield ("signature", f"{where}.{name}", detail)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "reference"))
    for offering in sys.argv[1:] or offerings():
        print(f"== {offering}")
        for diff in differences(load(offering)):
            print("  ", *diff)
