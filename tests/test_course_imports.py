"""Course-style submissions (issue 9, "given code is not the student's"): what the course's starter itself
contains must cost nothing, and using an autodiff library still costs the problem.

* the starter's `tensor_functions.py` imports torch at module level for a given gradient-check helper:
  importing is free; USING torch in graded code (at import or inside a Function) scores 0 with the policy
  message, naming the line;
* a real `run_sentiment.py` imports `embeddings`, `datasets` (also `datasets.load`), `tqdm`, `pdb`,
  `sys.path.append('../')`, `SimpleOps`/`CudaKernelOps`: all load, tqdm loops run, a leftover breakpoint
  continues, data loading says the grader supplies the inputs;
* the loss is `binary_cross_entropy_loss` (spring 2026) or `cross_entropy_loss` (fall 2025): a swap symbol
  lists alternatives, `"binary_cross_entropy_loss|cross_entropy_loss"`;
* the course gives `IsClose` without a backward: a file without one loses nothing;
* students zip the whole starter folder (.git, caches, a compiled .so, data, a stale build/ copy).

Submissions are reference files with a piece from tests/files/course_style/imports/ added (see its README),
so the reference alone is the baseline.
"""

from __future__ import annotations

import hashlib
import os
import sys
import typing
import zipfile
from pathlib import Path
from typing import Optional, Union

import pytest

import hostile_kit as k
from graders.baseline import child_config, limits_for
from graders.grade import GradeOptions, grade_submission
from graders.intake import MAX_ENTRIES, open_submission
from graders.offering import load_offerings
from graders.probe import run_child
from graders.results import DEFAULT_SEED, GradeResult
from graders.spec import SpecError, load_problem, load_problems

PIECES = Path(__file__).resolve().parent / "files" / "course_style" / "imports"
AD, OPS, NET = k.FILES["autodiff"], k.FILES["ops"], k.FILES["network"]
CONTRACT = (AD, OPS, NET)


def piece(name: str) -> str:
    return (PIECES / name).read_text(encoding="utf-8")


def ref(rel: str) -> str:
    return k.source("reference", rel)


def offering_with(pid: str) -> str:
    """An offering that grades `pid` (`ops` is graded only where students write tensor_functions.py)."""
    default, offerings = load_offerings()
    if pid in offerings[default].points:
        return default
    return next(oid for oid, o in offerings.items() if pid in o.points)


def grade(path: Path, problems) -> GradeResult:
    return grade_submission(path, GradeOptions(offering=offering_with(problems[0]), problems=list(problems)))


def assert_full(result: GradeResult, pid: str) -> None:
    """Every test passed (scores compared with a tolerance: offerings scale points, e.g. 30/29 per test)."""
    p = k.problem(result, pid)
    assert p.fault is None and all(t.passed for t in p.tests), (pid, k.text_of(p))
    assert abs(p.score - p.max_score) < 1e-3, (pid, p.score, p.max_score)
    assert "policy" not in k.text_of(p) and not p.errors, k.text_of(p)


def assert_policy_zero(result: GradeResult, pid: str, *words: str) -> None:
    p = k.problem(result, pid)
    assert p.score == 0, k.text_of(p)
    assert all("policy violation" in t.message for t in p.tests), k.text_of(p)
    for word in words:
        assert word in k.text_of(p), (word, k.text_of(p))


def line_of(text: str, needle: str) -> int:
    (number,) = [i for i, line in enumerate(text.splitlines(), start=1) if needle in line]
    return number


# ----------------------------------------------------------------- the stand-ins, in this process


@pytest.fixture
def forbidden():
    """The child's finder for forbidden libraries, NOT installed (torch is real in this process): a factory of
    stand-in modules and the policy events it would send."""
    child = str(Path(__file__).resolve().parent.parent / "graders" / "child")
    sys.path[:0] = [child, os.path.join(child, "compat")]
    try:
        import harness
        from _standin import PolicyViolation

        class Channel:
            def __init__(self):
                self.events = []

            def emit(self, event, **fields):
                self.events.append((event, fields))

        channel = Channel()
        finder = harness.ForbiddenImports(channel)

        def module(name):
            import importlib.util

            return importlib.util.module_from_spec(finder.find_spec(name))

        yield module, channel.events, PolicyViolation
    finally:
        del sys.path[:2]


def _subclass(t):
    class Net(t.nn.Module):
        pass


def _with(t):
    with t.cuda.device:
        pass


USES = {
    "call": lambda t: t.tensor([1.0]),
    "call a submodule's function": lambda t: t.nn.functional.relu(1.0),
    "subclass": _subclass,
    "arithmetic": lambda t: t.pi * 2,
    "reflected arithmetic": lambda t: 2 - t.e,
    "ordering": lambda t: t.pi < 4,
    "iteration": lambda t: list(t.Size),
    "indexing": lambda t: t.finfo[0],
    "conversion": lambda t: float(t.pi),
    "with": _with,
}


@pytest.mark.parametrize("use", list(USES))
def test_using_a_stand_in_reports_once_and_raises(forbidden, use):
    module, events, PolicyViolation = forbidden
    torch = module("torch")
    with pytest.raises(PolicyViolation, match="cannot be used while grading"):
        USES[use](torch)
    with pytest.raises(PolicyViolation):
        torch.ones(2)
    assert [e for e, _ in events] == ["policy"]  # once per library, however many uses
    assert events[0][1]["module"].startswith("torch (torch.")


def test_names_and_configuration_calls_are_not_uses(forbidden):
    """What the course's starter and seeding boilerplate do: import, name things, configure the library."""
    module, events, _ = forbidden
    torch, nn, functional = module("torch"), module("torch.nn"), module("torch.nn.functional")
    names = [torch.tensor, torch.nn.Module, nn.Linear, functional.relu, torch.float64]
    assert len({id(n) for n in names}) == len(names) and "torch.tensor" in repr(names[0])
    assert torch.tensor is torch.tensor
    torch.backends.cudnn.deterministic = True
    assert torch.manual_seed(0) is None and torch.cuda.is_available() is False and torch.cuda.device_count() == 0
    assert torch.device("cuda" if torch.cuda.is_available() else "cpu") == "cpu"  # a leftover device line
    with torch.no_grad():
        pass

    @torch.no_grad()
    def f():
        return 1

    @torch.no_grad
    def g():
        return 2

    assert (f(), g()) == (1, 2)
    assert not hasattr(torch, "__all__") and torch.__path__ == []  # a package: `import torch.x.y` works
    # what needs no library behind it: identity, truthiness, instance checks (no torch object can exist), types
    assert torch.float64 == torch.float64 and torch.float64 != torch.float32 and bool(torch.cuda)
    assert not isinstance(1.0, torch.Tensor) and not issubclass(float, (torch.nn.Module, int))

    def annotated(x: Optional[torch.Tensor], y: Union[torch.Tensor, float]) -> torch.Tensor | None:
        return None

    assert typing.get_type_hints(annotated, localns={"torch": torch})["x"] == Optional[torch.Tensor]
    assert events == []


# ----------------------------------------------------------------- ops: the starter's tensor_functions.py


@pytest.fixture(scope="module")
def ops(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ops")
    base = ref(OPS)
    texts = {
        "gradcheck": base + piece("gradcheck_torch.py"),
        "seeding": base + piece("torch_seeding.py"),
        "no_isclose_backward": base + piece("isclose_no_backward.py"),
        "torch_at_import": base + piece("torch_at_import.py"),
        "torch_in_neg": base + piece("torch_in_graded_code.py"),
    }
    with_net = {"gradcheck"}
    results = {}
    for name, text in texts.items():
        files = k.with_reference({OPS: text}, ["network"]) if name in with_net else {OPS: text}
        problems = ["ops", "network"] if name in with_net else ["ops"]
        results[name] = grade(k.build(tmp / name, files), problems)
    return texts, results


def test_the_starters_torch_import_and_helper_cost_nothing(ops):
    """Failed before: the static check turned `import torch` into a policy zero for the whole problem."""
    _, results = ops
    assert_full(results["gradcheck"], "ops")
    assert_full(results["gradcheck"], "network")


def test_seeding_and_no_grad_boilerplate_costs_nothing(ops):
    assert_full(ops[1]["seeding"], "ops")


def test_isclose_without_a_backward_loses_nothing(ops):
    """Failed before: IsClose.backward was a swapped symbol and a test ("missing", 1 point lost)."""
    result = ops[1]["no_isclose_backward"]
    assert_full(result, "ops")
    assert "IsClose" not in k.text_of(k.problem(result, "ops"))


def test_torch_used_at_import_is_a_policy_violation(ops):
    texts, results = ops
    line = line_of(texts["torch_at_import"], "torch.ones(1)")
    assert_policy_zero(results["torch_at_import"], "ops", "torch", f"line {line}")


def test_torch_used_in_graded_code_is_a_policy_violation(ops):
    texts, results = ops
    line = line_of(texts["torch_in_neg"], "torch.tensor(t1.to_numpy())")
    assert_policy_zero(results["torch_in_neg"], "ops", "torch.tensor", f"line {line}")


# ----------------------------------------------------------------- run_sentiment.py: the course's imports


def test_a_run_sentiment_with_the_courses_imports_loads(tmp_path):
    """Failed before: `from datasets.load import ...` and `from tqdm import tqdm` raised ImportError at import,
    so the network problem scored 0. (Needs H1's reference: SimpleOps/CudaKernelOps exported by minitorch.)"""
    text = piece("run_sentiment_header.py") + ref(NET)
    result = grade(k.build(tmp_path / "sub", {NET: text}), ["network"])
    assert_full(result, "network")


def _child_problem(tmp: Path, symbols) -> object:
    """A throw-away problem swapping project/run_sentiment.py, probed by child_probes.py in the real sandbox.

    Its id carries a hash of the probes (cached per grader version by id)."""
    probes = piece("child_probes.py")
    pid = "course_imports_" + hashlib.sha256((probes + repr(symbols)).encode()).hexdigest()[:10]
    folder = tmp / pid
    folder.mkdir(parents=True)
    (folder / "probes.py").write_text(probes, encoding="utf-8")
    quoted = ", ".join(f'"{s}"' for s in symbols)
    (folder / "problem.toml").write_text(
        f'id = "{pid}"\n[swap]\nfile = "{NET}"\nmodule = "project.run_sentiment"\nsymbols = [{quoted}]\n'
        '[[tests]]\nid = "loss"\nkind = "unit"\npoints = 1\n'
        '[[tests]]\nid = "packages"\nkind = "unit"\npoints = 1\n',
        encoding="utf-8",
    )
    return load_problem(folder)


LOSS = "binary_cross_entropy_loss|cross_entropy_loss"


def _run(spec, tmp: Path, name: str, text: str):
    student = tmp / name / "run_sentiment.py"
    student.parent.mkdir(parents=True)
    student.write_text(text, encoding="utf-8")
    return run_child(child_config(spec, tmp / name / "run", DEFAULT_SEED, student), limits_for(spec))


@pytest.fixture(scope="module")
def child_runs(tmp_path_factory):
    """The same course-style file in three offerings' shapes, run by the real harness in the sandbox."""
    tmp = tmp_path_factory.mktemp("child")
    spec = _child_problem(tmp, [LOSS])
    s26 = piece("run_sentiment_header.py") + ref(NET) + piece("run_sentiment_helpers.py")
    assert "def binary_cross_entropy_loss(" in s26
    f25 = s26.replace("binary_cross_entropy_loss(", "cross_entropy_loss(")
    both = s26 + "\n\ndef cross_entropy_loss(out, y):\n    raise AssertionError('the first alternative wins')\n"
    inline = s26.replace("binary_cross_entropy_loss(", "_inline_loss(")
    return {name: _run(spec, tmp, name, text) for name, text in
            {"s26": s26, "f25": f25, "both": both, "inline": inline}.items()}


@pytest.mark.parametrize("name, installed", [("s26", "binary_cross_entropy_loss"), ("f25", "cross_entropy_loss"),
                                             ("both", "binary_cross_entropy_loss")])
def test_the_first_loss_name_the_file_defines_is_installed(child_runs, name, installed):
    """Failed before: a symbol with alternatives was looked up as one name (the harness faulted)."""
    run = child_runs[name]
    assert run.fault is None and run.load_error is None and run.missing_symbols == [], run
    assert run.outcomes["loss"].value == {"name": installed, "from_student": True}, run.outcomes["loss"]


def test_a_file_with_neither_loss_name_reports_both(child_runs):
    run = child_runs["inline"]
    assert run.missing_symbols == ["binary_cross_entropy_loss (or cross_entropy_loss)"]


def test_course_packages_in_the_sandbox(child_runs):
    """tqdm runs loops unchanged, a leftover breakpoint continues, loading data says why not; nothing is a
    policy event."""
    run = child_runs["f25"]
    assert run.policy == []
    value = run.outcomes["packages"].value
    assert value["progress"] == {"seen": [1, 2, 3], "pairs": [[0, 10], [1, 20]], "first": 1, "n": 2, "len": 5}
    assert value["debugger"] == "continued"
    assert len(value["data"]) == 3 and all("not available while grading" in m for m in value["data"]), value["data"]
    assert "supplies the inputs" in value["data"][0]


def test_symbol_alternatives_in_problem_toml(tmp_path):
    """`a|b` is parsed, owned under both names (template generation), and malformed lists are refused."""
    spec = _child_problem(tmp_path, [LOSS, "SentenceSentimentTrain.train"])
    assert spec.swap.symbols[0] == LOSS
    assert spec.owns(NET, "binary_cross_entropy_loss") and spec.owns(NET, "cross_entropy_loss")
    assert spec.owns(NET, "SentenceSentimentTrain.train") and not spec.owns(NET, "Network")
    assert _child_problem(tmp_path / "spaced", ["binary_cross_entropy_loss | cross_entropy_loss"]).swap.symbols == (LOSS,)
    for bad in (["a|"], ["a||b"], ["a|1b"], [""], []):
        with pytest.raises(SpecError, match="symbol"):
            _child_problem(tmp_path / hashlib.sha256(repr(bad).encode()).hexdigest()[:8], bad)


def test_every_problem_still_owns_its_reference_blocks():
    """The template generator relies on `owns` (each solution block belongs to exactly one problem)."""
    from graders.template import find_blocks

    problems = load_problems()
    for rel in {p.swap.file for p in problems}:
        path = k.REFERENCE / rel
        blocks = find_blocks(path.read_text(encoding="utf-8"), str(path), rel, problems)
        assert all(b.problem for b in blocks)


# ----------------------------------------------------------------- the whole starter folder, zipped


def starter_folder(dest: Path, git_objects: int = MAX_ENTRIES + 200) -> Path:
    """A student's whole `llmsys_hw2/` checkout: the contract files (course style), given files, tests, a build
    copy with a stale autodiff.py, a compiled kernel, a big data file, a .git with many objects, caches."""
    root = dest / "llmsys_hw2"
    files = {
        AD: ref(AD), OPS: ref(OPS) + piece("gradcheck_torch.py"), NET: piece("run_sentiment_header.py") + ref(NET),
        "minitorch/__init__.py": "from .tensor import *  # given\n",
        "minitorch/operators.py": "def mul(x, y):\n    return x * y\n",
        "tests/conftest.py": "raise SystemExit('never imported')\n",
        "tests/test_autodiff.py": "def test_x():\n    assert True\n",
        "setup.py": "from setuptools import setup\nsetup(name='minitorch')\n",
        "src/combine.cu": "__global__ void k() {}\n",
        "README.md": "# HW2\n",
        "build/lib/minitorch/autodiff.py": "raise SystemExit('stale build copy')\n",
        "minitorch.egg-info/SOURCES.txt": "minitorch/autodiff.py\n",
        ".hypothesis/examples/abc/def": "x",
        ".pytest_cache/v/cache/lastfailed": "{}",
    }
    k.build(root, files)
    (root / "minitorch" / "cuda_kernels").mkdir()
    (root / "minitorch" / "cuda_kernels" / "combine.so").write_bytes(os.urandom(3 * 1024 * 1024))
    (root / "project" / "data").mkdir()
    (root / "project" / "data" / "glove.50d.txt").write_bytes(b"the 0.1 0.2\n" * (1024 * 1024))
    for sub in ("minitorch/__pycache__", "project/__pycache__"):
        (root / sub).mkdir(parents=True)
        (root / sub / "autodiff.cpython-311.pyc").write_bytes(b"\x00junk")
    objects = root / ".git" / "objects" / "ab"
    objects.mkdir(parents=True)
    for i in range(git_objects):
        (objects / f"{i:038x}").write_bytes(b"x")
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (dest / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    return dest


def zip_of(folder: Path, path: Path) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(folder.rglob("*")):
            if file.is_file():
                archive.write(file, file.relative_to(folder).as_posix())
    return path


@pytest.fixture(scope="module")
def starter(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("starter")
    folder = starter_folder(tmp / "checkout")
    return folder, zip_of(folder, tmp / "llmsys_hw2.zip")


@pytest.mark.parametrize("container", ["folder", "zip"])
def test_the_whole_starter_folder_is_taken_quietly(starter, container, tmp_path):
    """Failed before: the .git objects counted towards the entry cap (the submission was refused as too large),
    and `.DS_Store` beside the folder stopped the unwrapping (a stale build/ copy then made it ambiguous)."""
    folder, archive = starter
    source = folder if container == "folder" else archive
    submission = open_submission(source, tmp_path, list(CONTRACT))
    assert submission.errors == [] and submission.warnings == [], (submission.errors, submission.warnings)
    for rel in CONTRACT:
        record = submission.files[rel]
        assert record.error is None and record.found_at is None, record
        assert record.staged.read_text(encoding="utf-8") == (folder / "llmsys_hw2" / rel).read_text(encoding="utf-8")
    alone = k.build(tmp_path / "alone", {rel: (folder / "llmsys_hw2" / rel).read_text(encoding="utf-8") for rel in CONTRACT})
    assert open_submission(alone, tmp_path / "w2", list(CONTRACT)).content_hash == submission.content_hash


def test_too_many_files_outside_ignored_folders_still_refused_naming_the_crowded_folder(tmp_path):
    folder = starter_folder(tmp_path / "checkout", git_objects=0)
    data = folder / "llmsys_hw2" / "project" / "data" / "cache"
    data.mkdir()
    for i in range(MAX_ENTRIES + 1):
        (data / f"{i}.arrow").write_bytes(b"x")
    submission = open_submission(zip_of(folder, tmp_path / "big.zip"), tmp_path / "w", list(CONTRACT))
    (error,) = submission.errors
    assert str(MAX_ENTRIES) in error and "project/data" in error, error
    assert all("was not read" in submission.files[rel].error for rel in CONTRACT)


def test_the_whole_starter_zip_grades(starter):
    """End to end: the zipped checkout grades like its three files (the course-style ops file included)."""
    _, archive = starter
    result = grade(archive, ["ops", "network"])
    assert result.errors == [] and result.warnings == []
    assert_full(result, "ops")
    assert_full(result, "network")
