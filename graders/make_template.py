"""`autograde make-template`: generate student_template/ from reference/ (CONTRACT §3).

The template is the reference with every solution block stubbed, the public
tests of every problem, and the template's own files (README, pyproject, CI
workflow, pytest plugin) from `graders/template_extras/`.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import jinja2

from . import paths
from .offering import Offering, get_offering, load_offerings, offering_problems
from .spec import ProblemSpec, SpecError, load_problems
from .template import has_markers, strip_file


def render_extra(text: str, offering: Offering, problems: Sequence[ProblemSpec]) -> str:
    """A `*.j2` file of template_extras/ rendered for the offering (README, plugin, pyproject)."""
    # no autoescaping (S701): it renders markdown, TOML and Python, which HTML escapes would corrupt
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True,  # noqa: S701
                             trim_blocks=True, lstrip_blocks=True)
    return env.from_string(text).render(
        offering=offering, problems=[student_view(p) for p in problems], total=offering.max_score,
        problem_ids=repr(tuple(p.id for p in problems)),
        problem_list=", ".join(f"`{p.id}`" for p in problems),
    )


def student_view(problem: ProblemSpec) -> Dict[str, object]:
    """What the template says about one problem: its file, symbols, points and folder texts."""

    def text(name: str) -> str:
        path = problem.folder / name
        return path.read_text(encoding="utf-8").strip() if path.is_file() else ""

    return {
        "id": problem.id, "title": problem.title, "file": problem.swap.file, "points": problem.max_score,
        "symbols": [s.split("|")[0] for s in problem.swap.symbols],
        "what": text("student.md"), "grading": text("grading.md"),
    }


def template_files(offering: Optional[Offering] = None) -> Dict[str, bytes]:
    """The whole student template of `offering` (default: the default one) as {relative path: content}.

    The offering's problems are stubbed (inside the course's markers); the solution blocks of
    problems it does not grade are given code in that offering and stay, unmarked.
    """
    offering = offering or get_offering()
    every = load_problems()
    graded = offering_problems(offering)
    files: Dict[str, bytes] = {}
    for rel in paths.files_under(paths.REFERENCE):
        source = paths.REFERENCE / rel
        if source.suffix == ".py":
            text = strip_file(source, rel.as_posix(), every, only=[p.id for p in graded],
                              markers=offering.markers, reveal_others=True)
            files[rel.as_posix()] = text.encode("utf-8")
        else:
            files[rel.as_posix()] = source.read_bytes()
    for problem in graded:
        public = problem.folder / "public"
        if public.is_dir():
            for rel in paths.files_under(public):
                files[f"tests/{rel.as_posix()}"] = (public / rel).read_bytes()
    for rel in paths.files_under(paths.TEMPLATE_EXTRAS):
        data = (paths.TEMPLATE_EXTRAS / rel).read_bytes()
        if rel.suffix == ".j2":
            files[rel.with_suffix("").as_posix()] = render_extra(data.decode("utf-8"), offering, graded).encode("utf-8")
        else:
            files[rel.as_posix()] = data
    leftovers = [name for name, data in files.items()
                 if name.endswith(".py") and has_markers(data.decode("utf-8", "replace"))]
    if leftovers:
        raise RuntimeError(f"solution markers left in: {', '.join(leftovers)}")
    return files


def write_template(dest: Path, files: Dict[str, bytes]) -> None:
    """Replace `dest` by exactly `files`."""
    if dest.exists():
        shutil.rmtree(dest)
    for name, data in files.items():
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def stale_files(dest: Path, files: Dict[str, bytes]) -> List[str]:
    """Paths where `dest` differs from what would be generated (missing, extra or changed)."""
    present = {p.as_posix() for p in paths.files_under(dest)} if dest.is_dir() else set()
    wanted = set(files)
    diffs = [f"missing: {n}" for n in sorted(wanted - present)]
    diffs += [f"extra:   {n}" for n in sorted(present - wanted)]
    diffs += [f"changed: {n}" for n in sorted(wanted & present) if (dest / n).read_bytes() != files[n]]
    return diffs


#: the README's offerings table lies between these lines, generated from problems/offerings.toml
TABLE_START = "<!-- offerings table: generated from problems/offerings.toml by `autograde make-template` -->"
TABLE_END = "<!-- end of the offerings table -->"


def offerings_table() -> str:
    """The README's table of offerings (Markdown): id, title, what each grades with which points."""
    default, offerings = load_offerings()
    rows = ["| offering | what | starter | graded (points) |", "|---|---|---|---|"]
    for oid, offering in offerings.items():
        name = f"`{oid}` (default)" if oid == default else f"`{oid}`"
        graded = "every problem folder, each at its own points" if offering.every else \
            ", ".join(f"{pid} {points:g}" for pid, points in offering.points.items())
        dropped = "; ".join(f"{pid} without {', '.join(tests)}" for pid, tests in offering.drop.items())
        starter = offering.starter.split(" (")[0]
        rows.append(f"| {name} | {offering.title} | {starter} | {graded}{f' ({dropped})' if dropped else ''} |")
    return "\n".join(rows)


#: the README's table of problems lies between these lines, generated from problems/*/problem.toml
PROBLEMS_START = "<!-- problems table: generated from problems/*/problem.toml by `autograde make-template` -->"
PROBLEMS_END = "<!-- end of the problems table -->"


def problems_table() -> str:
    """The README's table of problems (Markdown): id, title, the student's file and symbols, tests, points."""
    rows = ["| problem | what | student file (symbols) | hidden tests | points |", "|---|---|---|---|---|"]
    for spec in sorted(load_problems(), key=lambda p: (p.order, p.id)):
        symbols = ", ".join(f"`{s.split('|')[0]}`" for s in spec.swap.symbols[:4])
        more = f" and {len(spec.swap.symbols) - 4} more" if len(spec.swap.symbols) > 4 else ""
        rows.append(f"| `{spec.id}` | {spec.title} | `{spec.swap.file}` ({symbols}{more}) | {len(spec.tests)} | "
                    f"{spec.max_score:g} |")
    return "\n".join(rows)


def _between(text: str, start: str, end: str, table: str, what: str) -> str:
    if start not in text or end not in text:
        raise SpecError(f"README.md: the lines {start!r} and {end!r} around the {what} table are missing")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{table}\n{end}{tail}"


def readme_with_table(text: str) -> str:
    """`text` (the README) with the generated offerings and problems tables between their marker lines."""
    text = _between(text, TABLE_START, TABLE_END, offerings_table(), "offerings")
    return _between(text, PROBLEMS_START, PROBLEMS_END, problems_table(), "problems")


def make_template(dest: Optional[Path] = None, check: bool = False, offering: Optional[str] = None) -> List[str]:
    """Write (or, with `check`, compare) the template of `offering`; return the differences found.

    The default run (no `dest`) also regenerates the README's offerings table.
    """
    readme = paths.ROOT / "README.md" if dest is None and readme_exists() else None
    dest = dest or paths.STUDENT_TEMPLATE
    files = template_files(get_offering(offering))
    if check:
        diffs = stale_files(dest, files)
        text = readme.read_text(encoding="utf-8") if readme is not None else None
        if text is not None and readme_with_table(text) != text:
            diffs.append("changed: README.md (the problems and offerings tables)")
        return diffs
    write_template(dest, files)
    if readme is not None:
        readme.write_text(readme_with_table(readme.read_text(encoding="utf-8")), encoding="utf-8")
    return []


def readme_exists() -> bool:
    """Whether the project's README is here (an installed grader without the repository has none)."""
    return (paths.ROOT / "README.md").is_file()
