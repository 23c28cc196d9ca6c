"""Render the per-submission report (and, later, the class report) from templates."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Collection, Dict, List, Optional

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from graders.catalogue import MISCONCEPTIONS, Misconception, explain, misconceptions  # noqa: F401 (re-exported)
from graders.results import review_line
from graders.safetext import printable

TEMPLATES = Path(__file__).resolve().parent / "templates"


def _printable(value: Any) -> Any:
    """Every string a template prints (student messages and names included) made printable
    (graders.safetext); markup stays markup, other values are left to the template."""
    if isinstance(value, Markup):
        return Markup(printable(str(value)))  # noqa: S704 - markup already; printable() adds no tag
    return printable(value) if isinstance(value, str) else value


@lru_cache(maxsize=1)
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False})  # raw HTML in the text is shown as text, never markup


def inline_markdown(text: str) -> Markup:
    """Course-authored text (problems/misconceptions.toml) with its inline markdown rendered:
    `*emphasis*`, `` `code` ``, links. Raw HTML in it is escaped; student text never goes through here."""
    return Markup(_markdown().renderInline(printable(str(text))))  # noqa: S704 - html off: raw HTML escaped


@lru_cache(maxsize=1)
def environment() -> Environment:
    """The templates' environment: HTML autoescaped, every printed string printable (`_printable`)."""
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(["html"]),
        finalize=_printable,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pct"] = lambda x: f"{100 * x:.0f}%"
    env.filters["pts"] = lambda x: f"{x:g}"
    env.filters["md"] = inline_markdown
    return env


#: the tests whose results a report shows, by their Gradescope visibility (results.json's `visibility`):
#: the student's report before the due date (the default), after it, and course staff's (everything)
BEFORE_DUE = frozenset({"visible"})
AFTER_DUE = frozenset({"visible", "after_due_date", "after_published"})
STAFF = frozenset({"visible", "hidden", "after_due_date", "after_published"})
#: `--show` of the CLI -> which visibilities a report shows
SHOWN = {"visible": BEFORE_DUE, "after-due-date": AFTER_DUE, "all": STAFF}
#: what a report says instead of a test's result, by its visibility
NOT_SHOWN_YET = {"after_due_date": "shown after the due date", "after_published": "shown once grades are published",
                 "hidden": "not shown to students"}


def withheld(result: Any, shown: Collection[str], visibilities: Any = None) -> Dict[str, str]:
    """{"problem/test": why it is not shown} for the tests of `result` whose visibility is not in `shown`
    (the same visibility as results.json's, graders.record.results_json)."""
    from graders.spec import load_visibilities

    if set(STAFF) <= set(shown):
        return {}
    visibilities = visibilities or load_visibilities()
    out: Dict[str, str] = {}
    for problem in result.problems:
        for test in problem.tests:
            visibility = visibilities.of(problem.id, test.id, test.kind)
            if visibility not in shown:
                out[f"{problem.id}/{test.id}"] = NOT_SHOWN_YET.get(visibility, "not shown yet")
    return out


def _figures(result: Any, withheld: Collection[str] = ()) -> Dict[str, str]:
    """SVG per test id that carries figure data, but those `withheld` ("problem/test"): the one drawn when the
    problem was graded, else (not drawn then, or a result read back from the gradebook) drawn now; a figure that
    cannot be drawn now is left out (the grade stands)."""
    svgs: Dict[str, str] = {}
    for problem in result.problems:
        for test in problem.tests:
            if not (test.figure and isinstance(test.figure, dict)) or f"{problem.id}/{test.id}" in withheld:
                continue
            svg = getattr(test, "svg", None)
            if svg is None:
                from graders.figures import figure_svg  # matplotlib: imported only when a figure is drawn here

                try:
                    svg = figure_svg(str(test.figure.get("kind")), test.figure, problem.id)
                except Exception:
                    svg = None
            if svg:
                svgs[f"{problem.id}/{test.id}"] = svg
    return svgs


def render_submission(result: Any, links: Optional[Dict[str, str]] = None,
                      shown: Collection[str] = BEFORE_DUE, visibilities: Any = None) -> str:
    """The HTML report of one GradeResult: the student's, before the due date by default.

    A test whose visibility (results.json's, from `visibilities`, default the problem specs) is not in
    `shown` keeps its row (name, kind) but not its points, result, message, misconception or figure, as
    Gradescope withholds it; its points are in the problem's score, as in results.json's summary.
    """
    found = [explain(m) for m in result.misconceptions]
    later = withheld(result, shown, visibilities)
    figures = _figures(result, later)
    return environment().get_template("report.html").render(
        result=result,
        misconceptions=found,
        explain=explain,
        figures=figures,
        withheld=later,
        shown_tests={p.id: [t for t in p.tests if f"{p.id}/{t.id}" not in later] for p in result.problems},
        review=review_lines(result, later),
        links=links or {},
    )


def review_lines(result: Any, later: Collection[str]) -> List[str]:
    """The review box's lines: the integrity screen's, then each test that asked for a person, of the tests this
    report shows (a withheld test's request would tell what it found)."""
    return list(result.review) + [review_line(p.id, t.name, t.review) for p in result.problems for t in p.tests
                                  if getattr(t, "review", None) and f"{p.id}/{t.id}" not in later]
