"""Similarity screening (`autograde similarity`, graders/similarity/): copies found through
renaming, reordering and dead code; given code excluded; bad input skipped; batch runs it and the
class report lists what needs attention."""

from __future__ import annotations

import csv
import random
import shutil
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

import similarity_class as sc
from graders import batch as batch_module
from graders import similarity
from graders.batch import BatchOptions, current_grader_version, run_batch
from graders.cli import main
from graders.faults import INJECT_ENV
from graders.gradebook import Gradebook
from graders.offering import get_offering, offering_problems
from graders.results import GradeResult
from graders.score import failed_problem
from graders.similarity import screen_class
from graders.similarity.fingerprints import kgram_hashes, units_of, winnow
from reports.similarity_report import write_similarity_outputs

COPIES = ("copy_renamed", "copy_reordered", "copy_everything")
ORIGINAL = "ind_kahn"
FAMILY = {ORIGINAL, *COPIES}


def zip_folder(folder: Path) -> Path:
    """`folder` as FOLDER.zip holding one wrapping folder (as students zip their work); the folder is removed."""
    target = folder.with_name(folder.name + ".zip")
    with zipfile.ZipFile(target, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, f"{folder.name}/{path.relative_to(folder).as_posix()}")
    shutil.rmtree(folder)
    return target


@pytest.fixture(scope="module")
def class_dir(tmp_path_factory) -> Path:
    """Five independent solutions, three disguised copies of one (the last one zipped), the starter."""
    root = tmp_path_factory.mktemp("similarity") / "class"
    for name in sc.INDEPENDENT:
        sc.write_files(root / name, sc.solution(name))
    original = sc.solution(ORIGINAL)
    sc.write_files(root / "copy_renamed", sc.disguised(original, reorder=False, dead_code=False))
    sc.write_files(root / "copy_reordered", sc.disguised(original, rename=False, strip=False))
    zip_folder(sc.write_files(root / "copy_everything", sc.disguised(original)))
    sc.write_files(root / "starter", sc.template_files())
    return root


@pytest.fixture(scope="module")
def screened(class_dir):
    return screen_class(class_dir)


def test_disguised_copies_rank_above_every_independent_pair(screened):
    scores = {frozenset((p.a, p.b)): p.score for p in screened.pairs}
    assert len(scores) == 9 * 8 // 2
    copies = {pair: s for pair, s in scores.items() if pair <= FAMILY}
    others = {pair: s for pair, s in scores.items() if not pair <= FAMILY}
    assert len(copies) == 6
    assert min(copies.values()) > max(others.values()), (copies, sorted(others.values())[-3:])
    threshold = screened.settings.threshold
    assert min(copies.values()) >= threshold and max(others.values()) < threshold / 2
    assert {frozenset((p.a, p.b)) for p in screened.flagged} == set(copies)
    ranked = [frozenset((p.a, p.b)) for p in screened.pairs]
    assert set(ranked[:6]) == set(copies)  # the copies come first in the ranking


def _pairs(result):
    return [(p.a, p.b, p.score, p.shared, p.share_a, p.share_b, p.file) for p in result.pairs]


def test_workers_fingerprint_the_class_exactly_as_one_process(class_dir, screened, monkeypatch):
    """A class fingerprinted by two spawned workers (PARALLEL_FROM lowered for the test) gets the documents and
    pairs of one process: a document depends on its submission alone."""
    taken = []
    in_workers = similarity._fingerprint_in_workers
    monkeypatch.setattr(similarity, "PARALLEL_FROM", 2)
    monkeypatch.setattr(similarity, "cores", lambda: 2)
    monkeypatch.setattr(similarity, "_fingerprint_in_workers", lambda *a: taken.append(a[-1]) or in_workers(*a))
    parallel = screen_class(class_dir, jobs=2)
    assert taken == [2]
    assert parallel.documents == screened.documents and _pairs(parallel) == _pairs(screened)
    assert parallel.notes == screened.notes


def test_workers_that_cannot_start_leave_the_class_to_one_process(class_dir, screened, monkeypatch, capsys):
    """The same result, later, and a line on stderr (no note among the skipped files: none was)."""
    monkeypatch.setattr(similarity, "PARALLEL_FROM", 2)
    monkeypatch.setattr(similarity, "cores", lambda: 2)
    monkeypatch.setenv(INJECT_ENV, "similarity-worker")
    fallback = screen_class(class_dir, jobs=2)
    assert fallback.documents == screened.documents and _pairs(fallback) == _pairs(screened)
    assert fallback.notes == screened.notes
    said = capsys.readouterr().err
    assert "autograde: the similarity workers failed (BrokenProcessPool" in said and "one process instead" in said


def test_workers_run_nothing_from_the_folder_the_command_runs_in(class_dir, screened, monkeypatch, tmp_path):
    """A spawned worker (and the pool's resource tracker) starts with `python -c`, which puts the current folder
    first on its path: a `selectors.py` there (the standard library's name, which they import) would run in them.
    They start without it (and at most one worker per core: asked for 48, two run here)."""
    folder = tmp_path / "where_the_ta_is"
    folder.mkdir()
    marker = tmp_path / "ran"
    (folder / "selectors.py").write_text(f"open({str(marker)!r}, 'w').close()\nraise ImportError('not the stdlib')\n")
    monkeypatch.chdir(folder)
    monkeypatch.setattr(similarity, "PARALLEL_FROM", 2)
    monkeypatch.setattr(similarity, "cores", lambda: 2)
    taken = []
    in_workers = similarity._fingerprint_in_workers
    monkeypatch.setattr(similarity, "_fingerprint_in_workers", lambda *a: taken.append(a[-1]) or in_workers(*a))
    result = screen_class(class_dir, jobs=48)
    assert not marker.exists() and taken == [2]
    assert result.documents == screened.documents and _pairs(result) == _pairs(screened)


def test_starter_code_alone_scores_zero_against_everything(screened):
    starter = [p for p in screened.pairs if "starter" in (p.a, p.b)]
    assert len(starter) == 8 and max(p.score for p in starter) < 0.1
    assert next(d for d in screened.documents if d.name == "starter").prints == {}


def test_fingerprints_ignore_names_comments_docstrings_formatting_and_order():
    original = sc.solution("ind_recursive")[sc.AUTODIFF]
    commented = original.replace("visited.add(var.unique_id)", "visited.add(  var.unique_id )  # seen\n        # done")
    disguised = sc.disguise(commented, dead_code=False)
    assert disguised != original and "zq_" in disguised  # the disguise did rename
    tokens = {unit.name: toks for unit, toks, _ in units_of(original, sc.AUTODIFF)}
    assert tokens == {unit.name: toks for unit, toks, _ in units_of(disguised, sc.AUTODIFF)}
    assert list(tokens)[0] == "<module>" and "topological_sort" in tokens and "Context.save_for_backward" in tokens
    # a change of code does change them
    changed = original.replace("result.insert(0, var)", "result.append(var)")
    assert {u.name: t for u, t, _ in units_of(changed, sc.AUTODIFF)}["topological_sort"] != tokens["topological_sort"]


def test_winnowing_finds_every_shared_run_of_k_plus_w_minus_1_tokens():
    rng = random.Random(13)
    k, w = 8, 6
    for _ in range(200):
        shared = [rng.randrange(40) for _ in range(k + w - 1)]
        noise = [[rng.randrange(40) for _ in range(rng.randrange(60))] for _ in range(3)]
        a, b = noise[0] + shared + noise[1], noise[2] + shared
        ha, hb = kgram_hashes(a, k), kgram_hashes(b, k)
        assert {ha[i] for i in winnow(ha, w)} & {hb[i] for i in winnow(hb, w)}
        excluded = set(hb[: len(hb) // 2])
        assert not {hb[i] for i in winnow(hb, w, excluded)} & excluded
    assert winnow(kgram_hashes(list(range(k - 1)), k), w) == []  # shorter than k: never seen


def test_code_given_as_base_is_excluded(class_dir, tmp_path):
    base = sc.write_files(tmp_path / "starter-of-another-offering", sc.solution(ORIGINAL))
    result = screen_class(class_dir, bases=[base, tmp_path / "missing.py"])
    family = [p for p in result.pairs if {p.a, p.b} <= {ORIGINAL, "copy_renamed"}]
    assert family and family[0].score < 0.1
    assert any("missing.py" in note for note in result.notes)


def test_bad_input_is_skipped_with_a_note(tmp_path):
    root = tmp_path / "class"
    good = sc.solution("ind_depths")
    sc.write_files(root / "good", good)
    sc.write_files(root / "good_copy", sc.disguised(good))
    latin = sc.write_files(root / "latin", good)
    (latin / sc.AUTODIFF).write_bytes("# caf\u00e9\n".encode("latin-1") + good[sc.AUTODIFF].encode())
    broken = sc.write_files(root / "broken", good)
    (broken / sc.AUTODIFF).write_text(good[sc.AUTODIFF] + "\ndef oops(:\n    pass\n", encoding="utf-8")
    binary = sc.write_files(root / "binary", good)
    (binary / sc.AUTODIFF).write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4)
    (root / "empty").mkdir()
    (root / "notes.txt").write_text("not a submission")
    (root / "bad.zip").write_bytes(b"PK\x03\x04 not really a zip")

    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["similarity", str(root), "--out", str(out)])
    assert result.exit_code == 0, result.output
    html = (out / "similarity.html").read_text(encoding="utf-8")
    for expected in ("latin: minitorch/autodiff.py:1: not UTF-8", "broken: minitorch/autodiff.py:", "SyntaxError",
                     "binary: minitorch/autodiff.py is a binary file", "empty: the submission is empty",
                     "notes.txt: skipped", "bad: "):
        assert expected in html, expected
    with open(out / "similarity.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 7 * 6 // 2  # every submission is still a row of pairs, notes.txt is not one
    assert float(next(r for r in rows if (r["a"], r["b"]) == ("good", "good_copy"))["score"]) > 0.7
    # the readable file of a partly broken submission still counts: run_sentiment.py is the same as good's
    broken_pair = next(r for r in rows if {r["a"], r["b"]} == {"broken", "good"})
    assert float(broken_pair["score"]) > 0.9 and broken_pair["file"] == sc.SENTIMENT


def test_csv_and_page_are_safe_and_bounded(class_dir, tmp_path, monkeypatch):
    root = tmp_path / "class"
    shutil.copytree(class_dir, root)
    hostile = '=HYPERLINK("http://example.invalid","x")'
    shutil.move(root / "copy_renamed", root / hostile)
    shutil.move(root / "copy_reordered", root / "esc\x1b[31mape")
    import reports.similarity_report as page

    monkeypatch.setattr(page, "DETAIL_PAIRS", 2)
    result = screen_class(root)
    out = tmp_path / "out"
    summary = write_similarity_outputs(result, out)
    text = (out / "similarity.csv").read_text(encoding="utf-8")
    rows = list(csv.reader(text.splitlines()))
    assert rows[0] == ["a", "b", "score", "shared", "share_a", "share_b", "file"]
    cells = [c for row in rows[1:] for c in row]
    assert not any(c.startswith(("=", "+", "-", "@")) for c in cells)
    assert any(c.startswith("'=HYPERLINK") for c in cells) and "\x1b" not in text and "esc\\x1b[31mape" in text
    scores = [float(r[2]) for r in rows[1:]]
    assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)
    html = (out / "similarity.html").read_text(encoding="utf-8")
    assert html.count('<details class="pair"') == 2 and 'id="pair-1"' in html and 'id="pair-3"' not in html
    assert "<svg" in html and "\x1b" not in html and "<script" not in html
    assert 'class="hit"' in html  # matched lines are highlighted
    assert [f.anchor for f in summary.flagged[:3]] == ["pair-1", "pair-2", ""]


def fake_grade(source, options, name=None):
    """A stand-in for grading (this test is about what batch does after it): every test at 0."""
    specs = offering_problems(get_offering(options.offering), only=options.problems)
    return GradeResult(submission=name, problems=[failed_problem(s, "not graded in this test") for s in specs],
                       grader_version=current_grader_version(), seed=options.seed, offering=get_offering().id)


def small_class(root: Path) -> Path:
    original = sc.solution("ind_iterators")
    sc.write_files(root / "alice", original)
    sc.write_files(root / "bob", sc.disguised(original))
    sc.write_files(root / "carol", sc.solution("ind_recursive"))
    return root


def batch_options() -> BatchOptions:
    return BatchOptions(problems=["autodiff"], jobs=1, progress=False, allow_weak_sandbox=True)


def test_batch_screens_the_class_and_the_report_lists_the_pair(tmp_path, monkeypatch):
    monkeypatch.setattr(batch_module, "grade_submission", fake_grade)
    subs, out = small_class(tmp_path / "subs"), tmp_path / "out"
    run = run_batch(subs, out, batch_options())
    assert not run.warnings and run.similarity.flagged_count == 1
    index = (out / "index.html").read_text(encoding="utf-8")
    attention = index[index.index('id="attention"'):index.index("</div>", index.index('id="attention"'))]
    assert 'href="similarity.html#pair-1">alice ~ bob</a>' in attention and "carol" not in attention
    assert index.index('id="attention"') < index.index('id="overview"')  # near the top
    page = (out / "similarity.html").read_text(encoding="utf-8")
    assert 'href="index.html"' in page and 'id="pair-1"' in page
    assert "similarity: 1 pair(s) of 3 at or above" in batch_module.summary_text(run)
    # `autograde report` re-renders the class report with the same attention items
    (out / "index.html").unlink()
    assert CliRunner().invoke(main, ["report", str(out)]).exit_code == 0
    assert 'href="similarity.html#pair-1">alice ~ bob</a>' in (out / "index.html").read_text(encoding="utf-8")


def test_a_failing_screening_never_loses_grades(tmp_path, monkeypatch):
    monkeypatch.setattr(batch_module, "grade_submission", fake_grade)
    subs, out = small_class(tmp_path / "subs"), tmp_path / "out"
    out.mkdir()
    for name in similarity.OUTPUT_FILES:  # a previous screening's page must not stay linked
        (out / name).write_text("stale")

    def broken(*args, **kwargs):
        raise RuntimeError("fingerprinting exploded")

    monkeypatch.setattr(similarity, "screen_class", broken)
    run = run_batch(subs, out, batch_options())
    assert sorted(g.name for g in run.graded) == ["alice", "bob", "carol"]
    with Gradebook(out / "gradebook.sqlite") as book:
        assert sorted(r.name for r in book.rows()) == ["alice", "bob", "carol"]
    assert any("similarity screening failed (RuntimeError: fingerprinting exploded)" in w for w in run.warnings)
    assert not any((out / name).exists() for name in similarity.OUTPUT_FILES)
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "similarity.html" not in index and 'id="attention"' not in index


def test_cli_usage_errors(tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["similarity", str(tmp_path / "nowhere"), "--out", str(tmp_path)]).exit_code == 2
    clash = tmp_path / "clash"
    (clash / "alice").mkdir(parents=True)
    (clash / "alice.zip").write_bytes(b"")
    result = runner.invoke(main, ["similarity", str(clash), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "alice" in result.output


def test_a_submission_that_breaks_intake_is_a_note_not_a_crash(tmp_path, monkeypatch):
    import graders.similarity.collect as collect

    root = small_class(tmp_path / "class")
    real = collect.open_submission

    def flaky(source, *args, **kwargs):
        if source.name == "carol":
            raise EOFError("truncated archive")
        return real(source, *args, **kwargs)

    monkeypatch.setattr(collect, "open_submission", flaky)
    result = screen_class(root)
    assert "carol: not read (EOFError: truncated archive)" in result.notes
    assert [p.score for p in result.pairs if {p.a, p.b} == {"alice", "bob"}][0] >= result.settings.threshold


def test_lines_are_numbered_as_the_parser_numbers_them():
    """A form feed or a Unicode line separator does not end a line for Python: highlighted lines stay right."""
    from graders.similarity.fingerprints import fingerprint_file, source_lines

    text = "x = 1  # \x0c page break \u2028 still line 1\n\n" + sc.solution("ind_kahn")[sc.AUTODIFF]
    found = fingerprint_file(text, sc.AUTODIFF, 8, 6)
    lines = source_lines(text)
    topo = next(u for u in found.units if u.name == "topological_sort")
    assert lines[topo.first_line - 1].startswith("def topological_sort")
    for fp in found.prints:
        assert lines[fp.first_line - 1].strip() and not lines[fp.first_line - 1].lstrip().startswith("#")


def test_a_files_fingerprints_do_not_depend_on_the_files_fingerprinted_before_it():
    """The cache of units is keyed by a unit's text: a class header written over several lines is all in it, so a
    header with other bases on its second line gets its own fingerprints, not the cached ones of another."""
    from graders.similarity.fingerprints import fingerprint_file

    body = "    scale = 2 * 3 + 4\n    bias = [1, 2, 3]\n    name = 'x'\n"
    longer = "class Model(\n    torch.nn.modules.module.Module, metaclass=abc.ABCMeta):\n" + body
    shorter = "class Model(\n    Module):\n" + body
    alone = fingerprint_file(shorter, "f.py", 8, 6)
    cache: dict = {}
    fingerprint_file(longer, "f.py", 8, 6, (), cache)
    after = fingerprint_file(shorter, "f.py", 8, 6, (), cache)
    assert after.prints == alone.prints and after.units == alone.units
    assert fingerprint_file(longer, "f.py", 8, 6).prints != alone.prints  # the two headers do differ
