"""`autograde batch --scheduler`: the same per-submission task on a Dask cluster gives the same grades."""

from __future__ import annotations

import distributed
import pytest
from click.testing import CliRunner

import classbuilder as cb
from graders import batch as batch_module
from graders.batch import BatchOptions, run_batch
from graders.cli import main
from graders.gradebook import Gradebook

PROBLEM = "network"
CLASS = {
    "ref": cb.reference,
    "blank": cb.template,
    "broken": cb.sentiment_syntax_error,
    "zipped": cb.zipped(cb.reference),
}


def grades(out):
    """name -> (status, score, content hash, per-test scores)."""
    with Gradebook(out / "gradebook.sqlite") as book:
        tests = {}
        for r in book.query("SELECT name, problem, test, score FROM test_scores ORDER BY name, problem, position"):
            tests.setdefault(r["name"], []).append((r["problem"], r["test"], r["score"]))
        return {r.name: (r.status, r.score, r.content_hash, tests.get(r.name)) for r in book.rows()}


#: Addresses of the Dask workers that ran grading tasks (the cluster runs in this process).
RAN_ON = []
REAL_TASK = batch_module.grade_task


def grade_task_on_worker(task):
    """The batch task, noting which worker ran it (module level: Dask pickles it by reference)."""
    RAN_ON.append(distributed.get_worker().address)  # raises ValueError outside a Dask worker
    return REAL_TASK(task)


@pytest.fixture
def cluster():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None, silence_logs=40) as local:
        yield local


def test_dask_batch_matches_a_local_batch(tmp_path, cluster, monkeypatch):
    subs = cb.make_class(tmp_path / "subs", CLASS)
    # the local batch in this process's thread (--jobs 1): four quick gradings cost less than starting worker processes
    local = run_batch(subs, tmp_path / "local", BatchOptions(problems=[PROBLEM], jobs=1, progress=False))
    assert len(local.graded) == len(CLASS)

    RAN_ON.clear()
    monkeypatch.setattr(batch_module, "grade_task", grade_task_on_worker)
    result = CliRunner().invoke(main, ["batch", str(subs), "--out", str(tmp_path / "dask"), "--problems", PROBLEM,
                                       "--scheduler", cluster.scheduler_address, "--no-progress"])
    assert result.exit_code == 0, result.output
    assert len(RAN_ON) == len(CLASS) and set(RAN_ON) <= set(cluster.scheduler_info["workers"])
    assert grades(tmp_path / "dask") == grades(tmp_path / "local")
    assert grades(tmp_path / "dask")["ref"][1] > 0 and grades(tmp_path / "dask")["broken"][0] == "error"
    for name in CLASS:
        assert (tmp_path / "dask" / name / "report.html").is_file()

    # resuming on the cluster skips everything, like locally
    again = run_batch(subs, tmp_path / "dask", BatchOptions(problems=[PROBLEM], scheduler=cluster.scheduler_address,
                                                             progress=False))
    assert again.graded == [] and sorted(again.skipped) == sorted(CLASS)


def test_unreachable_scheduler_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.setattr(batch_module, "DASK_CONNECT_TIMEOUT", "1s")
    subs = cb.make_class(tmp_path / "subs", {"ref": cb.reference})
    result = CliRunner().invoke(main, ["batch", str(subs), "--out", str(tmp_path / "out"),
                                       "--scheduler", "tcp://127.0.0.1:9", "--problems", PROBLEM])
    assert result.exit_code == 2 and "cannot reach the Dask scheduler" in result.output, result.output
