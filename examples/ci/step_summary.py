"""Markdown summary of a batch folder, for $GITHUB_STEP_SUMMARY.

    python step_summary.py GRADING_DIR >> "$GITHUB_STEP_SUMMARY"

Reads only the batch's files (grades.csv: the student's name first, then
total and the problem ids, perhaps max_total/status columns; and
<name>/results.json for maximum scores, misconceptions and errors) with the
standard library, so it works even when the grader itself could not be
imported. Never fails the job: a missing or partial folder is reported as such.
"""

from __future__ import annotations

import csv
import json
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional

#: Most students listed one by one (the artifact has everyone).
MAX_ROWS = 300
#: grades.csv columns that are not problem scores.
NOT_PROBLEMS = {"name", "student", "total", "max_total", "status", "error", "errors", "graded_at", "grader_version"}


def _cell(text: object) -> str:
    """Table-safe Markdown: no pipes, no newlines, no HTML."""
    return str(text).replace("|", "\\|").replace("\n", " ").replace("<", "&lt;").replace(">", "&gt;")


def _num(text: str) -> Optional[float]:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def _results(folder: Path, name: str) -> Dict:
    path = folder / name / "results.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def summary(folder: Path) -> str:
    grades = folder / "grades.csv"
    if not grades.is_file():
        return f"## Class grades\n\nNo `{grades}`: the batch did not finish (see the job log).\n"
    with open(grades, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    if not rows:
        return "## Class grades\n\n`grades.csv` lists no submission.\n"
    columns = list(rows[0].keys())
    key = columns[0]  # the student's name ("name" or "student")
    for row in rows:
        row["name"] = row[key]
    docs = {row["name"]: _results(folder, row["name"]) for row in rows}
    maxima: Dict[str, float] = {}
    for doc in docs.values():
        for pid, p in (doc.get("extra_data", {}).get("problems") or {}).items():
            maxima[pid] = max(maxima.get(pid, 0.0), float(p.get("max_score") or 0.0))
    max_total = sum(maxima.values()) or None
    problems = [c for c in columns[1:] if c in maxima] or [c for c in columns[1:] if c not in NOT_PROBLEMS]

    totals = [t for t in (_num(r.get("total")) for r in rows) if t is not None]
    out: List[str] = ["## Class grades", ""]
    if totals:
        of = f" / {max_total:g}" if max_total else ""
        out.append(f"**{len(rows)}** submissions · mean **{statistics.mean(totals):.1f}{of}** · "
                   f"median {statistics.median(totals):g} · min {min(totals):g} · max {max(totals):g}")
        out.append("")
    if problems:
        out += ["| problem | mean | max | full marks |", "|---|---:|---:|---:|"]
        for pid in problems:
            values = [v for v in (_num(r.get(pid)) for r in rows) if v is not None]
            top = maxima.get(pid)
            full = sum(1 for v in values if top is not None and v >= top)
            mean = f"{statistics.mean(values):.1f}" if values else "–"
            top_text = f"{top:g}" if top is not None else "–"
            full_text = f"{full} / {len(rows)}" if top is not None else "–"
            out.append(f"| {_cell(pid)} | {mean} | {top_text} | {full_text} |")
        out.append("")

    found = Counter(m for doc in docs.values() for m in doc.get("extra_data", {}).get("misconceptions", []))
    if found:
        out += ["### Misconceptions", "", "| misconception | submissions |", "|---|---:|"]
        out += [f"| `{_cell(m)}` | {n} |" for m, n in found.most_common()]
        out.append("")

    errors = {name: doc.get("extra_data", {}).get("errors", []) for name, doc in docs.items()}
    missing = [name for name, doc in docs.items() if not doc]
    if missing:
        out += [f"**No results.json for:** {', '.join(_cell(n) for n in missing)}", ""]

    out += ["### Students", "", "| student | total | " + " | ".join(_cell(p) for p in problems) + " | notes |",
            "|---|---:|" + "---:|" * len(problems) + "---|"]
    for row in sorted(rows, key=lambda r: r["name"])[:MAX_ROWS]:
        doc = docs[row["name"]]
        notes = ", ".join(f"`{m}`" for m in doc.get("extra_data", {}).get("misconceptions", []))
        if errors.get(row["name"]):
            notes = (notes + "; " if notes else "") + f"{len(errors[row['name']])} error(s)"
        cells = " | ".join(_cell(row.get(p, "")) for p in problems)
        out.append(f"| {_cell(row['name'])} | {_cell(row.get('total', ''))} | {cells} | {notes} |")
    if len(rows) > MAX_ROWS:
        out.append(f"\n… and {len(rows) - MAX_ROWS} more: see grades.csv in the artifact.")
    out += ["", "Per-student reports and the class report (`index.html`) are in the job's artifact."]
    return "\n".join(out) + "\n"


def main(argv: List[str]) -> int:
    folder = Path(argv[1] if len(argv) > 1 else "grading")
    try:
        text = summary(folder)
    except Exception as exc:  # a summary must never hide the artifact or fail the job
        text = f"## Class grades\n\nCould not summarise `{folder}`: {type(exc).__name__}: {exc}\n"
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
