"""The student template: generated from reference/, stubbed, installable, and its public tests teach.

Checks (issue 3):

1. `autograde make-template --check` passes and no solution marker or hidden
   material is left in student_template/;
2. in a fresh venv the installed template fails every public test with a
   NotImplementedError naming its problem, and passes them all once the
   reference's three student files are dropped in;
3. `pytest -m <problem>` selects exactly that problem's tests;
4. plausible wrong answers (tests/files/public_bugs/, and buggy cases or
   instructor mutants of the problems where one is the same program) fail the public tests
   with the explanatory message, and other correct answers
   (tests/files/public_valid/, and valid cases of the problems) pass them;
5. the plugin's `--problem-summary` table (and JSON, Markdown) count right and
   show the first failure's message whole;
6. every message of a plausible bug puts its diagnosis first; a leaves-first
   order is named as such by the first failure; a broken autodiff skips the
   network and training tests that run backward, with one line (issue 22).

Everything runs on copies of student_template/ in tmp_path, in child
processes (the project's own pytest configuration puts reference/ on the path).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import pytest

from cases import case_named
from conftest import venv_seeing_these_packages
from graders import toml
from graders.make_template import template_files, write_template
from graders.offering import get_offering, offering_problems
from graders.spec import load_problems

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "student_template"
REFERENCE = ROOT / "reference"
PROBLEMS_DIR = ROOT / "problems"
FILES = Path(__file__).resolve().parent / "files"
#: student_template/ is the default offering's (spring 2026 HW2: no tensor-Function problem)
OFFERING = get_offering()
PROBLEMS = tuple(OFFERING.points)
#: the offering whose template also stubs the tensor Functions (generated into tmp_path when needed)
FULL = get_offering("minitorch")
#: the file of each problem, relative to the template root (CONTRACT §2)
STUDENT_FILE = {spec.id: spec.swap.file for spec in load_problems()}
CACHES = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".hypothesis", "*.egg-info")


def child_env(plugins: bool = False) -> Dict[str, str]:
    """The environment of a child process: nothing of this project's configuration leaks in.

    Without `plugins`, installed pytest plugins (hypothesis, benchmark, timeout) are not
    auto-loaded: the template's tests do not need them and loading them triples start-up.
    """
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD")
           and not k.startswith("AUTOGRADE")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if not plugins:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return env


def run_pytest(cwd: Path, *args: str, python: str = sys.executable, plugins: bool = False,
               timeout: float = 180) -> subprocess.CompletedProcess:
    """`python -m pytest ARGS` in `cwd` (a template copy), without a cache folder."""
    return subprocess.run([python, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=cwd,
                          env=child_env(plugins), capture_output=True, text=True, timeout=timeout)


def copy_template(dest: Path, solved: bool, offering=None) -> Path:
    """A copy of student_template/ (or a fresh template of another offering) at `dest`; `solved` drops
    the reference's student files in."""
    if offering is None:
        shutil.copytree(TEMPLATE, dest, ignore=CACHES)
    else:
        write_template(dest, template_files(offering))
    if solved:
        for rel in sorted(set(STUDENT_FILE.values())):
            shutil.copyfile(REFERENCE / rel, dest / rel)
    return dest


def junit_cases(path: Path) -> List[dict]:
    """(file, name, outcome, message) of every testcase of a JUnit XML report, in run order."""
    cases = []
    for case in ET.parse(path).getroot().iter("testcase"):
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            node = case.find(tag)
            if node is not None:
                outcome, message = ("failed" if tag != "skipped" else "skipped"), node.get("message", "")
                break
        module = case.get("classname", "").rsplit(".", 1)[-1]
        cases.append({"module": module, "name": case.get("name"), "outcome": outcome, "message": message})
    return cases


def problem_of_module(module: str) -> str:
    """`test_autodiff` → `autodiff`."""
    return module[len("test_"):]


#: the problems whose public tests run backward through the student's backpropagate (skipped while it is wrong)
BACKWARD_PROBLEMS = tuple(p for p in ("network", "training") if p in PROBLEMS)
#: how the reason of such a skip starts (the template's conftest.py)
AUTODIFF_FIRST = "fix autodiff first (pytest -m autodiff)"


def assert_one_autodiff_line(output: str, skipped: int) -> None:
    """The run names the tests waiting for autodiff in ONE line (and not one line per test)."""
    lines = [line for line in output.splitlines() if line.startswith("SKIPPED")]
    assert len(lines) == 1, lines or output[-3000:]
    assert lines[0].startswith(f"SKIPPED {skipped} test(s) of {', '.join(BACKWARD_PROBLEMS)}: {AUTODIFF_FIRST}: "), \
        lines[0]


# ---------------------------------------------------------------------------
# 1. generation
# ---------------------------------------------------------------------------


def test_make_template_check_passes():
    """student_template/ is exactly what `autograde make-template` generates."""
    done = subprocess.run([sys.executable, "-m", "graders", "make-template", "--check"], cwd=ROOT,
                          env=child_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"student_template/ is stale:\n{done.stdout}\n{done.stderr}"


def test_no_solution_or_hidden_material_in_template():
    """No marker text anywhere; no probe, judge, mutant or hidden file (by name or by content)."""
    files = [p for p in TEMPLATE.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    assert files, "student_template/ is empty"
    marked = [str(p.relative_to(TEMPLATE)) for p in files
              if b"BEGIN SOLUTION" in p.read_bytes() or b"END SOLUTION" in p.read_bytes()]
    assert not marked, f"solution markers left in {marked}"
    hidden = [p for p in PROBLEMS_DIR.rglob("*") if p.is_file() and "public" not in p.relative_to(PROBLEMS_DIR).parts
              and p.name != "problem.toml" and p.suffix != ".pyc"]
    hidden_contents = {p.read_bytes() for p in hidden if p.stat().st_size > 0}
    leaked = [str(p.relative_to(TEMPLATE)) for p in files if p.read_bytes() in hidden_contents]
    assert not leaked, f"hidden grading material copied into the template: {leaked}"
    names = {p.name for p in files} | {part for p in files for part in p.relative_to(TEMPLATE).parts}
    assert not names & {"probes.py", "judges.py", "mutants", "hidden", "graders", "problem.toml"}


def test_template_has_the_student_workflow():
    """Public tests of every problem, the README, pyproject (markers = problems), the plugin and CI workflow."""
    for problem in PROBLEMS:
        assert (TEMPLATE / "tests" / f"test_{problem}.py").is_file()
    config = toml.loads((TEMPLATE / "pyproject.toml").read_text(encoding="utf-8"))
    pytest_ini = config["tool"]["pytest"]["ini_options"]
    markers = {m.split(":", 1)[0].strip() for m in pytest_ini["markers"]}
    assert markers == set(PROBLEMS)
    assert not (TEMPLATE / "tests" / "test_ops.py").exists()  # the course gives the tensor Functions
    assert "--strict-markers" in pytest_ini["addopts"]
    assert set(config["project"]["dependencies"]) >= {"numpy>=1.24", "typing_extensions>=4.0"}
    assert config["tool"]["setuptools"]["packages"]["find"]["include"] == ["minitorch", "minitorch.*"]
    workflow = (TEMPLATE / ".github" / "workflows" / "tests.yml").read_text(encoding="utf-8")
    for needed in ("--junitxml", "upload-artifact", "GITHUB_STEP_SUMMARY", "--problem-markdown", "if: always()"):
        assert needed in workflow, needed
    assert "def pytest_addoption" in (TEMPLATE / "conftest.py").read_text(encoding="utf-8")


def test_readme_points_match_the_offering():
    """The README's points per problem are the offering's (the course handout's), summed as graded."""
    readme = (TEMPLATE / "README.md").read_text(encoding="utf-8")
    specs = offering_problems(OFFERING)
    for spec in specs:
        points = spec.max_score
        row = re.search(rf"^\| `{spec.id}` \|.*\| ([0-9.]+) \|$", readme, re.M)
        assert row and float(row.group(1)) == points, f"README: points of {spec.id} should be {points:g}"
        assert f"**{spec.id} ({points:g})**" in readme, f"README: hidden checks of {spec.id} ({points:g})"
        assert f"-m {spec.id}" in readme
    assert f"**{sum(s.max_score for s in specs):g}**" in readme
    assert "| `ops` |" not in readme


# ---------------------------------------------------------------------------
# 2. blank and solved, installed in a fresh venv
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_blank_fails_with_notimplemented_and_solved_passes_in_fresh_venv(tmp_path):
    """pip install -e the template in a new venv; every test fails naming its problem; the reference passes."""
    copy = copy_template(tmp_path / "template", solved=False)
    python = str(venv_seeing_these_packages(tmp_path / "venv"))
    install = subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-deps",
                              "-e", str(copy)], env=child_env(), capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stdout + install.stderr
    where = subprocess.run([python, "-c", "import minitorch; print(minitorch.__file__)"], cwd=tmp_path,
                           env=child_env(), capture_output=True, text=True, timeout=60)
    assert where.returncode == 0 and Path(where.stdout.strip()).resolve().is_relative_to(copy.resolve()), where

    blank = run_pytest(copy, f"--junitxml={tmp_path / 'blank.xml'}", "--problem-summary", python=python, plugins=True)
    assert blank.returncode == 1, f"expected test failures only (exit 1):\n{blank.stdout[-3000:]}"
    cases = junit_cases(tmp_path / "blank.xml")
    assert len(cases) >= 15 and {problem_of_module(c["module"]) for c in cases} == set(PROBLEMS)
    for case in cases:  # each fails on its own problem's stub, or waits for autodiff (it runs backward)
        problem = problem_of_module(case["module"])
        if case["outcome"] == "skipped":
            assert problem in BACKWARD_PROBLEMS and case["message"].startswith(AUTODIFF_FIRST), case
            continue
        assert case["outcome"] == "failed", case
        assert case["message"].startswith(f"NotImplementedError: {problem}: implement "), case
    assert {problem_of_module(c["module"]) for c in cases if c["outcome"] == "skipped"} == set(BACKWARD_PROBLEMS)
    table = summary_table(blank.stdout)
    assert list(table) == list(PROBLEMS)
    for problem, row in table.items():
        mine = [c for c in cases if problem_of_module(c["module"]) == problem]
        assert row["passed"] == 0 and row["total"] == len(mine) > 0, row
        if any(c["outcome"] == "failed" for c in mine):
            assert f": NotImplementedError: {problem}: implement " in row["first"], row
        else:
            assert row["first"].startswith(f"none failed, {len(mine)} skipped: {AUTODIFF_FIRST}"), row
    assert_one_autodiff_line(blank.stdout, sum(c["outcome"] == "skipped" for c in cases))

    # autodiff still blank, network and training solved: their backward tests skip (one line), none fails
    shutil.copyfile(REFERENCE / STUDENT_FILE["network"], copy / STUDENT_FILE["network"])
    waiting = run_pytest(copy, "-m", " or ".join(BACKWARD_PROBLEMS), "--problem-summary",
                         f"--junitxml={tmp_path / 'waiting.xml'}", python=python, plugins=True)
    assert waiting.returncode == 0, waiting.stdout[-3000:]
    waiting_cases = junit_cases(tmp_path / "waiting.xml")
    skipped = [c for c in waiting_cases if c["outcome"] == "skipped"]
    assert not [c for c in waiting_cases if c["outcome"] == "failed"]
    assert {problem_of_module(c["module"]) for c in skipped} == set(BACKWARD_PROBLEMS)
    assert all(c["message"].startswith(AUTODIFF_FIRST) and "NotImplementedError: autodiff: implement" in c["message"]
               for c in skipped), skipped
    # those that waited on the blank template wait here too (the loss's test checks its value first)
    assert {(c["module"], c["name"]) for c in cases if c["outcome"] == "skipped"} <= \
        {(c["module"], c["name"]) for c in skipped}
    assert_one_autodiff_line(waiting.stdout, len(skipped))
    waiting_table = summary_table(waiting.stdout)
    for problem in BACKWARD_PROBLEMS:
        assert f"skipped: {AUTODIFF_FIRST}" in waiting_table[problem]["first"], waiting_table[problem]

    for rel in sorted(set(STUDENT_FILE.values())):
        shutil.copyfile(REFERENCE / rel, copy / rel)
    solved = run_pytest(copy, f"--junitxml={tmp_path / 'solved.xml'}", python=python, plugins=True)
    assert solved.returncode == 0, solved.stdout[-5000:]
    solved_cases = junit_cases(tmp_path / "solved.xml")
    assert [(c["module"], c["name"]) for c in solved_cases] == [(c["module"], c["name"]) for c in cases]
    assert all(c["outcome"] == "passed" for c in solved_cases)


# ---------------------------------------------------------------------------
# 3. markers
# ---------------------------------------------------------------------------

#: Runs several `pytest --collect-only` sessions in ONE child process (one start-up instead of five).
COLLECT_CHILD = """
import json, sys
import pytest

from graders.make_template import template_files, write_template
from graders.offering import get_offering, offering_problems
from graders.spec import load_problems

class Selected:
    def __init__(self):
        self.ids = []
    def pytest_collection_finish(self, session):
        self.ids = [item.nodeid for item in session.items]

result = {}
for expression in json.loads(sys.argv[1]):
    plugin = Selected()
    args = ["--collect-only", "-q", "-p", "no:cacheprovider"] + (["-m", expression] if expression else [])
    code = pytest.main(args, plugins=[plugin])
    result[expression] = {"code": int(code), "ids": plugin.ids}
print("RESULT " + json.dumps(result))
"""


def test_each_marker_selects_exactly_its_problem(tmp_path):
    """`pytest -m <problem>` selects the tests of tests/test_<problem>.py, all of them and nothing else."""
    copy = copy_template(tmp_path / "template", solved=False)
    expressions = [""] + list(PROBLEMS)
    done = subprocess.run([sys.executable, "-c", COLLECT_CHILD, json.dumps(expressions)], cwd=copy,
                          env=child_env(), capture_output=True, text=True, timeout=180)
    line = next((out for out in done.stdout.splitlines() if out.startswith("RESULT ")), None)
    assert line, done.stdout[-3000:] + done.stderr[-3000:]
    result = json.loads(line[len("RESULT "):])
    everything = result[""]["ids"]
    assert result[""]["code"] == 0 and len(everything) >= 15
    for problem in PROBLEMS:
        expected = [n for n in everything if n.startswith(f"tests/test_{problem}.py::")]
        assert expected and result[problem]["ids"] == expected, problem
    assert sum(len(result[p]["ids"]) for p in PROBLEMS) == len(everything)  # every test has a problem


# ---------------------------------------------------------------------------
# 4. wrong answers fail, other right answers pass
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """A snippet appended to the reference's version of one student file: a file under tests/files/, or where one
    is the same program a problem's case `<problem>/<kind>/<name>` (its delta, tests/cases.py) or instructor
    mutant `<problem>/mutants/<name>.py` (appended to the reference like a delta)."""

    problem: str
    snippet: str
    #: public tests that must fail, and words their message must contain (case-insensitive)
    failing: Dict[str, Sequence[str]]

    @property
    def id(self) -> str:
        return f"{self.problem}-{Path(self.snippet).stem}"

    def text(self) -> str:
        if "/mutants/" in self.snippet:
            return (PROBLEMS_DIR / self.snippet).read_text(encoding="utf-8")
        if self.snippet.endswith(".py"):
            return (FILES / self.snippet).read_text(encoding="utf-8")
        return case_named(self.snippet).delta()


BUGS = [
    Variant("autodiff", "public_bugs/autodiff/bfs_order.py", {
        "test_slides_example": ["∂f/∂x₁ = 1.0", "reverse topological order"],
        "test_topological_order_on_scalars": ["before its parents"],
        "test_topological_order_on_a_dag": ["before its parents"]}),
    Variant("autodiff", "autodiff/mutants/not_reversed.py", {
        "test_slides_example": ["leaves first", "reverse topological order", "∂f/∂x₁ = None"],
        "test_topological_order_on_scalars": ["leaves first", "output first"],
        "test_topological_order_on_a_dag": ["leaves first", "output first"]}),
    Variant("autodiff", "autodiff/mutants/overwrite_fanout.py", {
        "test_slides_example": ["367.03", "two users", "sum"],
        "test_fan_out_sums_adjoints": ["expected 12.0", "fan-out"]}),
    Variant("autodiff", "autodiff/buggy/recursive", {
        "test_deep_chain_3000": ["RecursionError", "own stack"]}),
    Variant("autodiff", "public_bugs/autodiff/path_recursion.py", {
        "test_linear_work_on_diamonds": ["path count doubles", "process each node once"]}),
    Variant("autodiff", "public_bugs/autodiff/constants_not_skipped.py", {
        "test_constants_are_skipped": ["is_constant()"],
        "test_topological_order_on_a_dag": ["is_constant()"],
        "test_slides_example": ["is_constant()"]}),
    Variant("ops", "ops/mutants/sigmoid_derivative_of_input.py", {
        "test_backward[sigmoid]": ["σ(x)(1 − σ(x))", "use the output σ(x)"]}),
    Variant("ops", "ops/mutants/permute_not_inverted.py", {
        "test_backward[permute]": ["INVERSE order"]}),
    Variant("ops", "ops/mutants/matmul_not_transposed.py", {
        "test_backward[matmul]": ["Ā = C̄·Bᵀ", "transpose"]}),
    Variant("ops", "public_bugs/ops/mul_same_input.py", {
        "test_backward[mul]": ["product rule", "OTHER input"]}),
    Variant("network", "network/buggy/transposed", {
        "test_linear_parameters": ["(in_size, out_size) = (5, 3)", "x @ W + b"]}),
    Variant("network", "network/buggy/no_relu", {
        "test_network_forward_eval": ["without the ReLU"]}),
    Variant("network", "public_bugs/network/output_b1.py", {
        "test_network_forward_eval": ["expected (3,)", "view"]}),
    Variant("network", "public_bugs/network/dropout_never.py", {
        "test_network_dropout_only_in_training_mode": ["dropout", "training mode"]}),
    Variant("network", "network/buggy/dropout_always", {
        "test_network_forward_eval": ["dropout must be off in eval mode", "ignore=not self.training"]}),
    Variant("training", "training/buggy/sum_bce", {
        "test_bce_value_and_gradient": ["SUM over the batch", "mean"]}),
    Variant("training", "training/buggy/double_backward", {
        "test_each_step_uses_one_backward_pass": ["2 backward passes", "once per step"]}),
    Variant("training", "training/buggy/course_suffix_slice", {
        "test_each_step_takes_one_batch": ["X_train[example_num : example_num + batch_size]"]}),
    Variant("training", "training/buggy/no_eval", {
        "test_validation_runs_in_eval_mode": ["model.eval()"]}),
]

VALID = [
    Variant("autodiff", "autodiff/valid/kahn", {}),
    Variant("ops", "public_valid/ops/tensor_level_backwards.py", {}),
    Variant("network", "network/valid/alternative", {}),
    Variant("training", "public_valid/training/other_loop.py", {}),
]


@dataclass(frozen=True)
class Scenario:
    """Variants run together in one copy of the solved template (one child pytest)."""

    name: str
    variants: Tuple[Variant, ...]
    #: the -m expression ("" = every test)
    markers: str
    #: run in a template of the full offering (its tensor Functions are a problem: ops bugs need it)
    full: bool = False


def scenarios() -> List[Scenario]:
    """Bugs two at a time, in files whose public tests do not depend on each other; all valid answers at once.

    The public tests of `ops` never call your backpropagate (they use chain_rule) and
    those of `autodiff` use Scalars only; the tests of `training` drive a stand-in model,
    not your Network. So an autodiff bug runs with an ops bug, a network bug with a
    training bug.
    """
    def pairs(first: str, second: str) -> List[Scenario]:
        a = [b for b in BUGS if b.problem == first]
        b = [b for b in BUGS if b.problem == second]
        groups = [tuple(v for v in (x, y) if v is not None)
                  for x, y in zip(a + [None] * (len(b) - len(a)), b + [None] * (len(a) - len(b)))]
        full = "ops" in (first, second)
        return [Scenario("+".join(v.id for v in g), g, f"{first} or {second}", full) for g in groups]

    return pairs("autodiff", "ops") + pairs("network", "training") + [Scenario("valid", tuple(VALID), "", True)]


SCENARIOS = scenarios()
#: the scenario whose autodiff bug is the slides' 367.04 (overwritten fan-out adjoints)
FANOUT_SCENARIO = next(sc.name for sc in SCENARIOS if any(v.snippet.endswith("/overwrite_fanout.py") for v in sc.variants))


def run_scenario(scenario: Scenario, bases: Dict[bool, Path], work: Path) -> dict:
    """Append the snippets to a copy of the solved template, run pytest; the plugin's outputs and JUnit."""
    copy = work / scenario.name
    shutil.copytree(bases[scenario.full], copy)
    for variant in scenario.variants:
        target = copy / STUDENT_FILE[variant.problem]
        snippet = variant.text()
        target.write_text(target.read_text(encoding="utf-8") + "\n\n" + snippet, encoding="utf-8")
    out = work / f"{scenario.name}-out"
    out.mkdir()
    (out / "summary.md").write_text("# earlier content\n", encoding="utf-8")
    args = ["--tb=short", "--problem-summary", f"--junitxml={out / 'junit.xml'}",
            f"--problem-json={out / 'problems.json'}", f"--problem-markdown={out / 'summary.md'}"]
    done = run_pytest(copy, *(["-m", scenario.markers] if scenario.markers else []), *args)
    report = out / "problems.json"
    assert report.is_file(), f"{scenario.name}: no report\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    problems = tuple(FULL.points) if scenario.full else PROBLEMS
    return {"returncode": done.returncode, "output": done.stdout, "markers": scenario.markers, "problems": problems,
            "json": json.loads(report.read_text(encoding="utf-8")), "junit": junit_cases(out / "junit.xml"),
            "markdown": (out / "summary.md").read_text(encoding="utf-8")}


@pytest.fixture(scope="module")
def scenario_runs(tmp_path_factory) -> Dict[str, dict]:
    """Every scenario, run once (two child processes at a time); keyed by scenario name."""
    work = tmp_path_factory.mktemp("scenarios")
    bases = {False: copy_template(work / "solved", solved=True),
             True: copy_template(work / "solved-full", solved=True, offering=FULL)}
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda sc: run_scenario(sc, bases, work), SCENARIOS))
    return {sc.name: r for sc, r in zip(SCENARIOS, results)}


def run_of(variant: Variant, runs: Dict[str, dict]) -> dict:
    return next(runs[sc.name] for sc in SCENARIOS if variant in sc.variants)


@pytest.mark.slow
@pytest.mark.parametrize("bug", BUGS, ids=[b.id for b in BUGS])
def test_public_tests_catch_a_plausible_bug(bug, scenario_runs):
    """The bug's public tests fail, and the failure message explains it in the lecture's words."""
    run = run_of(bug, scenario_runs)
    outcomes = {t["test"].split("::", 1)[1]: t for t in run["json"]["tests"]}
    assert run["returncode"] == 1, run["output"][-3000:]
    for test, words in bug.failing.items():
        result = outcomes[test]
        assert result["outcome"] == "failed", f"{bug.snippet}: {test} passed a wrong answer"
        message = result["message"] or ""
        assert "NotImplementedError" not in message
        for word in words:
            assert word.lower() in message.lower(), f"{bug.snippet}: {test}: {word!r} not in {message!r}"
        assert diagnosis_first(message), f"{bug.snippet}: {test}: numbers before the diagnosis: {message!r}"


def diagnosis_first(message: str) -> bool:
    """The message's first clause (up to the first ": " or " — ") says what is wrong: no values in it."""
    head = re.split(r" — |: ", message, maxsplit=1)[0]
    return not any(sign in head for sign in ("expected", " = ", "got "))


#: the file whose only bug is a leaves-first order (a valid topological order, not reversed)
LEAVES_FIRST = next(b for b in BUGS if b.snippet.endswith("/not_reversed.py"))
LEAVES_FIRST_WORDS = ("topological_sort returned the leaves first: reverse-mode needs the output first "
                      "(reverse topological order)")


@pytest.mark.slow
def test_leaves_first_order_is_named_by_the_first_failure(scenario_runs):
    """The first public failure of a leaves-first order names the order (not a downstream number), and so do the
    summary's table (whole, wrapped), JSON and Markdown."""
    run = run_of(LEAVES_FIRST, scenario_runs)
    failed = [c for c in run["junit"] if c["outcome"] == "failed" and problem_of_module(c["module"]) == "autodiff"]
    assert failed and failed[0]["name"] == "test_slides_example", failed
    assert LEAVES_FIRST_WORDS in failed[0]["message"], failed[0]
    first = run["json"]["problems"]["autodiff"]["first_failure"]
    assert first["test"].endswith("::test_slides_example") and first["message"].startswith(LEAVES_FIRST_WORDS), first
    row = summary_table(run["output"])["autodiff"]
    assert row["first"] == f"test_slides_example: {first['message']}", row
    assert f"`test_slides_example`: {LEAVES_FIRST_WORDS}" in run["markdown"]


@pytest.mark.slow
def test_public_tests_accept_other_correct_answers(scenario_runs):
    """Kahn's algorithm, other accumulation, another initialisation, another loop: every public test passes."""
    run = scenario_runs["valid"]
    failed = [t for t in run["json"]["tests"] if t["outcome"] != "passed"]
    assert run["returncode"] == 0 and not failed, failed or run["output"][-3000:]
    assert set(run["json"]["problems"]) == set(run["problems"]) == set(FULL.points)


# ---------------------------------------------------------------------------
# 5. the plugin
# ---------------------------------------------------------------------------


TABLE_ROW = re.compile(r"^(?P<problem>\S+)\s+(?P<passed>\d+)/(?P<total>\d+)\s+(?P<first>.*)$")


def summary_table(output: str) -> Dict[str, dict]:
    """The rows of the `--problem-summary` table in a pytest output."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if "per-problem summary" in line)
    assert lines[start + 1].split() == ["problem", "passed", "first", "failure"]
    rows: Dict[str, dict] = {}
    for line in lines[start + 2:]:
        match = TABLE_ROW.match(line)
        if match:
            rows[match["problem"]] = {"passed": int(match["passed"]), "total": int(match["total"]),
                                      "first": match["first"]}
        elif rows and line.startswith(" ") and line.strip():  # a long message, wrapped under its column
            last = rows[list(rows)[-1]]
            last["first"] += " " + line.strip()
        else:
            break
    return rows


@pytest.mark.slow
@pytest.mark.parametrize("scenario", [FANOUT_SCENARIO, "valid"])
def test_problem_summary_agrees_with_junit(scenario, scenario_runs):
    """Table, JSON and Markdown: the counts and first failures of pytest's own JUnit report."""
    run = scenario_runs[scenario]
    table = summary_table(run["output"])
    data, cases = run["json"], run["junit"]
    selected = [p for p in run["problems"] if not run["markers"] or p in run["markers"].split(" or ")]
    assert list(table) == list(data["problems"]) == selected  # homework order, deselected problems left out
    assert len(data["tests"]) == len(cases)
    assert run["markdown"].startswith("# earlier content\n")  # appended, like $GITHUB_STEP_SUMMARY
    for problem, row in table.items():
        mine = [c for c in cases if problem_of_module(c["module"]) == problem]
        passed = sum(c["outcome"] == "passed" for c in mine)
        assert (row["passed"], row["total"]) == (passed, len(mine)), problem
        assert (data["problems"][problem]["passed"], data["problems"][problem]["total"]) == (passed, len(mine))
        failures = [c for c in mine if c["outcome"] == "failed"]
        first = data["problems"][problem]["first_failure"]
        if failures:
            assert row["first"] == f"{failures[0]['name']}: {first['message']}", row  # whole, wrapped not cut
            assert first["test"].endswith("::" + failures[0]["name"])
            assert f"| {problem} | ❌ {passed}/{len(mine)} | `{failures[0]['name']}`: " in run["markdown"]
        else:
            assert row["first"] == "-" and first is None
            assert f"| {problem} | ✅ {passed}/{len(mine)} |  |" in run["markdown"]
    if scenario == "valid":
        assert all(r["passed"] == r["total"] > 0 for r in table.values())
    else:
        assert table["autodiff"]["first"].startswith("test_slides_example: x₁ has two users")
        assert "∂f/∂x₁ = 367.03" in table["autodiff"]["first"]


def test_problem_summary_reports_a_collection_error(tmp_path):
    """A test file that cannot be imported shows up in its problem's row, not as a silent 0/0."""
    copy = copy_template(tmp_path / "template", solved=True)
    broken = copy / "tests" / "test_network.py"
    broken.write_text("import no_such_module_here\n" + broken.read_text(encoding="utf-8"), encoding="utf-8")
    done = run_pytest(copy, "--problem-summary", "--continue-on-collection-errors", "-m", "network or autodiff",
                      f"--problem-json={tmp_path / 'problems.json'}", f"--problem-markdown={tmp_path / 'summary.md'}")
    table = summary_table(done.stdout)
    assert table["network"]["total"] == 0 and "collection error" in table["network"]["first"]
    assert "no_such_module_here" in table["network"]["first"]
    assert table["autodiff"]["passed"] == table["autodiff"]["total"] > 0
    data = json.loads((tmp_path / "problems.json").read_text(encoding="utf-8"))
    assert data["collection_errors"] and data["problems"]["network"]["failed"] == 1
    assert "| network | ❌ 0/0 | `tests/test_network.py`: collection error: " in (tmp_path / "summary.md").read_text()


# ---------------------------------------------------------------------------
# 6. every problem folder's public tests (the offering `all`)
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_every_problems_public_tests_fail_blank_and_pass_solved(tmp_path):
    """The template of the offering `all` (every problem folder): each problem's public tests fail on the blank
    template (a stub raises; with every problem stubbed, it may be another problem's stub that a test reaches
    first), and pass with the reference's student files dropped in."""
    every = get_offering("all")
    assert set(every.points) == {spec.id for spec in load_problems()}
    blank_dir = copy_template(tmp_path / "blank", solved=False, offering=every)
    solved_dir = copy_template(tmp_path / "solved", solved=True, offering=every)
    run_pytest(blank_dir, f"--junitxml={tmp_path / 'blank.xml'}", timeout=600)  # its outcomes: blank.xml
    solved = run_pytest(solved_dir, f"--junitxml={tmp_path / 'solved.xml'}", timeout=600)
    assert solved.returncode == 0, solved.stdout[-5000:]
    cases = junit_cases(tmp_path / "blank.xml")
    per_problem = {problem_of_module(c["module"]) for c in cases}
    public = {spec.id for spec in load_problems() if (spec.folder / "public").is_dir()}
    assert per_problem == public
    for case in cases:
        if case["outcome"] == "skipped":  # runs backward: waits for autodiff
            assert case["message"].startswith(AUTODIFF_FIRST), case
            assert problem_of_module(case["module"]) in BACKWARD_PROBLEMS, case
            continue
        assert case["outcome"] == "failed", case
        assert "NotImplementedError" in case["message"] and ": implement " in case["message"], case
    assert all(c["outcome"] == "passed" for c in junit_cases(tmp_path / "solved.xml"))
