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
from typing import Any, Dict, List

from .grade import GradeResult
from .safetext import clean, one_line, printable


def _test_output(test) -> str:
    status = "passed" if test.passed else "failed"
    text = f"{status}: {test.message}"
    if test.misconception and not test.passed:
        text += f"\nLikely misconception: {test.misconception}"
    return text


def summary_text(result: GradeResult) -> str:
    """The short plain-text summary (Gradescope's top-level output, the CLI's printout); printable text only."""
    lines = [f"{one_line(result.submission)}: {result.score:g} / {result.max_score:g}"]
    for p in result.problems:
        error = f"  ({one_line(p.errors[0])})" if p.errors else ""
        lines.append(f"  {p.id:<10} {p.score:g} / {p.max_score:g}{error}")
    if result.misconceptions:
        lines.append("Misconceptions: " + ", ".join(result.misconceptions))
    for error in result.errors:
        lines.append(f"Error: {error}")
    for warning in result.warnings:
        lines.append(f"Note: {warning}")
    for line in result.review:
        lines.append(f"For review by course staff: {line}")
    return printable("\n".join(lines))


def results_json(result: GradeResult) -> Dict[str, Any]:
    """Gradescope's results.json with the contract's tags and extra_data; every string printable (safetext)."""
    tests: List[Dict[str, Any]] = []
    for order, problem in enumerate(result.problems, start=1):
        for index, t in enumerate(problem.tests, start=1):
            tests.append(
                {
                    "score": t.score,
                    "max_score": t.max_score,
                    "status": "passed" if t.passed else "failed",
                    "name": f"[{problem.id}] {t.name}",
                    "number": f"{order}.{index}",
                    "output": _test_output(t),
                    "tags": [problem.id, t.kind],
                    "visibility": "visible",
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
        "output": summary_text(result),
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
            "review": list(result.review),
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
