"""A full disk while a batch writes its results: the gradebook stays consistent and a re-run completes it.

The output folder is a tiny tmpfs (needs root to mount); the batch runs out of
space part-way (results, reports or the SQLite gradebook itself), then the
filesystem is enlarged and the same command is run again.
"""

import os
import subprocess
from pathlib import Path

import pytest

import classbuilder as cb
from conftest import ROOT
from test_batch import KILL_CLASS, _assert_consistent, _batch_command, _recorded


def _mount(path: Path, size: str) -> bool:
    path.mkdir(parents=True, exist_ok=True)
    return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True).returncode == 0


@pytest.fixture
def tiny_out(tmp_path):
    out = tmp_path / "out"
    if os.geteuid() != 0 or not _mount(out, "160k"):
        pytest.skip("needs root to mount a small tmpfs (simulated full disk)")
    yield out
    subprocess.run(["umount", "-l", str(out)], capture_output=True)


@pytest.mark.slow
def test_full_disk_leaves_a_consistent_gradebook_and_a_rerun_completes(tmp_path, tiny_out):
    subs = cb.make_class(tmp_path / "subs", KILL_CLASS)
    first = subprocess.run(_batch_command(subs, tiny_out), cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert first.returncode != 0, "the disk was expected to fill up"
    assert "No space left on device" in first.stdout + first.stderr or "full" in (first.stdout + first.stderr).lower()
    if (tiny_out / "gradebook.sqlite").exists():
        _assert_consistent(tiny_out, KILL_CLASS, complete=False)
    before = _recorded(tiny_out)
    assert before < len(KILL_CLASS)
    subprocess.run(["mount", "-o", "remount,size=64m", str(tiny_out)], check=True)
    final = subprocess.run(_batch_command(subs, tiny_out), cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert final.returncode == 0, (final.stdout, final.stderr)
    _assert_consistent(tiny_out, KILL_CLASS, complete=True)
    assert not list(tiny_out.glob("*/.*.tmp*")), "temporary files left behind"
    again = subprocess.run(_batch_command(subs, tiny_out), cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert "graded 0 submission(s)" in again.stdout
