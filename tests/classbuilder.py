"""Small classes of submissions for the batch tests: copies of the reference and the
blank template, plus hand-made buggy variants (each edit is checked to apply)."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict

from conftest import ROOT
from graders.version import grader_version

FILES = ("minitorch/autodiff.py", "minitorch/tensor_functions.py", "project/run_sentiment.py")
AUTODIFF = "minitorch/autodiff.py"
SENTIMENT = "project/run_sentiment.py"


def copy_submission(dest: Path, base: Path = ROOT / "reference") -> Path:
    """The three contract files of `base` under `dest`."""
    for rel in FILES:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(base / rel, dest / rel)
    return dest


def edit(path: Path, old: str, new: str) -> None:
    """Replace `old` (which must occur) by `new`: a buggy variant that cannot silently be correct."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not found in {path}: update the test's buggy variant"
    path.write_text(text.replace(old, new), encoding="utf-8")


def reference(dest: Path) -> Path:
    return copy_submission(dest)


def template(dest: Path) -> Path:
    return copy_submission(dest, ROOT / "student_template")


def fanout_overwrite(dest: Path) -> Path:
    """Overwrites instead of summing adjoints (no-fanout-accumulation)."""
    copy_submission(dest)
    edit(dest / AUTODIFF, "adjoints[parent.unique_id] = adjoints[parent.unique_id] + d_parent",
         "adjoints[parent.unique_id] = d_parent")
    return dest


def not_reversed(dest: Path) -> Path:
    """Processes nodes leaves-first: the DFS post-order is never reversed."""
    copy_submission(dest)
    edit(dest / AUTODIFF, "    order.reverse()\n    return order", "    return order")
    return dest


def crash_at_import(dest: Path) -> Path:
    """Kills the grader's child the moment autodiff.py is imported."""
    copy_submission(dest)
    path = dest / AUTODIFF
    path.write_text("import os\nos._exit(1)\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    return dest


def sentiment_syntax_error(dest: Path) -> Path:
    copy_submission(dest)
    path = dest / SENTIMENT
    path.write_text(path.read_text(encoding="utf-8") + "\ndef broken(:\n", encoding="utf-8")
    return dest


#: three submissions sharing a bug the catalogue does not name, each written its own way (README there)
UNCATALOGUED = ROOT / "tests" / "files" / "uncatalogued"


def uncatalogued(name: str) -> Callable[[Path], Path]:
    """The reference with `name`'s autodiff.py from UNCATALOGUED (leaf derivatives counted twice)."""

    def build(dest: Path) -> Path:
        copy_submission(dest)
        shutil.copyfile(UNCATALOGUED / name / AUTODIFF, dest / AUTODIFF)
        return dest

    return build


def over_reference(case_id: str) -> Callable[[Path], Path]:
    """A problem's own case (tests/cases.py, e.g. `autodiff/buggy/course_bfs`) written over a copy of the
    reference, so the other problems' files are the reference's."""

    def build(dest: Path) -> Path:
        from cases import case_named

        copy_submission(dest)
        return case_named(case_id).build(dest)

    return build


def example(entry: str) -> Callable[[Path], Path]:
    """A copy of examples/submissions/<entry> (a folder or a .zip)."""

    def build(dest: Path) -> Path:
        source = ROOT / "examples" / "submissions" / entry
        if source.is_dir():
            return Path(shutil.copytree(source, dest))
        return Path(shutil.copy2(source, dest.with_name(entry)))

    return build


def zipped(make: Callable[[Path], Path]) -> Callable[[Path], Path]:
    """`make` the submission in a folder, then zip it (one top-level folder inside) as DEST.zip."""

    def build(dest: Path) -> Path:
        folder = make(dest.parent / f".build-{dest.name}" / dest.name)
        target = dest.with_name(dest.name + ".zip")
        with zipfile.ZipFile(target, "w") as archive:
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    archive.write(path, f"{dest.name}/{path.relative_to(folder).as_posix()}")
        shutil.rmtree(folder.parent)
        return target

    return build


def make_class(root: Path, members: Dict[str, Callable[[Path], Path]]) -> Path:
    """A submissions folder with one entry per member (name -> builder)."""
    root.mkdir(parents=True, exist_ok=True)
    for name, build in members.items():
        build(root / name)
    return root


# ------------------------------------------------------------------ one class graded once, read by several test files


#: the bundled example class (examples/submissions/) as graded on autodiff: all but erin_dropout and frank_training,
#: whose minitorch/autodiff.py is alice_correct's (their bugs are network and training ones; AUTODIFF_TWINS)
EXAMPLES = ("alice_correct", "bob_blank", "carol_bfs", "dave_recursive", "grace_zipped.zip")
#: examples left out of the autodiff class: their autodiff.py is alice_correct's, byte for byte (test_clusters.py
#: checks it), so on autodiff they are two more alice_correct
AUTODIFF_TWINS = {"erin_dropout": "alice_correct", "frank_training": "alice_correct"}
#: three submissions sharing a bug the catalogue does not name (UNCATALOGUED)
SHARED_BUG = ("hana", "ivan", "jun")


def example_class_beside_the_shared_bug() -> Dict[str, Callable[[Path], Path]]:
    """The example class (but its AUTODIFF_TWINS), the three SHARED_BUG submissions, and the example class's two
    autodiff misconceptions written once more another way (a problem's own buggy cases): two named clusters and one
    uncatalogued."""
    members = {e.removesuffix(".zip"): example(e) for e in EXAMPLES}
    members.update({n: uncatalogued(n) for n in SHARED_BUG})
    members["kim_bfs"] = over_reference("autodiff/buggy/course_bfs")
    members["lee_recursive"] = over_reference("autodiff/buggy/recursive")
    return members


@dataclass(frozen=True)
class Ran:
    """An `autograde` command run once for several test files: its input folder, output folder and what it printed."""

    source: Path
    out: Path
    returncode: int
    stdout: str
    stderr: str


def _code_digest() -> str:
    """Everything that writes an output folder: the grader (its CLI and batch bookkeeping too) and the reports."""
    digest = hashlib.sha256(grader_version().encode())
    for base in (ROOT / "graders", ROOT / "reports"):
        for path in sorted(p for p in base.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(f"\0{path.relative_to(ROOT).as_posix()}\0".encode() + path.read_bytes())
    return digest.hexdigest()


def run_once(name: str, key: bytes, source: Callable[[Path], Path], *argv: str) -> Ran:
    """`python -m graders ARGV...` with `{source}` and `{out}` in ARGV standing for the folder `source(dest)` made and
    a fresh output folder, run once per test run (per `key` and version of the grader and reports) and shared,
    read-only, by the test files that need the same output: kept under the run's grader cache, like tests/cases.py's
    `graded` (pytest-xdist workers take turns: one runs it, the other waits and reads). For what takes seconds of
    grading per submission and is checked by more than one file."""
    digest = hashlib.sha256(f"{_code_digest()}\0{name}\0{argv}\0".encode() + key).hexdigest()[:16]
    store = Path(os.environ.get("AUTOGRADE_CACHE", tempfile.gettempdir())) / "test-outputs"
    store.mkdir(parents=True, exist_ok=True)
    here = store / f"{name}-{digest}"
    with open(f"{here}.lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = here / "done.json"
        if not done.is_file():
            shutil.rmtree(here, ignore_errors=True)  # a run killed half-way
            here.mkdir()
            src = source(here / "source")
            args = [a.replace("{source}", str(src)).replace("{out}", str(here / "out")) for a in argv]
            ran = subprocess.run([sys.executable, "-m", "graders", *args], cwd=ROOT, capture_output=True, text=True,
                                 timeout=900)
            done.write_text(json.dumps({"source": str(src), "returncode": ran.returncode, "stdout": ran.stdout,
                                        "stderr": ran.stderr[-5000:]}), encoding="utf-8")
        said = json.loads(done.read_text(encoding="utf-8"))
    return Ran(Path(said["source"]), here / "out", said["returncode"], said["stdout"], said["stderr"])


def batched_once(name: str, members: Dict[str, Callable[[Path], Path]], *args: str) -> Ran:
    """`autograde batch SUBS --out OUT --no-progress *args` on the class `members` (name -> builder), once per run."""
    build = Path(tempfile.mkdtemp(prefix=f"class-{name}-"))
    try:
        make_class(build / "subs", members)
        key = hashlib.sha256()
        for path in sorted(p for p in (build / "subs").rglob("*") if p.is_file()):
            key.update(f"\0{path.relative_to(build).as_posix()}\0".encode() + path.read_bytes())
        return run_once(name, key.digest(), lambda dest: Path(shutil.move(str(build / "subs"), dest)),
                        "batch", "{source}", "--out", "{out}", "--no-progress", *args)
    finally:
        shutil.rmtree(build, ignore_errors=True)


def reference_graded() -> Ran:
    """`autograde grade reference --out OUT` (every problem of the default offering), once per run: its results and
    report are checked by test_grade_end_to_end.py and rendered in Chromium by test_browser.py."""
    return run_once("reference-grade", b"", lambda dest: ROOT / "reference", "grade", "{source}", "--out", "{out}")


def example_class_graded() -> Ran:
    """`example_class_beside_the_shared_bug()` graded by `autograde batch` on autodiff (every cluster it makes is an
    autodiff one: the example class's network and training misconceptions have one member each), with the
    similarity screening: test_clusters.py reads its clusters, test_browser.py renders its class report."""
    return batched_once("example-class", example_class_beside_the_shared_bug(), "--problems", "autodiff")
