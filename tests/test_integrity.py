"""The integrity screen (graders/integrity.py): every route from a student's file to the harness's channel
is listed for review, and no valid solution (ours, the examples, the course's own starters) ever is."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from cases import problem_cases
from graders.integrity import (
    DYNAMIC,
    FILES,
    GRADER,
    PROCESS,
    SYSTEM,
    screen_file,
    screen_submission,
    screen_tree,
    summarise,
)
from graders.spec import load_problems

ROOT = Path(__file__).resolve().parent.parent
#: the file names students write, one per problem
STUDENT_FILES = tuple(sorted({Path(spec.swap.file).name for spec in load_problems()}))
COURSE = Path(os.environ.get("COURSE_STARTERS", "/tmp/course"))


def findings(code: str):
    return screen_tree(ast.parse(code), "minitorch/autodiff.py")


# Ways code in the graded process can reach the harness's result channel (the red teams used the first
# three); each must be listed under the group that explains it.
ROUTES = {
    "gc": ("import gc\nch = [o for o in gc.get_objects() if type(o).__name__ == 'Channel']", PROCESS),
    "module table": ("import sys\nkit = sys.modules['probe' + 'kit']", PROCESS),
    "grader import": ("def f():\n    import probekit\n    return probekit._CHANNEL", GRADER),
    "frames": ("import inspect\nx = inspect.currentframe().f_back.f_locals['channel']", PROCESS),
    "function globals": ("def f(fn):\n    return fn.__globals__['_CHANNEL']", PROCESS),
    "given code replaced": ("from minitorch import scalar\nscalar.Scalar.backward = lambda self, d=None: None", PROCESS),
    "module patched": ("import minitorch.autodiff as given\nsetattr(given, 'central_difference', print)", PROCESS),
    "own module patched": ("from . import autodiff as me\nme.central_difference = None", PROCESS),
    "dunder lookup": ("def f(fn):\n    return object.__getattribute__(fn, '__glo' + 'bals__')", PROCESS),
    "computed getattr": ("import sys\nname = 'mod' + 'ules'\nm = getattr(sys, name)", DYNAMIC),
    "dynamic import": ("m = __import__('probe' + 'kit')", DYNAMIC),
    "importlib": ("import importlib\nm = importlib.import_module('x')", DYNAMIC),
    "exec": ("import base64\nexec(base64.b64decode(b'cHJpbnQoMSk='))", DYNAMIC),
    "raw write": ("import os\nos.write(5, b'{\"event\": \"done\"}\\n')", SYSTEM),
    "fd file": ("f = open(5, 'w')", SYSTEM),
    "proc fd": ("f = open('/proc/self/fd/5', 'w')", GRADER),
    "ctypes": ("from ctypes import CDLL\nlibc = CDLL(None)", PROCESS),
    "subprocess": ("import subprocess\nsubprocess.run(['true'])", SYSTEM),
    "fork": ("import os\npid = os.fork()", SYSTEM),
    "exec family": ("import os\nos.execv('/bin/sh', ['sh'])", SYSTEM),
    "subclasses": ("x = ().__class__.__base__.__subclasses__()", PROCESS),
    "memory by path": ("f = open('/pr' + 'oc/self/mem', 'rb')", FILES),
    "pathlib by path": ("from pathlib import Path\nm = Path('/pr' + 'oc/self/mem').read_bytes()", FILES),
    "numpy raw memory": ("import numpy as np\na = np.ctypeslib.as_array(addr, (64,))", PROCESS),
    "numpy strides": ("import numpy as np\nb = np.lib.stride_tricks.as_strided(a, (1 << 30,), (1,))", PROCESS),
    "numpy from file": ("import numpy as np\nb = np.fromfile(name, dtype=np.uint8)", FILES),
    "runpy": ("import runpy\nrunpy.run_path(p)", DYNAMIC),
    # the red team's third round (each got past the screen before)
    "module alias": ("import sys as _s\nfor m in list(_s.modules.values()): pass", PROCESS),
    "exec renamed": ("_run = exec\n_run(code, {})", DYNAMIC),
    "eval in a list": ("f = [eval][0]", DYNAMIC),
    "frames by traceback": ("import traceback\nfor fr, _ in traceback.walk_stack(None): pass", PROCESS),
    "literal getattr": ("x = getattr(fn, '__globals__')", PROCESS),
    "split string": ("x = type(fn).__dict__['__glob' + 'als__']", PROCESS),
    "computed namespace key": ("x = vars(type(fn))[name]", DYNAMIC),
    "os.sys": ("import os\nm = os.sys.modules", PROCESS),
    "star import": ("from os import *\nwrite(6, b'x')", SYSTEM),
    "posix": ("import posix\nposix.write(6, b'x')", SYSTEM),
    "io.open": ("import io\nf = io.open(fd, 'w', closefd=False)", SYSTEM),
    "path open": ("import pathlib\nf = pathlib.Path('/pro' + 'c/self/fd/' + str(fd)).open('w')", FILES),
    "match class": ("import sys\nmatch sys:\n    case object(modules=m):\n        pass", PROCESS),
    "dunder get": ("g = type(fn).__dict__[k].__get__(fn)", PROCESS),
    "builtins by string": ("b = globals()['__buil' + 'tins__']", PROCESS),
    "subclasses by type": ("s = type.__dict__['__subclasses__'](object)", PROCESS),
    "exception frames": ("try:\n    1 / 0\nexcept Exception as e:\n    f = getattr(e, '__traceback__')", PROCESS),
    "linecache": ("import linecache\nsrc = linecache.getlines(path)", GRADER),
    "module table by key": ("import sys\nm = vars(sys)['modules']", PROCESS),
    "grader attribute": ("def f(v):\n    return type(v).__module__, m._CHANNEL", GRADER),
}


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_every_route_to_the_channel_is_listed(route):
    code, reason = ROUTES[route]
    found = findings(code)
    assert found, route
    assert reason in {f.reason for f in found}, [f.describe() for f in found]


# What valid solutions of this homework do: none of it is listed.
VALID = [
    "import sys\nsys.setrecursionlimit(10000)",
    "from collections import deque, defaultdict\nimport os\np = os.path.join('a', 'b')",
    "def f(v):\n    return getattr(v, 'history', None), hasattr(v, 'parents'), vars(v), globals()",
    "class M:\n    def __init__(self):\n        self.__dict__['_modules'] = {}",
    "import numpy as np\nimport math\nimport random\nfrom typing import Iterable",
    "import torch  # the course's starter: the forbidden-import policy handles torch, not this screen",
    "def f(x):\n    raise NotImplementedError('Need to include this file from past assignment.')",
    "import time\nstart = time.time()\nprint(f'epoch took {time.time() - start}')",
    "with open('losses.txt', 'a') as log:\n    log.write('0.5\\n')",
    "from pathlib import Path\nimport sys\nsys.path.insert(0, str(Path(__file__).resolve().parent.parent))",
    "import numpy as np\nnp.savetxt('out.txt', [1.0])\nPath('log.txt').write_text('x')",
    "class Network(minitorch.Module):\n    def params(self):\n        return [p for m in self.modules() for p in m.parameters()]",
    "if __name__ == '__main__':\n    print(type(x).__name__, x.__class__.__name__, self.__dict__['_modules'])",
    "def __add__(self, b):\n    return super().__add__(b)\ndef __repr__(self):\n    return f'T({self.x})'",
    "import traceback\ntry:\n    1 / 0\nexcept Exception:\n    traceback.print_exc()",
    "from minitorch.tensor_functions import Function  # the graded file's own module, read only",
    "class Node:\n    __array_ufunc__ = None  # numpy defers to our operators\n    __array_priority__ = 100",
]


@pytest.mark.parametrize("code", VALID)
def test_what_valid_solutions_do_is_not_listed(code):
    assert findings(code) == [], [f.describe() for f in findings(code)]


def _student_files(*roots: Path):
    for root in roots:
        if root.is_dir():
            yield from (p for p in root.rglob("*.py") if p.name in STUDENT_FILES)


def test_no_valid_or_buggy_solution_we_have_is_listed():
    """The reference, the template, the example class, our course-style files, every problem's valid and buggy
    cases (written by hand, in many styles: a delta case's own definitions, a whole case's files) and, when
    present, the course's own starters of every offering."""
    roots = [ROOT / "reference", ROOT / "student_template", ROOT / "examples" / "submissions",
             ROOT / "tests" / "files" / "course_style",
             ROOT / "tests" / "files" / "public_valid", ROOT / "tests" / "files" / "public_bugs", COURSE]
    roots += [spec.folder / kind for spec in load_problems() for kind in ("valid", "buggy")]
    files = list(dict.fromkeys([*_student_files(*roots), *(case.student_file for case in problem_cases())]))
    assert len(files) >= 60
    listed = {str(p): [f.describe() for f in screen_file(p, p.name)] for p in files}
    assert {p: found for p, found in listed.items() if found} == {}


def test_the_summary_names_file_lines_and_constructs_and_stays_short(tmp_path):
    code = "import gc\n" + "\n".join(f"y{i} = fn.__globals__" for i in range(5000))
    path = tmp_path / "autodiff.py"
    path.write_text(code, encoding="utf-8")
    lines = screen_submission([(path, "minitorch/autodiff.py"), (path, "minitorch/autodiff.py")])
    assert len(lines) == 1, lines  # one file (given twice: screened once), one group
    assert lines[0].startswith("minitorch/autodiff.py, lines 1, 2, 3, 4, 5, ...: reaches into the grader's process")
    assert "import gc" in lines[0] and ".__globals__" in lines[0]
    assert len(lines[0]) < 300


def test_an_unreadable_or_broken_file_is_not_the_screens_business(tmp_path):
    (tmp_path / "bad.py").write_bytes(b"\xff\xfe def (")
    (tmp_path / "syntax.py").write_text("def f(:\n", encoding="utf-8")
    (tmp_path / "deep.py").write_text("x = " + "(" * 5000 + "1" + ")" * 5000 + "\n", encoding="utf-8")
    for name in ("bad.py", "syntax.py", "deep.py", "missing.py"):
        assert screen_file(tmp_path / name, name) == []


def test_screening_writes_nothing_on_the_nodes_every_tree_shares():
    """The parser shares its context and operator nodes (Load, Add, Not, Eq, And) between every tree: a parent
    written on them would be another file's node, and would keep the last screened tree alive."""
    screen_tree(ast.parse("def f(x, y):\n    return not (x + y == -x and x)\n"), "minitorch/autodiff.py")
    fresh = ast.parse("a = not (b + c == -b and b)").body[0]
    shared = [n for n in ast.walk(fresh) if isinstance(n, (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop,
                                                               ast.boolop))]
    assert {type(n).__name__ for n in shared} >= {"Load", "Store", "Add", "Not", "USub", "Eq", "And"}
    assert not [n for n in shared if hasattr(n, "_screen_parent")]


def test_summarise_groups_by_file_and_reason():
    found = findings("import gc\nimport subprocess\nexec('1')") + screen_tree(ast.parse("import ctypes"), "project/run_sentiment.py")
    lines = summarise(found)
    assert len(lines) == 4
    assert any(line.startswith("project/run_sentiment.py, line 1: ") for line in lines)


def test_review_lines_reach_the_student_report_results_json_and_the_summary():
    from graders.record import results_json, summary_text
    from graders.results import GradeResult
    from reports.render import render_submission

    line = "minitorch/autodiff.py, line 3: names the grader's own modules (import probekit)"
    result = GradeResult(submission="s", problems=[], review=[line])
    assert results_json(result)["extra_data"]["review"] == [line]
    assert f"For review by course staff: {line}" in summary_text(result)
    html = render_submission(result)
    assert 'id="review"' in html and "import probekit" in html
    assert 'id="review"' not in render_submission(GradeResult(submission="s", problems=[]))


def test_a_listed_submission_is_on_the_class_reports_attention_list_with_its_score_unchanged(tmp_path):
    """Graded for real in a batch: the listed copy of the reference keeps full marks, its report says why it is
    for review, and the class report names it (linked) above the overview; the plain reference is not listed."""
    import shutil

    from graders.batch import BatchOptions, run_batch

    subs = tmp_path / "subs"
    for name in ("plain", "reaching"):
        shutil.copytree(ROOT / "reference" / "minitorch", subs / name / "minitorch",
                        ignore=shutil.ignore_patterns("__pycache__"))
    autodiff = subs / "reaching" / "minitorch" / "autodiff.py"
    autodiff.write_text(autodiff.read_text(encoding="utf-8") + "\n\ndef _peek():\n    import gc\n"
                        "    return [o for o in gc.get_objects() if type(o).__name__ == 'Channel']\n", encoding="utf-8")
    out = tmp_path / "out"
    run = run_batch(subs, out, BatchOptions(problems=["autodiff"], jobs=1, progress=False, allow_weak_sandbox=True,
                                            similarity=False))  # two gradings: no worker processes to start
    scores = {g.name: (g.result.score, g.result.max_score, g.result.review) for g in run.graded}
    assert scores["plain"][0] == scores["plain"][1] and scores["plain"][2] == []
    assert scores["reaching"][0] == scores["reaching"][1]  # never a penalty
    (line,) = scores["reaching"][2]
    assert line.startswith("minitorch/autodiff.py, line") and "reaches into the grader's process" in line
    assert "(import gc)" in line
    index = (out / "index.html").read_text(encoding="utf-8")
    review = index[index.index('id="review"'):index.index("</ul>", index.index('id="review"'))]
    assert 'href="reaching/report.html#review">reaching</a>' in review and "plain" not in review
    assert index.index('id="review"') < index.index('id="overview"')
    assert 'id="review"' in (out / "reaching" / "report.html").read_text(encoding="utf-8")
