"""Checkpoints (probekit.checkpoint): a probe of a student's run sends its evidence so far, and the parent's judge
of it, with what never enters the child, says whether the probe may stop there. The training problem's accuracy
probe asks after each epoch whether the held-out accuracy is past the target (by a margin), and training stops
there. The child learns one bit per ask, a bounded number of times; the reference's runs never ask."""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path

import numpy as np

import hostile_kit as k
from graders import probe
from graders.baseline import checkpoints, child_config, problem_hooks
from graders.spec import load_problems

TRAINING = load_problems(only=["training"])[0]
HOOKS = problem_hooks(TRAINING)


def _attempt(judges, budget=None, running="accuracy"):
    """An attempt whose child is running `running`, with the checkpoint judges `judges`, answering on a pipe: the
    attempt and the pipe's read end (what the child would read)."""
    config = probe.ChildConfig(Path("."), Path("."), Path("."), ["accuracy", "loop"], 0, checkpoints=judges)
    attempt = probe._Attempt(config, ["accuracy", "loop"], probe.Limits(), 0, budget or probe.ChannelBudget(),
                             time.monotonic(), time.monotonic() + 60)
    read_end, attempt.ack_fd = os.pipe()
    attempt.current = running
    return attempt, read_end


def _ask(attempt, read_end, evidence, probe_id="accuracy"):
    attempt._checkpoint({"event": "checkpoint", "probe": probe_id, "evidence": evidence})
    return os.read(read_end, 1)


def test_the_parent_answers_with_its_judge_one_byte_per_ask():
    seen = []
    attempt, read_end = _attempt({"accuracy": lambda evidence: seen.append(evidence) or evidence == "done"})
    assert _ask(attempt, read_end, "not yet") == b"c"
    assert _ask(attempt, read_end, "done") == b"s"
    assert seen == ["not yet", "done"] and attempt.tampered == []


def test_a_probe_with_no_judge_or_not_running_goes_on_and_a_failing_judge_changes_nothing():
    def broken(evidence):
        raise ValueError("the grader's own judge failed")

    judged = []
    attempt, read_end = _attempt({"accuracy": broken, "loop": lambda e: judged.append(e) or True})
    assert _ask(attempt, read_end, "anything") == b"c"  # the judge failed: the probe runs to its end
    assert _ask(attempt, read_end, "anything", probe_id="loop") == b"c"  # not the running probe: never judged
    assert judged == [] and attempt.tampered == ["a checkpoint of a probe that is not running"]
    attempt, read_end = _attempt({}, running="accuracy")
    assert _ask(attempt, read_end, "anything") == b"c"


def test_the_child_learns_at_most_max_checkpoints_bits_per_probe_over_all_attempts():
    """Asks past MAX_CHECKPOINTS are answered 'go on' unjudged, and a restarted child (a new attempt, the same
    budget) gets no fresh allowance."""
    budget = probe.ChannelBudget()
    judged = []
    first, read_first = _attempt({"accuracy": lambda e: judged.append(e) or True}, budget)
    answers = [_ask(first, read_first, i) for i in range(probe.MAX_CHECKPOINTS - 3)]
    again, read_again = _attempt({"accuracy": lambda e: judged.append(e) or True}, budget)
    answers += [_ask(again, read_again, i) for i in range(10)]
    assert answers == [b"s"] * probe.MAX_CHECKPOINTS + [b"c"] * 7
    assert len(judged) == probe.MAX_CHECKPOINTS


def _probabilities(correct: int):
    """Held-out probabilities with exactly `correct` of the hidden labels right."""
    labels = np.array([ex.label for ex in HOOKS.heldout()], dtype=np.float64)
    probs = np.where(labels > 0.5, 0.9, 0.1)
    probs[correct:] = 1.0 - probs[correct:]
    return labels, probs.tolist()


def test_training_stops_only_past_the_target_by_the_margin():
    """75% is the target: an accuracy at it, or short of target + STOP_MARGIN by one sentence, trains on; from
    target + margin the training may stop. Evidence that is not one finite probability per held-out sentence
    never stops it."""
    options = {"target": 0.75}
    labels, _ = _probabilities(0)
    needed = int(np.ceil((0.75 + HOOKS.STOP_MARGIN) * labels.size - 1e-9))
    for correct, stops in ((int(0.75 * labels.size), False), (needed - 1, False), (needed, True), (labels.size, True)):
        assert HOOKS.past_the_target({"probabilities": _probabilities(correct)[1]}, options) is stops, correct
    _, right = _probabilities(labels.size)
    for evidence in ({"probabilities": right[:-1]}, {"probabilities": right[:-1] + [float("nan")]},
                     {"probabilities": "all right"}, right, None):
        assert HOOKS.past_the_target(evidence, options) is False, str(evidence)[:40]


def test_only_a_students_run_asks_and_with_its_tests_options():
    """The student's run of `training` carries the accuracy probe's judge, bound to the accuracy test's options (a
    target of 0.9 stops later); the reference's run carries none: it always trains to its end."""
    judges = checkpoints(TRAINING)
    assert set(judges) == {"accuracy"}
    _, right_at_80 = _probabilities(480)
    assert judges["accuracy"]({"probabilities": right_at_80}) is True
    strict = [dataclasses.replace(t, options={"target": 0.9}) if t.probe == "accuracy" else t for t in TRAINING.tests]
    assert checkpoints(dataclasses.replace(TRAINING, tests=strict))["accuracy"]({"probabilities": right_at_80}) is False
    assert set(child_config(TRAINING, Path("w"), 0, Path("student.py")).checkpoints) == {"accuracy"}
    assert child_config(TRAINING, Path("w"), 0, None).checkpoints == {}


def test_graded_code_asking_itself_gets_few_answers_and_changes_no_mark(tmp_path):
    """The reference loop whose log_fn first asks the checkpoint 20 times with made-up probabilities (graded code
    can reach probekit): the run is not broken, the made-up asks use up the probe's allowance, so its own asks go
    unjudged and the training runs its 6 epochs (the reference's own stops after 3: test_hostile_results), with
    full marks."""
    rel = k.FILES["training"]
    text = k.compose(k.source("reference", rel), rel, "checkpoint_spam", when="import", asks=20)
    result = k.grade(k.build(tmp_path / "sub", {rel: text}), ["training"])
    k.assert_normal(result, "training")
    (accuracy,) = [t for t in k.problem(result, "training").tests if t.id == "accuracy"]
    assert accuracy.figure["log_calls"] == 6 and "past the target" not in accuracy.message, accuracy.message
