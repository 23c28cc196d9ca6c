"""Screens fail closed (issue 21): a file the integrity screen or similarity screening cannot analyse is
itself listed, deep nesting blinds neither, dynamic attribute access is listed whatever the name's
spelling, and copies disguised by what does not change behaviour are still flagged with their source."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import graders.integrity as integrity
from graders.intake import check_source
from graders.integrity import screen_file, screen_submission, screen_tree

ROOT = Path(__file__).resolve().parent.parent
AUTODIFF = "minitorch/autodiff.py"
#: the red team's line: CPython's compiler takes it, a parse from a few frames down does not
SHIELD = "\n_SHIELD = " + "-" * 2960 + "1\n"
PEEK = "\n\ndef _peek():\n    import gc\n    return [o for o in gc.get_objects() if type(o).__name__ == 'Channel']\n"


def _reference(rel: str = AUTODIFF) -> str:
    return (ROOT / "reference" / rel).read_text(encoding="utf-8")


def _from_depth(frames: int, fn, *args):
    """`fn(*args)` called `frames` Python frames further down (the grader calls the screens from deep)."""
    return fn(*args) if frames == 0 else _from_depth(frames - 1, fn, *args)


def _constructs(found) -> str:
    return " | ".join(f.describe() for f in found)


# ------------------------------------------------------------------------------------ integrity: deep files


@pytest.mark.parametrize("depth", [0, 60, 200])
def test_a_shield_line_does_not_blind_the_integrity_screen(tmp_path, depth):
    text = _reference() + PEEK + SHIELD
    assert _from_depth(depth, check_source, text.encode(), AUTODIFF)[2] is None  # intake stages it at any depth
    path = tmp_path / "autodiff.py"
    path.write_text(text, encoding="utf-8")
    found = _from_depth(depth, screen_file, path, AUTODIFF)
    assert "import gc" in _constructs(found) and ".get_objects" in _constructs(found), _constructs(found)
    (line,) = screen_submission([(path, AUTODIFF)])
    assert "reaches into the grader's process" in line and "import gc" in line


def test_deep_expressions_in_the_screens_own_helpers_do_not_blind_it(tmp_path):
    """A 2,500-deep attribute chain and string sum: the screen's recursive helpers (ast.unparse, folding)."""
    chain = "import minitorch.autodiff as given\ngiven" + ".x" * 2500 + " = 1\nname = " + " + ".join(["'a'"] * 2500)
    path = tmp_path / "autodiff.py"
    path.write_text(chain + "\nm = getattr(given, name)\n", encoding="utf-8")
    found = _from_depth(100, screen_file, path, AUTODIFF)
    reasons = {f.reason for f in found}
    assert integrity.PROCESS in reasons and integrity.DYNAMIC in reasons, _constructs(found)


def _raising(error):
    def fail(*args, **kwargs):
        raise error("injected")
    return fail


@pytest.mark.parametrize("error", [RecursionError, MemoryError, ValueError, SystemError, OverflowError, KeyError])
def test_a_file_the_screen_cannot_parse_is_listed_for_review(tmp_path, monkeypatch, error):
    path = tmp_path / "autodiff.py"
    path.write_text(_reference(), encoding="utf-8")
    monkeypatch.setattr(integrity, "parse_python", _raising(error))
    found = screen_file(path, AUTODIFF)
    assert found and all("could not be analysed" in f.construct for f in found), _constructs(found)
    (line,) = screen_submission([(path, AUTODIFF)])
    assert line.startswith(f"{AUTODIFF}: ") and "a TA should read it" in line and "line 0" not in line
    if error is RecursionError:
        assert "nesting too deep for the screen" in line


def test_a_screen_that_breaks_half_way_lists_the_file(tmp_path, monkeypatch):
    path = tmp_path / "autodiff.py"
    path.write_text(_reference(), encoding="utf-8")
    monkeypatch.setattr(integrity, "_constructs", _raising(RecursionError))
    assert "nesting too deep for the screen" in _constructs(screen_file(path, AUTODIFF))


def test_nesting_too_deep_even_for_the_deep_parse_is_listed(tmp_path, monkeypatch):
    import graders.intake as intake

    monkeypatch.setattr(intake, "DEEP_RECURSION_LIMIT", 1000, raising=False)
    path = tmp_path / "autodiff.py"
    path.write_text(_reference() + PEEK + SHIELD, encoding="utf-8")
    found = _from_depth(100, screen_file, path, AUTODIFF)
    assert found, "a file the screen could not read was passed silently"
    assert "could not be analysed: nesting too deep" in _constructs(found) or "import gc" in _constructs(found)


def test_a_parser_refusing_what_the_interpreter_compiles_is_listed(tmp_path, monkeypatch):
    path = tmp_path / "autodiff.py"
    path.write_text(_reference(), encoding="utf-8")
    monkeypatch.setattr(integrity, "parse_python", _raising(SyntaxError))
    assert "could not be analysed" in _constructs(screen_file(path, AUTODIFF))


def test_an_unreadable_staged_file_is_listed(tmp_path):
    folder = tmp_path / "autodiff.py"
    folder.mkdir()  # read_bytes raises IsADirectoryError: not a file intake refused, a file the screen missed
    assert "could not be read" in _constructs(screen_file(folder, AUTODIFF))


# ------------------------------------------------------------------------- integrity: dynamic attribute access

#: the red team's fourth round: each got past the screen (or was listed only as a computed name)
DYNAMIC_ROUTES = {
    "getattr alias": ("import sys\ng = getattr\nmods = g(sys, 'MODULES'.lower())", integrity.DYNAMIC),
    "computed grader name": ("import sys\nk = sys.modules['probe' + 'kit']\nch = vars(k)['_channel'.upper()]",
                             integrity.GRADER),
    "logging frames": ("import logging\ng = getattr\nf = logging.currentframe()\nb = g(f, 'F_BACK'.lower())",
                       integrity.PROCESS),
    "gc through the module table": ("import sys\nm = vars(sys)['MODULES'.lower()]\nobjs = m['gc'].get_objects()",
                                    integrity.PROCESS),
    "getattr in partial": ("from functools import partial\nlook = partial(getattr, obj)\nx = look(name)",
                           integrity.DYNAMIC),
    "setattr alias": ("s = setattr\ns(mod, 'x', 1)", integrity.DYNAMIC),
    "getattr spread": ("args = (mod, name)\nx = getattr(*args)", integrity.DYNAMIC),
    "namespace get": ("import sys\nm = sys.__dict__.get('mod' + 'ules')", integrity.PROCESS),
    "namespace of sys": ("import sys\nfor v in vars(sys).values():\n    pass", integrity.PROCESS),
    "vars alias": ("v = vars\nm = v(mod)", integrity.DYNAMIC),
    "reversed string": ("import sys\nkey = 'seludom'[::-1]", integrity.PROCESS),
    "joined string": ("key = ''.join(['g', 'c'])", integrity.PROCESS),
    "getattr.__call__": ("x = getattr.__call__(mod, name)", integrity.DYNAMIC),
    "referrers by literal getattr": ("def f(m, x):\n    return getattr(m, 'get_referrers')(x)", integrity.PROCESS),
    "frames by inspect helper": ("def f(fr):\n    return fr.getouterframes", integrity.PROCESS),
    "os write by namespace": ("import os\nw = vars(os)['write']", integrity.SYSTEM),
}


@pytest.mark.parametrize("route", sorted(DYNAMIC_ROUTES))
def test_dynamic_attribute_access_is_listed_whatever_the_spelling(route):
    code, reason = DYNAMIC_ROUTES[route]
    found = screen_tree(ast.parse(code), AUTODIFF)
    assert reason in {f.reason for f in found}, _constructs(found)


HONEST = [
    "def f(v):\n    return getattr(v, 'history', None), setattr(v, 'derivative', 0.0)",
    "name = 'ABC'.lower()\nlabel = ' '.join(['loss', 'acc'])\ntitle = 'epoch'.upper()",
    "def f(d):\n    return d.get('x'), d.pop('y', None)",
    "class M:\n    def __init__(self):\n        self.__dict__['_modules'] = {}\n        p = self.__dict__.get('_parameters')",
    "import sys\nprint(sys.version, file=sys.stderr)",
    "s = 'abc'[::-1] + 'x'[0:1]",
]


@pytest.mark.parametrize("code", HONEST)
def test_what_honest_code_does_with_names_is_not_listed(code):
    assert screen_tree(ast.parse(code), AUTODIFF) == []
