"""Student-derived text at the grader's edges (issue 10): escape sequences, control characters and lone
surrogates in exception messages and in submission names never reach the CLI, results.json,
junit.xml, the gradebook, grades.csv or the HTML reports verbatim; spreadsheet formulas in names are
neutralised; a deep folder chain does not hide a submission's files.

Every submission here is graded once (module-scoped fixtures): grading the reference takes seconds.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import xml.etree.ElementTree as ET
import zipfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Iterator, List
from urllib.parse import unquote, urlsplit

import pytest
from click.testing import CliRunner

import hostile_kit as k
from graders import results
from graders.cli import main
from graders.gradebook import Gradebook, GradedSubmission
from graders.gradebook_api import grades_csv
from graders.results import GradeResult, ProblemResult
from graders.submissions import submission_name

#: the exception message of tests/files/hostile/text_escape.py
ATTACK = "\x1b]0;pwned\x07\x1b[2J\x00\x01\x7f\x9b ok"
#: its visible replacement (safetext's convention: Python's backslash escapes)
SHOWN = "\\x1b]0;pwned\\x07\\x1b[2J\\x00\\x01\\x7f\\x9b ok"
#: a submission folder named with escape sequences and a newline
EVIL_NAME = "stu\x1b]0;pwned\x07dent\x1b[2J\nFAKE"
#: folder names a spreadsheet would run as formulas ('/' cannot be in a folder name)
FORMULA_NAMES = ["=1+1", "+41+1", "-2+3", "@SUM(A1)", '=HYPERLINK("http:x")', "\tname", "\rname", "\uff1d1+1"]
#: first characters OWASP lists (plus the fullwidth forms)
DANGEROUS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
PROBLEMS = ["autodiff", "ops"]
#: the red team's: escapes to over 255 bytes (stopped every batch with ENAMETOOLONG), and two names
#: that escape alike (a real control character and its escape typed as text: refused the whole batch)
ODD_NAMES = ["\x01" * 64, "\u202e" * 60 + "x", "a\x01", "a\\x01"]


def bad_chars(text: str) -> List[str]:
    """The characters of `text` that are C0 (but newline and tab), DEL, C1 or surrogates."""
    return sorted({c for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F
                   or 0xD800 <= ord(c) <= 0xDFFF})


def strings(value) -> Iterator[str]:
    """Every string in a JSON document, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def attacked_files(snippet: str, problems) -> dict:
    """The reference files of `problems`, each raising the snippet's message on its first probed call."""
    return {k.FILES[p]: k.compose(k.source("reference", k.FILES[p]), k.FILES[p], snippet, when="call")
            for p in problems}


# ------------------------------------------------------------------ `autograde grade`


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """`autograde grade` of a folder named EVIL_NAME whose backpropagate and Neg.forward raise ATTACK."""
    root = tmp_path_factory.mktemp("text")
    sub = k.build(root / EVIL_NAME, attacked_files("text_escape", PROBLEMS))
    out = root / "out"
    run = CliRunner().invoke(main, ["grade", str(sub), "--out", str(out), "--problems", ",".join(PROBLEMS),
                                    "--offering", k.FULL_OFFERING])
    return run, out


def test_grade_cli_prints_printable_text_with_the_visible_replacement(graded):
    run, _ = graded
    assert run.exit_code == 0, (run.output[-2000:], run.exception)
    assert bad_chars(run.output) == []
    assert "stu\\x1b]0;pwned\\x07dent\\x1b[2J\\nFAKE" in run.output  # the name, on one line
    assert not any(line.startswith("FAKE") for line in run.output.splitlines())


def test_results_json_holds_only_printable_strings(graded):
    _run, out = graded
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    found = [s for s in strings(doc) if bad_chars(s)]
    assert found == [], found[:3]
    outputs = [t["output"] for t in doc["tests"] if t["status"] == "failed"]
    # both problems crashed on the message; the student reads it, escaped
    assert {t["extra_data"]["problem"] for t in doc["tests"] if SHOWN in t["output"]} == set(PROBLEMS), outputs[:2]
    assert doc["extra_data"]["submission"] == "stu\\x1b]0;pwned\\x07dent\\x1b[2J\\nFAKE"


def test_junit_xml_is_well_formed_and_shows_the_replacement(graded):
    _, out = graded
    text = (out / "junit.xml").read_text(encoding="utf-8")
    tree = ET.fromstring(text)  # raises on NUL, ESC, BEL, ... in the old writer's output
    failures = list(tree.iter("failure"))
    assert failures and any(SHOWN in (f.text or "") and SHOWN in f.get("message", "") for f in failures)
    assert all(bad_chars(f.text or "") == [] for f in failures)


def test_html_report_shows_the_replacement_and_no_control_character(graded):
    _, out = graded
    html = (out / "report.html").read_text(encoding="utf-8")
    assert bad_chars(html) == []
    assert "\\x1b]0;pwned\\x07" in html


# ------------------------------------------------------------------ `autograde batch`


def _empty(path: Path) -> Path:
    path.mkdir(parents=True)
    return path


@pytest.fixture(scope="module")
def batched(tmp_path_factory):
    """`autograde batch` of: EVIL_NAME (autodiff raising a lone surrogate and a bidi override), and empty
    folders named like spreadsheet formulas (graded without a child: "the submission is empty")."""
    root = tmp_path_factory.mktemp("textbatch")
    subs = root / "subs"
    k.build(subs / EVIL_NAME, attacked_files("text_surrogate", ["autodiff"]))
    for name in FORMULA_NAMES + ODD_NAMES:
        _empty(subs / name)
    (subs / "stray\x1b[2J.txt").write_text("not a submission")
    out = root / "out"
    run = CliRunner().invoke(main, ["batch", str(subs), "--out", str(out), "--problems", "autodiff", "--offering",
                                    k.FULL_OFFERING, "--jobs", "1", "--no-progress", "--allow-weak-sandbox"])
    return run, out


def test_batch_summary_is_printable(batched):
    run, _ = batched
    assert run.exit_code == 0, (run.output[-2000:], run.exception)
    assert bad_chars(run.output) == [] and "\u202e" not in run.output
    assert "stray\\x1b[2J.txt" in run.output
    for name in ("\tname", "\rname"):  # one line each, escaped
        assert f"  {submission_name(name)} [error]" in run.output and submission_name(name).startswith("\\")


def test_odd_names_get_short_distinct_output_folders_and_the_class_report(batched):
    _run, out = batched
    names = {p.name for p in out.iterdir() if p.is_dir()}
    odd = [submission_name(n) for n in ODD_NAMES]
    assert len(set(odd)) == len(ODD_NAMES) and set(odd) <= names, (odd, names)
    assert max(len(n.encode()) for n in names) < 255 and "a\\x01" in names  # a printable name stays as it is
    assert (out / "index.html").is_file() and (out / "grades.csv").is_file()


def test_batch_outputs_are_printable_and_the_xml_well_formed(batched):
    _, out = batched
    folders = [p for p in out.iterdir() if p.is_dir()]
    assert all(bad_chars(p.name) == [] for p in folders)
    (evil,) = [p for p in folders if p.name.startswith("stu")]
    assert evil.name == submission_name(EVIL_NAME) and evil.name.startswith("stu\\x1b]0;pwned\\x07dent\\x1b[2J\\nFAKE-")
    ET.parse(evil / "junit.xml")
    doc = json.loads((evil / "results.json").read_text(encoding="utf-8"))
    assert [s for s in strings(doc) if bad_chars(s) or "\u202e" in s] == []
    assert any("\\ud800 lone \\u202eevil" in t["output"] for t in doc["tests"])
    for page in (out / "index.html", evil / "report.html", out / "grades.csv"):
        assert bad_chars(page.read_text(encoding="utf-8")) == [], page
    with sqlite3.connect(out / "gradebook.sqlite") as db:
        texts = [v for row in db.execute("SELECT name, error FROM submissions UNION ALL "
                                         "SELECT name, message FROM test_scores") for v in row]
    assert texts and [t for t in texts if bad_chars(t)] == []


def _csv_rows(out: Path) -> List[List[str]]:
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def test_grades_csv_neutralises_formulas_and_keeps_names_recognisable(batched):
    _, out = batched
    rows = _csv_rows(out)
    cells = [c for row in rows for c in row]
    assert [c for c in cells if c.startswith(DANGEROUS)] == []
    students = {row[0] for row in rows[1:]}
    for name in FORMULA_NAMES:
        if name[0] in "\t\r":  # escaped visibly: starts with a backslash, safe as it is
            assert submission_name(name) in students and submission_name(name).startswith("\\" + {"\t": "t", "\r": "r"}[name[0]] + name[1:])
        else:
            assert "'" + name in students
    for row in rows[1:]:  # scores stay numbers
        float(row[1]), float(row[2])


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: List[str] = []

    def handle_starttag(self, tag, attrs):
        self.hrefs += [v for a, v in attrs if a == "href" and v]


def test_class_report_lists_every_student_and_its_links_resolve(batched):
    _, out = batched
    parser = _Links()
    parser.feed((out / "index.html").read_text(encoding="utf-8"))
    reports = {unquote(urlsplit(h).path) for h in parser.hrefs if h.endswith("report.html")}
    assert len(reports) == len(FORMULA_NAMES) + len(ODD_NAMES) + 1
    assert all((out / r).is_file() for r in reports), reports


# ------------------------------------------------------------------ the gradebook on its own


def _result(name: str, points: float) -> GradeResult:
    test = results.TestResult("autodiff", "t1", "=cmd|' /C calc'!A0", "unit", 2.0, points, "-1+1 \x1b[2J")
    return GradeResult(name, [ProblemResult("autodiff", "Autodiff", [test])], content_hash=f"h-{name}")


def test_grades_csv_from_the_gradebook_quotes_text_never_numbers(tmp_path):
    names = ['=HYPERLINK("http://x")', "@SUM(A1)", "-2+3", "plain"]
    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        for index, name in enumerate(names):
            res = _result(name, -1.0 if name == "plain" else 2.0)  # a negative score never occurs, but stays a number
            book.record(GradedSubmission(name=name, source=name, content_hash=res.content_hash, problems="autodiff",
                                         seed=1, grader_version="v", result=res, started_at=1.0,
                                         finished_at=2.0 + index))
        rows = list(csv.reader(io.StringIO(grades_csv(book))))
    assert rows[0] == ["student", "total", "max_total", "autodiff", "status"]
    by_name = {row[0]: row for row in rows[1:]}
    assert set(by_name) == {"'" + n for n in names[:3]} | {"plain"}
    assert by_name["plain"][1:4] == ["-1", "2", "-1"]
    assert by_name["'-2+3"][1:4] == ["2", "2", "2"]


def test_gradescope_results_and_stdout_are_printable(tmp_path, monkeypatch, capsys):
    import graders.grade
    from graders import gradescope

    (tmp_path / "submission").mkdir()
    fake = _result("submission", 0.0)
    fake.problems[0].tests[0].message = ATTACK + " \ud800"
    fake.problems[0].errors = [ATTACK]
    monkeypatch.setattr(graders.grade, "grade_submission", lambda source, options, name=None: fake)
    assert gradescope.run(tmp_path) == 0
    doc = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    assert [s for s in strings(doc) if bad_chars(s)] == []
    assert SHOWN in doc["tests"][0]["output"] and "\\ud800" in doc["tests"][0]["output"]
    printed = capsys.readouterr()
    assert bad_chars(printed.out + printed.err) == [] and SHOWN in printed.out


def test_safetext_convention():
    from graders.safetext import csv_cell, one_line, printable

    assert printable(ATTACK) == SHOWN
    assert printable("a\n\tb\r") == "a\n\tb\\r"
    assert one_line("a\n\tb") == "a\\n\\tb"
    assert printable("\ud800\u202e\ufffe") == "\\ud800\\u202e\\ufffe"
    assert printable(SHOWN) == SHOWN  # idempotent
    assert printable("héllo → ✓ 日本") == "héllo → ✓ 日本"  # printable Unicode untouched
    assert [csv_cell(v) for v in ("=1", "+1", "-1", "@a", "\tx", "ok", 2.0, -1.5, 3)] == \
        ["'=1", "'+1", "'-1", "'@a", "\\tx", "ok", "2", "-1.5", "3"]


# ------------------------------------------------------------------ a deep folder chain

DEPTH = 1500


def make_chain(root: Path, depth: int, name: str = "d") -> None:
    """`depth` nested folders under root, made relative to an open folder (no path ever exceeds PATH_MAX)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)


def remove_chain(root: Path, depth: int, name: str = "d") -> None:
    """Remove what `make_chain` made, without recursion (shutil.rmtree recurses once per level)."""
    fds = [os.open(root, os.O_RDONLY | os.O_DIRECTORY)]
    try:
        for _ in range(depth - 1):
            fds.append(os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fds[-1]))
        while fds:
            os.rmdir(name, dir_fd=fds[-1])
            os.close(fds.pop())
    finally:
        for fd in fds:
            os.close(fd)


@pytest.fixture(scope="module")
def deep(tmp_path_factory):
    """The reference files of PROBLEMS next to a DEPTH-deep empty folder chain, graded once."""
    root = tmp_path_factory.mktemp("deep")
    sub = k.build(root / "deep", k.with_reference({}, PROBLEMS))
    make_chain(sub, DEPTH)
    try:
        yield k.grade(sub, PROBLEMS)
    finally:
        remove_chain(sub, DEPTH)


def test_a_deep_folder_chain_does_not_hide_the_files(deep):
    assert deep.errors == []
    for pid in PROBLEMS:
        k.assert_normal(deep, pid)
    (warning,) = [w for w in deep.warnings if "folders deep" in w]
    assert "skipped the folder d/d/d/" in warning


def test_gradescope_finds_the_uploaded_zip_next_to_a_deep_chain(tmp_path):
    from graders.gradescope import submission_source

    folder = tmp_path / "submission"
    folder.mkdir()
    with zipfile.ZipFile(folder / "hw.zip", "w") as archive:
        archive.writestr("minitorch/autodiff.py", "x = 1\n")
    make_chain(folder, DEPTH)
    try:
        assert submission_source(folder) == folder / "hw.zip"
    finally:
        remove_chain(folder, DEPTH)
