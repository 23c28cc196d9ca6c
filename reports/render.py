"""Render the per-submission report (and, later, the class report) from templates."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, Optional

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from graders.catalogue import MISCONCEPTIONS, Misconception, explain, misconceptions  # noqa: F401 (re-exported)
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


def _figures(result: Any) -> Dict[str, str]:
    """SVG per test id that carries figure data: the one drawn when the problem was graded, else (a result read
    back from the gradebook) drawn now; a figure that cannot be drawn now is left out (the grade stands)."""
    from graders.figures import figure_svg

    svgs: Dict[str, str] = {}
    for problem in result.problems:
        for test in problem.tests:
            if not (test.figure and isinstance(test.figure, dict)):
                continue
            svg = getattr(test, "svg", None)
            if svg is None:
                try:
                    svg = figure_svg(str(test.figure.get("kind")), test.figure, problem.id)
                except Exception:
                    svg = None
            if svg:
                svgs[f"{problem.id}/{test.id}"] = svg
    return svgs


def render_submission(result: Any, links: Optional[Dict[str, str]] = None) -> str:
    """The HTML report of one GradeResult."""
    found = [explain(m) for m in result.misconceptions]
    return environment().get_template("report.html").render(
        result=result,
        misconceptions=found,
        explain=explain,
        figures=_figures(result),
        links=links or {},
    )
