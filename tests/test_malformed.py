"""Malformed submissions (issue 6): grading always completes (CLI exit 0), the broken file's problem scores 0
(or loses only the broken symbols) with a message naming the file and, where there is one, the line, and the
other problems are graded normally. Nothing is ever followed or written outside the submission.

Archives are built here, in code, so each test shows exactly what is inside.
"""

from __future__ import annotations

import json
import os
import stat
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

import hostile_kit as k
from graders.cli import main
from graders.intake import MAX_ENTRIES, MAX_FILE_BYTES

AD, OPS, NET = k.FILES["autodiff"], k.FILES["ops"], k.FILES["network"]
REF = {rel: k.source("reference", rel) for rel in (AD, OPS, NET)}


def offering_with(problems) -> str:
    """An offering grading all of `problems` (`ops` is graded only where students write tensor_functions.py)."""
    from graders.offering import load_offerings

    default, offerings = load_offerings()
    ids = [default] + [oid for oid in offerings if oid != default]
    return next(oid for oid in ids if set(problems) <= set(offerings[oid].points))


def cli_grade(submission: Path, out: Path, problems=("ops", "network")):
    """`autograde grade` in-process; returns the results.json document (exit code 0 asserted)."""
    run = CliRunner().invoke(main, ["grade", str(submission), "--out", str(out), "--problems", ",".join(problems),
                                    "--offering", offering_with(problems)])
    assert run.exit_code == 0, (run.exit_code, run.output[-2000:], run.exception)
    return json.loads((out / "results.json").read_text())


def problem_doc(doc, pid):
    tests = [t for t in doc["tests"] if t["extra_data"]["problem"] == pid]
    totals = doc["extra_data"]["problems"][pid]
    return totals["score"], totals["max_score"], tests


def full(doc, pid):
    """Every test passed (the total within rounding: an offering scales points, e.g. 30/29 per test)."""
    score, top, tests = problem_doc(doc, pid)
    assert all(t["status"] == "passed" for t in tests), (pid, [t["output"] for t in tests if t["status"] != "passed"][:3])
    assert abs(score - top) < 1e-3, (pid, score, top)


def zero_saying(doc, pid, *words):
    """The problem scored 0 and every test (and the errors) says all of `words`."""
    score, _, tests = problem_doc(doc, pid)
    assert score == 0
    for t in tests:
        for word in words:
            assert word in t["output"], (word, t["output"])
    errors = " ".join(doc["extra_data"]["errors"])
    for word in words:
        assert word in errors, (word, errors)


def make_zip(path: Path, entries, compression=zipfile.ZIP_DEFLATED):
    """entries: (name, bytes | str) or (name, bytes, unix mode) tuples, written in order."""
    with zipfile.ZipFile(path, "w", compression) as archive:
        for entry in entries:
            name, data = entry[0], entry[1]
            info = zipfile.ZipInfo(name)
            info.compress_type = compression
            mode = entry[2] if len(entry) > 2 else (stat.S_IFREG | 0o644)
            info.external_attr = mode << 16
            archive.writestr(info, data)
    return path


def ref_entries(prefix="", rels=(OPS, NET)):
    return [(prefix + rel, REF[rel]) for rel in rels]


# ----------------------------------------------------------------- paths out of the submission


def test_zip_slip_and_absolute_paths_are_refused(tmp_path):
    tok = k.token()
    sub = make_zip(tmp_path / "slip.zip", ref_entries() + [
        (f"../{tok}-evil.py", "print('escaped')"),
        (f"../../{tok}-evil.py", "print('escaped')"),
        (f"/tmp/{tok}-abs/minitorch/autodiff.py", "raise SystemExit"),
        (f"minitorch/../../{tok}-x.py", "x = 1"),
        (f"C:/{tok}/win.py", "x = 1"),
        (f"..\\{tok}-backslash.py", "x = 1"),
    ])
    doc = cli_grade(sub, tmp_path / "out")
    full(doc, "ops")
    full(doc, "network")
    notes = " ".join(doc["extra_data"]["warnings"])
    assert notes.count("refused archive entry") >= 5, notes
    assert not k.files_named(tok, [tmp_path.parent, Path("/tmp"), k.ROOT, Path.cwd()])


def test_symlinks_in_a_folder_are_never_followed(tmp_path):
    sub = tmp_path / "links"
    (sub / "minitorch").mkdir(parents=True)
    (sub / "project").mkdir()
    os.symlink("/etc/passwd", sub / OPS)
    os.symlink(k.REFERENCE / NET, sub / NET)  # the reference solution itself
    doc = cli_grade(sub, tmp_path / "out")
    zero_saying(doc, "ops", OPS, "symbolic link")
    zero_saying(doc, "network", NET, "symbolic link")


def test_a_symlinked_folder_is_not_entered(tmp_path):
    sub = tmp_path / "linkdir"
    sub.mkdir()
    os.symlink(k.REFERENCE / "minitorch", sub / "minitorch")  # the whole reference package
    (sub / "project").mkdir()
    (sub / NET).write_text(REF[NET])
    doc = cli_grade(sub, tmp_path / "out")
    zero_saying(doc, "ops", OPS, "missing")
    full(doc, "network")


def test_a_symlinked_submission_is_refused(tmp_path):
    real = k.build(tmp_path / "real", {OPS: REF[OPS], NET: REF[NET]})
    os.symlink(real, tmp_path / "alias")
    doc = cli_grade(tmp_path / "alias", tmp_path / "out")
    assert doc["score"] == 0
    assert any("symbolic link" in e for e in doc["extra_data"]["errors"])


def test_symlinks_inside_a_zip_are_never_followed(tmp_path):
    link = stat.S_IFLNK | 0o777
    sub = make_zip(tmp_path / "links.zip", [
        (OPS, "/etc/passwd", link),
        (NET, str(k.REFERENCE / NET), link),
    ])
    doc = cli_grade(sub, tmp_path / "out")
    zero_saying(doc, "ops", OPS, "symbolic link")
    zero_saying(doc, "network", NET, "symbolic link")


def test_a_fifo_is_not_read(tmp_path):
    """A named pipe at a contract path would block a reader forever."""
    sub = tmp_path / "fifo"
    (sub / "minitorch").mkdir(parents=True)
    os.mkfifo(sub / OPS)
    k.build(sub, {NET: REF[NET]})
    doc = cli_grade(sub, tmp_path / "out")
    zero_saying(doc, "ops", OPS, "not a regular file")
    full(doc, "network")


# ----------------------------------------------------------------- sizes and counts


def test_zip_bomb_ratio_is_refused_and_junk_is_never_inflated(tmp_path):
    bomb = REF[OPS] + "\n#" + " " * (MAX_FILE_BYTES - len(REF[OPS]) - 100) + "\n"  # just under the size cap
    sub = make_zip(tmp_path / "bomb.zip", [
        (OPS, bomb),
        (NET, REF[NET]),
        ("data/zeros.bin", b"\0" * (256 << 20)),  # 256 MiB of zeros: not a contract file, never read
    ])
    assert sub.stat().st_size < 2 << 20
    doc = cli_grade(sub, tmp_path / "out")
    zero_saying(doc, "ops", OPS, "compression ratio")
    full(doc, "network")


@pytest.mark.parametrize("container", ["folder", "zip"])
def test_oversized_file_is_refused(tmp_path, container):
    import random

    rng = random.Random(1)  # incompressible filler: the size cap, not the ratio, must refuse it
    filler = "".join(f"# {rng.getrandbits(256):x}\n" for _ in range(MAX_FILE_BYTES // 60))
    big = REF[OPS] + filler
    assert len(big) > MAX_FILE_BYTES
    if container == "folder":
        sub = k.build(tmp_path / "big", {OPS: big, NET: REF[NET]})
    else:
        sub = make_zip(tmp_path / "big.zip", [(OPS, big), (NET, REF[NET])])
    doc = cli_grade(sub, tmp_path / "out")
    zero_saying(doc, "ops", OPS, "bytes")
    full(doc, "network")


@pytest.mark.parametrize("container", ["folder", "zip"])
def test_too_many_entries(tmp_path, container):
    junk = [(f"junk/{i}.txt", "x") for i in range(MAX_ENTRIES + 1)]
    if container == "folder":
        sub = k.build(tmp_path / "many", {OPS: REF[OPS], NET: REF[NET]}, dict(junk))
    else:
        sub = make_zip(tmp_path / "many.zip", ref_entries() + junk, zipfile.ZIP_STORED)
    doc = cli_grade(sub, tmp_path / "out")
    assert doc["score"] == 0
    assert any(str(MAX_ENTRIES) in e for e in doc["extra_data"]["errors"]), doc["extra_data"]["errors"]


# ----------------------------------------------------------------- layout


def test_a_nested_archive_is_ignored(tmp_path):
    inner = make_zip(tmp_path / "inner.zip", ref_entries())
    only_inner = make_zip(tmp_path / "nested.zip", [("inner.zip", inner.read_bytes())])
    doc = cli_grade(only_inner, tmp_path / "out1")
    zero_saying(doc, "ops", OPS, "missing")
    zero_saying(doc, "network", NET, "missing")
    buggy_inner = make_zip(tmp_path / "buggy_inner.zip", [(OPS, "raise SystemExit('inner zip ran')\n")])
    beside = make_zip(tmp_path / "beside.zip", ref_entries() + [("old/attempt.zip", buggy_inner.read_bytes())])
    doc = cli_grade(beside, tmp_path / "out2")
    full(doc, "ops")
    full(doc, "network")


@pytest.mark.parametrize("container", ["folder", "zip"])
def test_wrapping_folders_are_unwrapped(tmp_path, container):
    entries = ref_entries("hw2-submission/inner/") + [("__MACOSX/hw2-submission/._tensor_functions.py", "\0\x05junk")]
    if container == "folder":
        sub = k.build(tmp_path / "wrapped", {name: text for name, text in entries if "__MACOSX" not in name})
        (sub / "__MACOSX").mkdir()
        (sub / "__MACOSX" / "._x").write_bytes(b"\0junk")
    else:
        sub = make_zip(tmp_path / "wrapped.zip", entries)
    doc = cli_grade(sub, tmp_path / "out")
    full(doc, "ops")
    full(doc, "network")


# ----------------------------------------------------------------- unusable Python


def test_non_utf8_file_names_file_and_line(tmp_path):
    lines = REF[OPS].encode().split(b"\n")
    lines[6] = lines[6] + b"  # caf\xe9 (latin-1)"
    sub = k.build(tmp_path / "latin1", {NET: REF[NET]})
    (sub / OPS).parent.mkdir(parents=True, exist_ok=True)
    (sub / OPS).write_bytes(b"\n".join(lines))
    doc = cli_grade(sub, tmp_path / "out")
    zero_saying(doc, "ops", f"{OPS}:7", "UTF-8")
    full(doc, "network")


def test_binary_file(tmp_path):
    sub = k.build(tmp_path / "binary", {NET: REF[NET]})
    (sub / OPS).parent.mkdir(parents=True, exist_ok=True)
    (sub / OPS).write_bytes(b"\x7fELF\x02\x01\x01\0\0\0" + os.urandom(4000))
    doc = cli_grade(sub, tmp_path / "out")
    zero_saying(doc, "ops", OPS, "binary")
    full(doc, "network")


@pytest.mark.parametrize("broken", [OPS, NET])
def test_syntax_error_names_file_and_line(tmp_path, broken):
    lines = REF[broken].split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("class ")) + 1
    lines.insert(at, "    def oops(:")
    files = {OPS: REF[OPS], NET: REF[NET], broken: "\n".join(lines)}
    doc = cli_grade(k.build(tmp_path / "syntax", files), tmp_path / "out")
    bad, good = ("ops", "network") if broken == OPS else ("network", "ops")
    zero_saying(doc, bad, f"{broken}:{at + 1}", "SyntaxError")
    full(doc, good)


def test_wrong_signatures_fail_with_a_type_error(tmp_path):
    wrong = (
        "def topological_sort():\n"
        "    return []\n\n\n"
        "def backpropagate(variable):\n"
        "    pass\n"
    )
    doc = cli_grade(k.build(tmp_path / "sig", {AD: wrong, OPS: REF[OPS]}), tmp_path / "out", ("autodiff", "ops"))
    score, _, tests = problem_doc(doc, "autodiff")
    assert score == 0
    text = " ".join(t["output"] for t in tests)
    assert "TypeError" in text and "positional argument" in text, text[:500]
    full(doc, "ops")


def test_a_missing_class_costs_only_its_tests(tmp_path):
    text = REF[OPS]
    start = text.index("class Sigmoid(Function):")
    end = text.index("\nclass ", start + 1)
    sub = k.build(tmp_path / "nosigmoid", {OPS: text[:start] + text[end + 1:], NET: REF[NET]})
    doc = cli_grade(sub, tmp_path / "out")
    score, top, tests = problem_doc(doc, "ops")
    failed = {t["name"].split("]")[1].strip().split(".")[0] for t in tests if t["status"] != "passed"}
    assert failed == {"Sigmoid"}, failed
    assert 0 < score < top
    assert all("Sigmoid" in t["output"] for t in tests if t["status"] != "passed")
    assert any("Sigmoid" in e and OPS in e for e in doc["extra_data"]["errors"]), doc["extra_data"]["errors"]
    full(doc, "network")


# ----------------------------------------------------------------- not a submission at all


@pytest.mark.parametrize("kind", ["empty folder", "empty zip", "only junk"])
def test_empty_submission(tmp_path, kind):
    if kind == "empty folder":
        sub = tmp_path / "empty"
        sub.mkdir()
    elif kind == "empty zip":
        sub = make_zip(tmp_path / "empty.zip", [])
    else:
        sub = make_zip(tmp_path / "junk.zip", [("__MACOSX/._x", "junk"), (".git/config", "[core]")])
    doc = cli_grade(sub, tmp_path / "out")
    assert doc["score"] == 0
    assert any("empty" in e for e in doc["extra_data"]["errors"]), doc["extra_data"]["errors"]


@pytest.mark.parametrize("content", [b"this is not a zip\n", b"%PDF-1.4\n%\xe2\xe3\n", "truncated"])
def test_a_file_that_is_not_a_zip(tmp_path, content):
    if content == "truncated":
        content = make_zip(tmp_path / "whole.zip", ref_entries()).read_bytes()[:200]
    sub = tmp_path / "submission.zip"
    sub.write_bytes(content)
    doc = cli_grade(sub, tmp_path / "out")
    assert doc["score"] == 0
    assert any("neither a folder nor a zip" in e or "zip" in e.lower() for e in doc["extra_data"]["errors"])
    for pid in ("ops", "network"):
        score, _, tests = problem_doc(doc, pid)
        assert score == 0 and tests


def test_an_out_folder_that_cannot_be_written_is_said_before_grading(tmp_path, monkeypatch):
    """`grade --out` under a regular file: a usage error naming the folder, before any grading (no traceback)."""
    from graders import cli

    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setattr("graders.grade.grade_submission", lambda *a, **k: pytest.fail("graded anyway"))
    result = CliRunner().invoke(main, ["grade", str(tmp_path), "--out", str(blocker / "results")])
    assert result.exit_code == 2 and "cannot write there" in result.output and "a-file" in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert cli._check_writable(tmp_path / "fine" / "deeper") is None and (tmp_path / "fine" / "deeper").is_dir()
