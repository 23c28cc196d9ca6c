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
    assert "import gc" in _constructs(found), _constructs(found)
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


# ------------------------------------------------------------------------------------------------ similarity

import similarity_class as sc  # noqa: E402  (the similarity tests' class of independent solutions)
from graders.similarity import load_summary, screen_class  # noqa: E402


def shielded(files):
    """A verbatim copy with the red team's line in every file."""
    return {rel: text + SHIELD for rel, text in files.items()}


class _Wrap(ast.NodeTransformer):
    """Every name read wrapped in an identity: `(lambda v: v)(x)` and `(x if True else None)`, in turn."""

    def __init__(self):
        self.count = 0

    def visit_Name(self, node):
        if not isinstance(node.ctx, ast.Load):
            return node
        self.count += 1
        if self.count % 2:
            return ast.Call(ast.parse("lambda v: v", mode="eval").body, [node], [])
        return ast.IfExp(ast.Constant(True), node, ast.Constant(None))


def _independent(a: ast.stmt, b: ast.stmt) -> bool:
    def names(s, ctx):
        return {n.id for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}
    simple = all(isinstance(s, ast.Assign) and not any(isinstance(n, ast.Call) for n in ast.walk(s)) for s in (a, b))
    return simple and not (names(a, ast.Store) & (names(b, ast.Load) | names(b, ast.Store))
                           or names(a, ast.Load) & names(b, ast.Store))


def obfuscate(text: str) -> str:
    """A copy renamed, its independent statements swapped, dead stores (`_zN = None`) interleaved with every
    statement, every name read wrapped in an identity: what it does is unchanged."""
    tree = ast.parse(text)
    tree = sc._Renamer(tree).visit(tree)
    dead = 0
    for node in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Module))]:
        body = node.body
        for i in range(len(body) - 1):
            if _independent(body[i], body[i + 1]):
                body[i], body[i + 1] = body[i + 1], body[i]
        mixed = []
        for stmt in body:
            dead += 1
            mixed += [stmt, ast.parse(f"_z{dead} = None").body[0]]
        node.body = mixed
    tree = _Wrap().visit(tree)
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def with_definitions(template: str, delta: str) -> str:
    """The student template with its functions replaced by the delta file's (the delta's imports on top)."""
    defs = {n.name: ast.get_source_segment(delta, n) for n in ast.parse(delta).body if isinstance(n, ast.FunctionDef)}
    imports = [ast.get_source_segment(delta, n) for n in ast.parse(delta).body
               if isinstance(n, (ast.Import, ast.ImportFrom))]
    lines = template.splitlines(keepends=True)
    for node in reversed(ast.parse(template).body):
        if isinstance(node, ast.FunctionDef) and node.name in defs:
            lines[node.lineno - 1:node.end_lineno] = [defs.pop(node.name) + "\n"]
    return "\n".join(imports) + "\n" + "".join(lines) + "\n\n".join(defs.values())


def valid_case_files(name: str):
    template = sc.template_files()
    delta = (ROOT / "problems" / "autodiff" / "valid" / f"{name}.py").read_text(encoding="utf-8")
    return {**template, sc.AUTODIFF: with_definitions(template[sc.AUTODIFF], delta)}


#: disguised copy -> its source
SOURCES = {"shielded": "ind_kahn", "obfuscated": "ind_recursive", "postorder_copy": "postorder",
           "reference_copy": "ind_reference"}


@pytest.fixture(scope="module")
def disguised_class(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("screens") / "class"
    for name in sc.INDEPENDENT:
        sc.write_files(root / name, sc.solution(name))
    sc.write_files(root / "postorder", valid_case_files("course_postorder"))
    sc.write_files(root / "dependency_count", valid_case_files("dependency_count"))
    sc.write_files(root / "shielded", shielded(sc.solution("ind_kahn")))
    sc.write_files(root / "obfuscated", {rel: obfuscate(t) for rel, t in sc.solution("ind_recursive").items()})
    sc.write_files(root / "postorder_copy", shielded({rel: obfuscate(t) for rel, t in
                                                      valid_case_files("course_postorder").items()}))
    sc.write_files(root / "reference_copy", {rel: obfuscate(t) + SHIELD for rel, t in
                                             sc.solution("ind_reference").items()})
    return root


@pytest.fixture(scope="module")
def screened_disguised(disguised_class):
    return _from_depth(100, screen_class, disguised_class)


def test_disguised_copies_are_flagged_with_their_source(screened_disguised, disguised_class):
    for name in SOURCES:  # each disguise runs: it still compiles (intake stages it, the child imports it)
        for path in (disguised_class / name).rglob("*.py"):
            assert check_source(path.read_bytes(), path.name)[2] is None
    threshold = screened_disguised.settings.threshold
    flagged = {frozenset((p.a, p.b)): p.score for p in screened_disguised.flagged}
    assert set(flagged) == {frozenset(pair) for pair in SOURCES.items()}, flagged
    others = [p.score for p in screened_disguised.pairs if frozenset((p.a, p.b)) not in flagged]
    # nothing else is flagged (the reference and the course's post-order DFS share an idea: 0.44 before any disguise)
    assert max(others) < threshold, sorted(others)[-3:]
    assert not screened_disguised.uncompared


def test_a_file_screening_cannot_compare_is_on_the_attention_list(tmp_path, monkeypatch):
    import graders.similarity.fingerprints as fingerprints
    from graders import batch as batch_module
    from graders.batch import BatchOptions, run_batch
    from test_similarity import fake_grade

    root = tmp_path / "subs"
    original = sc.solution("ind_depths")
    sc.write_files(root / "alice", original)
    sc.write_files(root / "bob", shielded(original))
    sc.write_files(root / "carol", sc.solution("ind_iterators"))
    deep = sc.write_files(root / "dave", sc.solution("ind_kahn"))  # a line even the compiler gives up on
    (deep / sc.AUTODIFF).write_text(sc.solution("ind_kahn")[sc.AUTODIFF] + "\n_S = " + "-" * 20000 + "1\n")
    real = fingerprints.parse_python

    def parse(text, file):  # erin's files break the screening's parser (whatever the reason)
        if "erin_was_here" in text:
            raise RecursionError("maximum recursion depth exceeded")
        return real(text, file)

    sc.write_files(root / "erin", {rel: t + "\nerin_was_here = 1\n" for rel, t in sc.solution("ind_recursive").items()})
    monkeypatch.setattr(fingerprints, "parse_python", parse)
    monkeypatch.setattr(batch_module, "grade_submission", fake_grade)
    out = tmp_path / "out"
    run = run_batch(root, out, BatchOptions(problems=["autodiff"], jobs=1, progress=False, allow_weak_sandbox=True))
    summary = load_summary(out)
    assert summary is not None
    reasons = {u.name: u.reason for u in summary.uncompared}
    assert set(reasons) == {"dave", "erin"}, reasons
    assert "cannot be compiled" in reasons["dave"] and "nesting too deep" in reasons["erin"]
    assert run.similarity.flagged_count == 1
    index = (out / "index.html").read_text(encoding="utf-8")
    attention = index[index.index('id="attention"'):index.index('id="overview"')]
    assert "alice ~ bob" in attention
    assert "dave: could not be compared" in attention and "erin: could not be compared" in attention
    page = (out / "similarity.html").read_text(encoding="utf-8")
    assert 'id="uncompared"' in page and "erin: could not be compared" in page
    assert "could not be compared" in batch_module.summary_text(run)
