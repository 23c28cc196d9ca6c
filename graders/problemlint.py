"""The checks of a problem folder that grade nothing: what `autograde check-problems` finds before it grades
the reference and the blank template (graders.problemcheck), and what grading checks once per process before
it grades a problem (`static_findings`, graders.grade). Below both, so that neither imports the other.

Static checks (instant; every finding names the file, and the line where it can be found): every breach
of the schema of `problem.toml` and `offerings.toml` (graders.schema: unknown keys, wrong types, missing
keys, points and limits not > 0, test options their judge does not read; the very messages loading refuses
the file with), what offerings.toml says of problems they do not have, judge names that resolve to no builtin
judge (`graders.judge`) and no entry of the problem's `judges.py` `JUDGES`, mutants without a `MISCONCEPTION`
or with one the catalogue (`problems/misconceptions.toml`) does not define, misconception ids a judge names
that the catalogue lacks, and swap symbols the reference module does not define. Then, in a child process
that imports every problem's probes with the reference framework (each in a fork of it), probe ids no probe
registers.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple, Union

from . import paths, toml
from .assemble import probes_source
from .intake import parse_python
from .judgescan import BUILTIN_SOURCE, JudgesUnreadable, checkpoint_probes, judges
from .offering import reference_issues
from .schema import Issue, line_of, offerings_issues, problem_issues, symbol_names
from .spec import CourseVisibility, ProblemSpec, SpecError, load_problem, load_problems


@dataclass(frozen=True)
class Finding:
    """One problem with a problem folder, where it is."""

    path: Path
    message: str
    line: Optional[int] = None

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}" if self.line else f"{self.path}: {self.message}"


def _line_of(text: str, *needles: str) -> Optional[int]:
    """The first line of `text` holding every needle (1-based), None if none does."""
    for number, line in enumerate(text.splitlines(), start=1):
        if all(n in line for n in needles):
            return number
    return None


# ------------------------------------------------------------------ the schema, judges, offerings


def _issue_findings(path: Path, text: str, issues: Iterable[Issue]) -> List[Finding]:
    """Schema issues of the file `path` as findings, at the line of their key."""
    return [Finding(path, str(issue), line_of(text, issue)) for issue in issues]


def _judge_findings(problem: ProblemSpec, path: Path, text: str) -> List[Finding]:
    """Tests naming a judge that is neither builtin nor in the problem's judges.py (their options are unchecked)."""
    try:
        known = judges(problem.folder)
    except JudgesUnreadable as exc:
        return [Finding(exc.path, exc.reason)]
    return _issue_findings(path, text, [
        Issue(("tests", i), ("judge",), f"judge '{test.judge}' is neither a builtin judge ({BUILTIN_SOURCE.name}) "
                                        f"nor in {problem.folder / 'judges.py'} JUDGES")
        for i, test in enumerate(problem.tests) if test.judge not in known])


def _checkpoint_findings(problem: ProblemSpec) -> List[Finding]:
    """judges.py CHECKPOINTS entries naming no probe of the problem's tests (a misspelling would silently never
    stop the probe it meant)."""
    probes = {test.probe for test in problem.tests}
    return [Finding(problem.folder / "judges.py", f"CHECKPOINTS names '{name}', which is no probe of a test in "
                                                   f"{problem.folder / 'problem.toml'}")
            for name in sorted(checkpoint_probes(problem.folder) - probes)]


def offerings_findings(root: Path) -> List[Finding]:
    """Every issue of `root/offerings.toml` (if there is one): its schema, then what it says of the problems
    (when they load)."""
    path = root / "offerings.toml"
    if not path.is_file():
        return []
    text = path.read_text(encoding="utf-8")
    try:
        raw = toml.loads(text)
    except toml.TOMLDecodeError as exc:
        return [Finding(path, f"not valid TOML: {exc}")]
    issues = offerings_issues(raw)
    if not issues:
        try:
            known = {spec.id: spec for spec in load_problems(root)}
        except SpecError:
            return []  # the problem folders' findings say why
        issues = reference_issues(raw, known)
    return _issue_findings(path, text, issues)


# ------------------------------------------------------------------ misconceptions and symbols



def catalogue_ids(problems_root: Path) -> Set[str]:
    """The misconception ids the catalogue of `problems_root` defines (raises CatalogueError)."""
    from .catalogue import load_catalogue

    return set(load_catalogue(problems_root))


def _misconception_literals(tree: ast.AST) -> Iterable[tuple]:
    """(id, line) of every `misconception="..."` keyword and `MISCONCEPTION = "..."` assignment."""
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "misconception" and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            yield node.value.value, node.value.lineno
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "MISCONCEPTION" for t in node.targets) \
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            yield node.value.value, node.lineno


def _misconception_findings(problem: ProblemSpec, catalogue: Set[str], catalogue_path: Path) -> List[Finding]:
    found = []
    mutants = sorted((problem.folder / "mutants").glob("*.py"))
    judges = [problem.folder / "judges.py"] if (problem.folder / "judges.py").is_file() else []
    for path in judges + mutants:
        ids = list(_misconception_literals(parse_python(path.read_text(encoding="utf-8"), str(path))))
        if path in mutants and not ids:
            found.append(Finding(path, "a mutant must set MISCONCEPTION = '<id>'"))
        found += [Finding(path, f"misconception '{mid}' is not in {catalogue_path} nor in the problem's own "
                                f"misconceptions.toml", line) for mid, line in ids if mid not in catalogue]
    return found


def defined_symbols(module_file: Path) -> Set[str]:
    """Top-level functions and classes of a module, and `Class.method` for their methods."""
    names: Set[str] = set()
    for node in parse_python(module_file.read_text(encoding="utf-8"), str(module_file)).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        if isinstance(node, ast.ClassDef):
            names |= {f"{node.name}.{m.name}" for m in node.body
                      if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
        if isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _swap_findings(problem: ProblemSpec, path: Path, text: str, reference: Path) -> List[Finding]:
    module_file = reference / problem.swap.file
    if not module_file.is_file():
        return [Finding(path, f"[swap] file '{problem.swap.file}' is not in {reference}", _line_of(text, "file"))]
    defined = defined_symbols(module_file)
    return [Finding(path, f"[swap] symbol '{symbol}' is defined in {module_file} under none of its names",
                    _line_of(text, symbol_names(symbol)[0]))
            for symbol in problem.swap.symbols if not any(n in defined for n in symbol_names(symbol))]


# ------------------------------------------------------------------ probes (child process)


#: one child for every problem: the harness and the reference framework imported once, then each problem's probes
#: imported in a fork of it (a problem's imports and registry are its own, and its time: PROBE_IMPORT_SECONDS),
#: its ids or its error written as a line
PROBE_IMPORT_SECONDS = 60
LIST_PROBES = """
import json, os, signal, sys
sys.path[:0] = json.loads(sys.argv[1])
limit = int(sys.argv[2])
import harness, probekit
try:
    import minitorch  # what most problems' probes import: once, before the forks
except BaseException:
    pass
for name, folder, sources in json.loads(sys.stdin.read()):
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        harness.die_with_parent()  # this child killed at its time limit takes the fork with it
        def late(*_):
            raise TimeoutError(f"importing them took more than {limit} s")
        signal.signal(signal.SIGALRM, late)
        signal.alarm(limit)
        try:
            os.chdir(folder)
            harness.import_probes(harness.compile_probes(sources))
            line = "PROBES " + json.dumps([name, sorted(probekit.PROBES)])
        except BaseException as exc:
            line = "FAILED " + json.dumps([name, (type(exc).__name__ + ": " + str(exc))[:500]])
        signal.alarm(0)
        os.write(1, (line + "\\n").encode())
        os._exit(0)
    os.waitpid(pid, 0)
"""


def probe_ids(problems: Sequence[ProblemSpec]) -> Dict[str, Union[Set[str], str]]:
    """{problem id: the probe ids its probes register, or why importing them failed}, for each of `problems` that
    has probes: imported the way the sandboxed harness imports them, with the reference framework, in one child
    that forks once per problem (each problem's imports and registry stay its own)."""
    from .probe import CHILD_DIR, probe_sources
    from .sandbox import PYTHON_FLAGS  # as the sandboxed child: no folder of the caller's on its path

    wanted = [(p.id, str(p.folder), probe_sources(p.folder)) for p in problems if probes_source(p.folder)]
    if not wanted:
        return {}
    path = [str(paths.REFERENCE), str(CHILD_DIR), str(CHILD_DIR / "compat")]
    try:
        done = subprocess.run([sys.executable, *PYTHON_FLAGS, "-c", LIST_PROBES, json.dumps(path),
                               str(PROBE_IMPORT_SECONDS)], input=json.dumps(wanted), capture_output=True, text=True,
                              timeout=PROBE_IMPORT_SECONDS * len(wanted) + 60)
    except (OSError, subprocess.SubprocessError) as exc:
        return {name: str(exc) for name, _, _ in wanted}
    found: Dict[str, Union[Set[str], str]] = {}
    for line in done.stdout.splitlines():
        kind, _, data = line.partition(" ")
        if kind in ("PROBES", "FAILED"):
            name, value = json.loads(data)
            found[name] = set(value) if kind == "PROBES" else value
    last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit code {done.returncode}"
    return {name: found.get(name, f"the import ended its process ({last})") for name, _, _ in wanted}


def probe_findings(problems: Sequence[ProblemSpec]) -> List[Finding]:
    """Each of `problems` without probes, whose probes cannot be imported, or with a test whose probe no @probe
    registers (`probe_ids`)."""
    ids = probe_ids(problems)
    found: List[Finding] = []
    for problem in problems:
        probes = probes_source(problem.folder)
        registered = ids.get(problem.id)
        if probes is None:
            found.append(Finding(problem.folder, "no probes.py nor probes/__init__.py"))
        elif not isinstance(registered, set):
            found.append(Finding(probes, f"importing the probes failed: {registered}"))
        else:
            path = problem.folder / "problem.toml"
            text = path.read_text(encoding="utf-8")
            found += [Finding(path, f"test '{t.id}': probe '{t.probe}' is registered by no @probe in {probes}",
                              _line_of(text, f'"{t.probe}"'))
                      for t in problem.tests if t.probe not in registered]
    return found


# ------------------------------------------------------------------ the whole check


def check_folder(folder: Path, catalogue: Set[str], reference: Path) -> List[Finding]:
    """Every static finding about one problem folder (the probes' are `probe_findings`')."""
    path = folder / "problem.toml"
    text = path.read_text(encoding="utf-8")
    try:
        raw = toml.loads(text)
    except toml.TOMLDecodeError as exc:
        return [Finding(path, f"not valid TOML: {exc}")]
    found = _issue_findings(path, text, problem_issues(raw, folder))
    if found:
        return found  # the very issues loading refuses the file with
    problem = load_problem(folder, CourseVisibility())  # (the course's visibility is offerings.toml's to check)
    found += _judge_findings(problem, path, text)
    if any(f.path == folder / "judges.py" for f in found):
        return found  # judges.py does not parse: nothing more can be read of it
    found += _checkpoint_findings(problem)
    found += _misconception_findings(problem, catalogue, folder.parent / "misconceptions.toml")
    found += _swap_findings(problem, path, text, reference)
    return found


@cache
def static_findings(folder: Path) -> Tuple[str, ...]:
    """The findings about one problem folder that need no child process (keys, judges and their options,
    misconception ids, swap symbols), as text; run once per process before a problem is graded."""
    from .catalogue import CatalogueError

    try:
        catalogue = catalogue_ids(folder.parent)
    except CatalogueError as exc:
        return (str(exc),)
    return tuple(str(f) for f in check_folder(folder, catalogue, paths.REFERENCE))
