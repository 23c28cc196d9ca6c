"""Small classes of submissions for the batch tests: copies of the reference and the
blank template, plus hand-made buggy variants (each edit is checked to apply)."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path
from typing import Callable, Dict

from conftest import ROOT

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
