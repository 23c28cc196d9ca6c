"""Determinism (issue 6): one submission with several bugs in all its files, graded 4 times (once alone, then
three more two at a time), gets the same scores, messages, misconceptions, errors and notes every time. The
large sample under load is `benchmarks/stability.py` (220 gradings of 22 valid and 4 quadratic submissions beside
CPU and memory hogs); here four gradings (it was six) still compare every problem three times, two of the
repetitions made beside another grading.

Only the wall-clock test's message may differ (it quotes measured time ratios); its score may not.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

import hostile_kit as k
from graders.spec import load_problems

RUNS = 4
#: the problems the buggy submission below has a file for (the `minitorch` offering)
PROBLEMS = ["autodiff", "ops", "network", "training"]


def buggy_submission(dest):
    """autodiff: DFS preorder (not topological); ops: wrong backwards; network: no ReLU; training: no eval()."""
    run_sentiment = k.source("training/buggy/no_eval", k.FILES["training"]) + "\n\n" + k.delta("network/buggy/no_relu")
    return k.build(dest, {
        k.FILES["autodiff"]: k.source("autodiff/buggy/dfs_preorder", k.FILES["autodiff"]),
        k.FILES["ops"]: k.source("ops/buggy/backward_bugs", k.FILES["ops"]),
        k.FILES["network"]: run_sentiment,
    })


def fingerprint(result):
    timed = {(s.id, t.id) for s in load_problems() for t in s.tests if t.judge == "time_ratio"}
    return {
        "total": result.score,
        "errors": result.errors,
        "warnings": result.warnings,
        "problems": [
            (p.id, p.score, p.misconceptions, p.errors, p.notes, p.fault,
             [(t.id, t.score, t.misconception, None if (p.id, t.id) in timed else t.message) for t in p.tests])
            for p in result.problems
        ],
    }


@pytest.mark.slow
def test_repeated_gradings_agree(tmp_path):
    sub = buggy_submission(tmp_path / "buggy")
    first = fingerprint(k.grade(sub, PROBLEMS))
    per_problem = {pid: score for pid, score, *_ in first["problems"]}
    maxima = {p.id: sum(t.points for t in p.tests) for p in load_problems(only=PROBLEMS)}
    assert set(per_problem) == set(maxima)
    assert all(0 < per_problem[pid] < maxima[pid] for pid in maxima), per_problem  # every bug costs points
    with ThreadPoolExecutor(max_workers=2) as pool:  # two gradings at a time: load must not change a grade either
        others = list(pool.map(lambda _: fingerprint(k.grade(sub, PROBLEMS)), range(RUNS - 1)))
    for run, again in enumerate(others, start=2):
        assert again == first, f"grading #{run} differs"
