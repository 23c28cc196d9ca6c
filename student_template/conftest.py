"""pytest plugin of the homework: a per-problem summary of the public tests.

Every public test carries the marker of its problem (`autodiff`, `network`, `training`). This plugin groups the results by that marker:

    pytest --problem-summary               # a table at the end of the run
    pytest --problem-json=results.json     # the same, as JSON
    pytest --problem-markdown=summary.md   # the same, appended as a Markdown table
                                           # (CI: --problem-markdown="$GITHUB_STEP_SUMMARY")

Write FILE with `=`: pytest looks for its configuration from the paths given
on the command line, and a separate `FILE` outside this folder would count
as one.

The table shows, per problem, how many tests passed out of those that were
selected, and the message of its first failure (in collection order), whole:
a long one is wrapped, never cut. A problem with no failure but skipped tests
says why they were skipped.

It also gives the tests the fixture `working_autodiff`: the public tests of
`network` and `training` that run backward through your `backpropagate` ask
for it, and are skipped, with one line saying to fix autodiff first, while
backward() gets the lecture's example wrong (checked once per run).
Passing every public test does not guarantee full marks: the hidden grading
checks more (see README.md).
"""

from __future__ import annotations

import json
import math
import textwrap
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Dict, List, Optional

import pytest

#: The problems, in the order of the homework.
PROBLEMS = ('autodiff', 'network', 'training')
#: The group of tests that carry no problem marker.
UNMARKED = "(unmarked)"
#: Width of the message column of the terminal table (longer messages are wrapped).
MESSAGE_WIDTH = 110
#: ∂f/∂x₁ and ∂f/∂x₂ of the lecture's example f = x₁ + exp(1.5 x₁ + 2 x₂) at (3, 0.5).
SLIDES = (368.0378983963, 489.3838645284)


def autodiff_failure() -> Optional[str]:
    """What is wrong with backward() on the lecture's example (one line), or None when it is right."""
    try:
        from minitorch import Scalar

        x1, x2 = Scalar(3.0), Scalar(0.5)
        (x1 + (x1 * 1.5 + x2 * 2.0).exp()).backward()
        got = (x1.derivative, x2.derivative)
    except Exception as exc:  # your code: anything it raises is the answer
        message = " ".join(str(exc).split())
        message = message if len(message) <= 80 else message[:79] + "…"
        return f"backward() on the lecture's example raised {type(exc).__name__}{': ' + message if message else ''}"
    if all(d is not None and math.isclose(float(d), e, rel_tol=1e-9) for d, e in zip(got, SLIDES)):
        return None
    return (f"backward() on the lecture's example f = x₁ + exp(1.5x₁ + 2x₂) gives ∂f/∂x₁, ∂f/∂x₂ = "
            f"{got[0]}, {got[1]} instead of {SLIDES[0]:.10g}, {SLIDES[1]:.10g}")


@pytest.fixture(scope="session")
def autodiff_status() -> Optional[str]:
    """Why your autodiff is broken, or None: checked once per run (None when the homework gives autodiff)."""
    return autodiff_failure() if "autodiff" in PROBLEMS else None


#: how the reason of a test skipped by `working_autodiff` starts
AUTODIFF_FIRST = "fix autodiff first (pytest -m autodiff)"


@pytest.fixture
def working_autodiff(autodiff_status: Optional[str]) -> None:
    """Skip the test while your backward() gets the lecture's example wrong: the test runs backward through
    your backpropagate, so its own checks would only repeat that failure. The run ends with ONE line for
    all the tests skipped so (`pytest_terminal_summary`)."""
    if autodiff_status is not None:
        pytest.skip(f"{AUTODIFF_FIRST}: {autodiff_status}; these tests run backward through your backpropagate")


def pytest_terminal_summary(terminalreporter) -> None:
    """One line for every test skipped until autodiff works (pytest would list them one by one with -rs)."""
    skipped = [r for r in terminalreporter.stats.get("skipped", [])
               if skip_reason(r).startswith(AUTODIFF_FIRST)]
    if skipped:
        problems = sorted({problem_of_path(r.nodeid) for r in skipped},
                          key=lambda p: PROBLEMS.index(p) if p in PROBLEMS else len(PROBLEMS))
        terminalreporter.write_line(f"SKIPPED {len(skipped)} test(s) of {', '.join(problems)}: "
                                    f"{skip_reason(skipped[0])}", yellow=True)


def pytest_addoption(parser: pytest.Parser) -> None:
    """The plugin's three options."""
    group = parser.getgroup("problem summary", "per-problem summary of the homework's tests")
    group.addoption("--problem-summary", action="store_true", default=False,
                    help="print a per-problem table (passed/total, first failure) at the end of the run")
    group.addoption("--problem-json", metavar="FILE", default=None,
                    help="write the per-problem summary and every test's outcome to FILE as JSON")
    group.addoption("--problem-markdown", metavar="FILE", default=None,
                    help="append the per-problem table to FILE as Markdown (e.g. $GITHUB_STEP_SUMMARY)")


def pytest_configure(config: pytest.Config) -> None:
    """Register the collector when one of the options asks for a summary."""
    wanted = (config.getoption("--problem-summary") or config.getoption("--problem-json")
              or config.getoption("--problem-markdown"))
    if wanted and not hasattr(config, "workerinput"):  # not inside a pytest-xdist worker
        config.pluginmanager.register(ProblemSummary(config), "problem-summary")


@dataclass
class Outcome:
    """What happened to one selected test."""

    #: pytest's node id, e.g. ``tests/test_autodiff.py::test_slides_example``
    test: str
    #: its problem (the marker), or UNMARKED
    problem: str
    #: ``passed``, ``failed``, ``skipped`` or ``not run``
    outcome: str = "not run"
    #: the first line(s) of the failure: exception type and message (of a skip: its reason)
    message: Optional[str] = None


def problem_of(item: pytest.Item) -> str:
    """The problem marker of a test item (UNMARKED if it has none)."""
    for mark in item.iter_markers():
        if mark.name in PROBLEMS:
            return mark.name
    return UNMARKED


def failure_message(report) -> str:
    """The exception line of a failed report, without pytest's assertion introspection."""
    longrepr = report.longrepr
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None:
        text = crash.message
    elif isinstance(longrepr, tuple) and len(longrepr) == 3:  # (path, line, message) of a skip/fail
        text = str(longrepr[2])
    else:  # e.g. an import error while collecting: the last "E   ..." line is the exception
        text = str(longrepr)
        errors = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
        if errors:
            text = errors[-1]
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("assert ", "+  where", "+ where", "where ")) or stripped == "assert":
            break
        lines.append(stripped)
    text = " ".join(part for part in lines if part)
    if text.startswith("AssertionError: "):
        text = text[len("AssertionError: "):]
    return text or "failed"


class ProblemSummary:
    """Collects the reports of a run and summarises them per problem."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.outcomes: Dict[str, Outcome] = {}
        self.collection_errors: List[Dict[str, str]] = []

    # -- hooks -----------------------------------------------------------------

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for item in session.items:  # what remains after -m / -k / deselection
            self.outcomes[item.nodeid] = Outcome(item.nodeid, problem_of(item))

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collection_errors.append({"where": report.nodeid, "problem": problem_of_path(report.nodeid),
                                           "message": failure_message(report)})

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome = self.outcomes.get(report.nodeid)
        if outcome is None or outcome.outcome == "failed":
            return
        if report.failed:
            outcome.outcome = "failed"
            outcome.message = failure_message(report)
        elif report.skipped:
            outcome.outcome = "skipped"
            outcome.message = skip_reason(report)
        elif report.when == "call":
            outcome.outcome = "passed"

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        json_path = self.config.getoption("--problem-json")
        if json_path:
            Path(json_path).parent.mkdir(parents=True, exist_ok=True)
            Path(json_path).write_text(json.dumps(self.as_dict(), indent=2, ensure_ascii=False) + "\n",
                                       encoding="utf-8")
        markdown_path = self.config.getoption("--problem-markdown")
        if markdown_path:
            with open(markdown_path, "a", encoding="utf-8") as out:
                out.write(self.markdown())

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.config.getoption("--problem-summary"):
            return
        tr = terminalreporter
        tr.write_sep("=", "per-problem summary (public tests)")
        rows = self.rows()
        width = max([len("problem")] + [len(r["problem"]) for r in rows])
        tr.write_line(f"{'problem':<{width}}  {'passed':>9}  first failure")
        for row in rows:
            counts = f"{row['passed']}/{row['total']}"
            prefix = f"{row['problem']:<{width}}  {counts:>9}  "
            lines = textwrap.wrap(row_text(row), MESSAGE_WIDTH, break_long_words=False, break_on_hyphens=False)
            for number, line in enumerate(lines or ["-"]):
                tr.write_line((prefix if number == 0 else " " * len(prefix)) + line,
                              green=all_passed(row), red=row["failed"] > 0)

    # -- the summary -------------------------------------------------------------

    def rows(self) -> List[dict]:
        """One row per problem that has selected tests, in homework order."""
        groups: Dict[str, List[Outcome]] = {}
        for outcome in self.outcomes.values():
            groups.setdefault(outcome.problem, []).append(outcome)
        broken = {}  # a test file that cannot even be imported counts as a failure of its problem
        for error in self.collection_errors:
            broken.setdefault(error["problem"], error)
            groups.setdefault(error["problem"], [])
        order = [p for p in PROBLEMS if p in groups] + ([UNMARKED] if UNMARKED in groups else [])
        rows = []
        for problem in order:
            tests = groups[problem]
            failed = [{"test": t.test, "message": t.message} for t in tests if t.outcome == "failed"]
            if problem in broken:
                error = broken[problem]
                failed.insert(0, {"test": error["where"], "message": f"collection error: {error['message']}"})
            rows.append({
                "problem": problem,
                "passed": sum(t.outcome == "passed" for t in tests),
                "failed": len(failed),
                "skipped": sum(t.outcome == "skipped" for t in tests),
                "total": len(tests),
                "first_failure": failed[0] if failed else None,
                "first_skip": next(({"test": t.test, "reason": t.message} for t in tests
                                    if t.outcome == "skipped"), None),
            })
        return rows

    def as_dict(self) -> dict:
        """The JSON document: per-problem rows, every test, collection errors."""
        return {
            "problems": {row.pop("problem"): row for row in self.rows()},
            "tests": [asdict(t) for t in self.outcomes.values()],
            "collection_errors": self.collection_errors,
        }

    def markdown(self) -> str:
        """The table as GitHub-flavoured Markdown."""
        lines = ["### Public tests per problem", "", "| problem | passed | first failure |", "|---|---|---|"]
        for row in self.rows():
            mark = "✅" if all_passed(row) else "❌"
            first = row["first_failure"]
            text = "" if first is None else f"`{short_name(first['test'])}`: {first['message']}"
            if first is None and row["skipped"]:
                text = row_text(row)
            text = text.replace("|", "\\|")
            lines.append(f"| {row['problem']} | {mark} {row['passed']}/{row['total']} | {text} |")
        return "\n".join(lines) + "\n\n"


def row_text(row: dict) -> str:
    """The message column of a row: its first failure, else why tests were skipped, else "-"."""
    first, skipped = row["first_failure"], row.get("first_skip")
    if first is not None:
        return f"{short_name(first['test'])}: {first['message']}"
    if skipped is not None:
        return f"none failed, {row['skipped']} skipped: {skipped['reason']}"
    return "-"


def skip_reason(report) -> str:
    """The reason of a skipped report (without pytest's "Skipped: ")."""
    longrepr = report.longrepr
    text = str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr or "")
    return text[len("Skipped: "):] if text.startswith("Skipped: ") else text


def all_passed(row: dict) -> bool:
    """True when every selected test of the row passed and nothing failed (not even collecting)."""
    return row["failed"] == 0 and row["passed"] == row["total"]


def problem_of_path(nodeid: str) -> str:
    """The problem of a test file that failed to import, from its name (`tests/test_ops.py` → `ops`)."""
    name = nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
    for problem in PROBLEMS:
        if name == f"test_{problem}.py":
            return problem
    return UNMARKED


def short_name(nodeid: str) -> str:
    """`tests/test_ops.py::test_backward[sigmoid]` → `test_backward[sigmoid]`."""
    return nodeid.split("::", 1)[-1]
