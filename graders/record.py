"""Record stage: results.json (Gradescope's schema + CONTRACT §5) and JUnit XML, written atomically.

Both carry student-derived text (exception messages, file and submission names): every string is passed
through graders.safetext on the way out, so results.json, junit.xml and the summary are printable and
junit.xml is well-formed XML whatever a submission raised.
"""

from __future__ import annotations

import json
import os
import threading
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Dict, List, Optional

from .catalogue import explain
from .results import GradeResult
from .safetext import clean, md_literal, one_line, printable
from .spec import Visibilities, load_visibilities

#: Gradescope's format of the top-level output and of every test's output (its documented values: text,
#: html, simple_format, md, ansi)
OUTPUT_FORMAT = "md"


def _test_output(test) -> str:
    """A test's outcome as plain text (junit.xml): status, message, the misconception's title and id."""
    status = "passed" if test.passed else "failed"
    text = f"{status}: {test.message}"
    if test.misconception and not test.passed:
        text += f"\nLikely misconception: {explain(test.misconception).title} ({test.misconception})"
    return text


def misconception_md(mid: str) -> str:
    """A misconception as markdown, from the catalogue (problems/misconceptions.toml): its title and id,
    its explanation, what to reread. Course-staff text only: nothing here comes from a submission."""
    entry = explain(mid)
    parts = [f"**{entry.title}** (`{mid}`)"]
    if entry.explanation:
        parts.append(entry.explanation)
    if entry.reread:
        parts.append(f"*Reread:* {entry.reread}")
    return "\n\n".join(parts)


def md_test_output(test, fault: bool = False) -> str:
    """A test's Gradescope output (markdown): passed or failed; the grader's message verbatim in a code
    block (it may quote the submission: never read as markup); for a failed test, the misconception it
    shows with its title and explanation. A test of a problem the grader failed on says so instead."""
    if fault:
        return "**Not graded yet: the grader failed on this problem** (not your code). " + md_literal(test.message)
    parts = ["**Passed**" if test.passed else "**Failed**"]
    if test.message:
        parts.append(md_literal(test.message))
    if test.misconception and not test.passed:
        parts.append("Likely misconception: " + misconception_md(test.misconception))
    return "\n\n".join(parts)


def _cell(text: str) -> str:
    """`text` as one markdown table cell (grader-owned text: problem ids and titles)."""
    return one_line(text).replace("|", "\\|")


def student_summary_md(result: GradeResult, visibilities: Visibilities) -> str:
    """Gradescope's always-visible top-level output (markdown): the score of each problem, the title and
    explanation of every misconception named, and what kept something from being graded (the
    submission's errors, each problem's error) with the notes and review lines.

    Never a test's message: a test shown later (visibility other than `visible`) may state the values
    it expected, and this output is shown at once. Those tests are counted per problem instead.
    """
    pending = [p for p in result.problems if p.fault]
    heading = f"### Score: {result.score:g} / {result.max_score:g}"
    if pending and result.pending >= result.max_score:
        heading = f"### Score: not graded yet (the grader failed; {result.pending:g} points to regrade)"
    elif pending:
        heading = (f"### Score so far: {result.score:g} / {result.max_score - result.pending:g} graded "
                   f"({result.pending:g} points not graded yet)")
    lines = [heading, "", "| Problem | Score | Tests not shown yet |", "|---|---:|---:|"]
    withheld = 0
    for p in result.problems:
        later = sum(visibilities.of(p.id, t.id, t.kind) != "visible" for t in p.tests)
        withheld += later
        score = f"not graded yet (out of {p.max_score:g})" if p.fault else f"{p.score:g} / {p.max_score:g}"
        lines.append(f"| {_cell(p.id)}: {_cell(p.title)} | {score} | {later} |")
    parts = ["\n".join(lines)]
    if pending:
        names = ", ".join(f"`{p.id}`" for p in pending)
        parts.append(f"**The grader failed on {names}: this is not your code's fault and not your grade.** Course "
                     "staff have been told and will regrade it; your score will change then.")
    if withheld:
        parts.append("The tests not shown yet are shown after the due date (or once grades are published); "
                     "their points are already in the scores above.")
    if result.misconceptions:
        parts.append("### Misconceptions found in your code")
        parts.extend(misconception_md(m) for m in result.misconceptions)
    errors = list(result.errors) + [f"{p.id}: {e}" for p in result.problems if not p.fault for e in p.errors]
    for heading, texts in (("Could not grade everything", errors), ("Notes", result.warnings),
                           ("For review by course staff", result.review)):
        if texts:
            parts += [f"### {heading}", md_literal("\n".join(texts))]
    return "\n\n".join(parts)


def summary_text(result: GradeResult) -> str:
    """The short plain-text summary (the CLI's printout, Gradescope's stdout for staff); printable text only."""
    pending = f" ({result.pending:g} points not graded: grader fault, regrade)" if result.pending else ""
    lines = [f"{one_line(result.submission)}: {result.score:g} / {result.max_score:g}{pending}"]
    for p in result.problems:
        if p.fault:
            lines.append(f"  {p.id:<10} not graded: GRADER FAULT ({one_line(p.fault.splitlines()[0])[:200]})")
            continue
        error = f"  ({one_line(p.errors[0])})" if p.errors else ""
        lines.append(f"  {p.id:<10} {p.score:g} / {p.max_score:g}{error}")
    if result.misconceptions:
        lines.append("Misconceptions: " + ", ".join(result.misconceptions))
    for error in result.errors:
        lines.append(f"Error: {error}")
    for warning in result.warnings:
        lines.append(f"Note: {warning}")
    for line in result.staff_review:
        lines.append(f"For review by course staff: {line}")
    return printable("\n".join(lines))


def results_json(result: GradeResult, visibilities: Optional[Visibilities] = None) -> Dict[str, Any]:
    """Gradescope's results.json with the contract's tags and extra_data; every string printable (safetext).

    Outputs are markdown (`OUTPUT_FORMAT`): the top level is `student_summary_md`, each test
    `md_test_output`. Each test's `visibility` comes from `visibilities` (default: the problem specs,
    `graders.spec.load_visibilities`); the top level is always visible.
    """
    if visibilities is None:
        visibilities = load_visibilities()
    tests: List[Dict[str, Any]] = []
    for order, problem in enumerate(result.problems, start=1):
        for index, t in enumerate(problem.tests, start=1):
            tests.append(
                {
                    "score": t.score,
                    "max_score": t.max_score,
                    "status": "passed" if t.passed else "failed",
                    "name": f"[{problem.id}] {'[not graded: grader fault] ' if problem.fault else ''}{t.name}",
                    "number": f"{order}.{index}",
                    "output": md_test_output(t, fault=bool(problem.fault)),
                    "output_format": OUTPUT_FORMAT,
                    "tags": [problem.id, t.kind],
                    "visibility": visibilities.of(problem.id, t.id, t.kind),
                    "extra_data": {"problem": problem.id, "kind": t.kind, "misconception": t.misconception},
                }
            )
    errors = list(result.errors)
    for p in result.problems:
        errors.extend(f"{p.id}: {e}" for e in p.errors)
    errors.extend(f"grader fault in {f}" for f in result.faults)
    return clean({
        "score": result.score,
        "execution_time": result.execution_time,
        "output": student_summary_md(result, visibilities),
        "output_format": OUTPUT_FORMAT,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {
            "problems": {p.id: {"score": p.score, "max_score": p.max_score} for p in result.problems},
            "misconceptions": result.misconceptions,
            "errors": errors,
            "submission": one_line(result.submission),
            "grader_version": result.grader_version,
            "seed": result.seed,
            "content_hash": result.content_hash,
            "warnings": list(result.warnings),
            "sandbox": result.sandbox,
            "offering": result.offering,
            "review": result.staff_review,
            "faults": [{"problem": p.id, "reason": p.fault} for p in result.problems if p.fault],
        },
        "tests": tests,
    })


def junit_xml(result: GradeResult) -> str:
    """One <testsuite> per problem, one <testcase> per hidden test."""
    suites = ET.Element("testsuites", name=result.submission)
    for problem in result.problems:
        failures = sum(not t.passed for t in problem.tests)
        suite = ET.SubElement(
            suites, "testsuite", name=problem.id, tests=str(len(problem.tests)),
            failures=str(failures), time=f"{problem.seconds:.3f}",
        )
        for t in problem.tests:
            case = ET.SubElement(suite, "testcase", classname=problem.id, name=t.name, time=f"{t.seconds:.3f}")
            if not t.passed:
                failure = ET.SubElement(case, "failure", message=t.message[:500])
                failure.text = _test_output(t)
    return ET.tostring(_xml_safe(suites), encoding="unicode")


def _xml_safe(root: ET.Element) -> ET.Element:
    """`root` with every attribute and text made printable (hence legal XML 1.0 characters); names on one line."""
    for element in root.iter():
        element.attrib = {k: one_line(v) if k == "name" else printable(v) for k, v in element.attrib.items()}
        if element.text:
            element.text = printable(element.text)
    return root


def write_atomic(path: Path, text: str) -> None:
    """Write via a temporary file and rename, so readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}.{threading.get_ident()}")
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def write_results(result: GradeResult, out_dir: Path) -> Dict[str, Any]:
    """DIR/results.json and DIR/junit.xml; returns the results document."""
    doc = results_json(result)
    write_atomic(out_dir / "junit.xml", junit_xml(result))
    write_atomic(out_dir / "results.json", json.dumps(doc, indent=2))
    return doc
