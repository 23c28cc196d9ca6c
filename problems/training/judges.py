"""Parent-side judges and inputs for `training`. The held-out labels never leave this process."""

from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from graders.api import NotNumeric, Verdict, error_text, reference_dir, short, to_array

HERE = Path(__file__).resolve().parent
HELDOUT = HERE / "hidden" / "heldout.tsv"
MAX_LEN = 25


def _datasets():
    import sys

    if str(reference_dir()) not in sys.path:
        sys.path.insert(0, str(reference_dir()))
    from minitorch import datasets

    return datasets


@lru_cache(maxsize=1)
def heldout():
    return _datasets().load_sst2_tsv(HELDOUT)


def prepare_inputs(dest: Path) -> None:
    """X_train.npy, y_train.npy: the public training split with labels; X_heldout.npy: the held-out split without
    labels. Plain .npy files, which every run maps instead of reading (`probes.load`): a deflated archive cost
    each training run 0.07 s of CPU to inflate its 30 MB (mostly the padding rows of zeros)."""
    datasets = _datasets()
    train, _ = datasets.load_sentiment()
    embeddings = datasets.load_embeddings()
    X_train, y_train = datasets.encode_sentences(train, embeddings, max_len=MAX_LEN)
    X_held, _ = datasets.encode_sentences(heldout(), embeddings, max_len=MAX_LEN)
    for name, array in (("X_train", X_train), ("y_train", y_train), ("X_heldout", X_held)):
        np.save(dest / f"{name}.npy", np.asarray(array, dtype=np.float64), allow_pickle=False)


#: Tolerances of the loss test, from the maths. With p in [0.05, 0.95] and a stabilising
#: eps <= 1e-7 inside the logs, |log(p + eps) - log p| <= eps / p <= 2e-6 per example, so the
#: mean loss moves by at most 2e-6 while it is at least -log(0.95) = 0.0513: relative error
#: <= 3.9e-5. Each gradient entry -y / (B p) or (1 - y) / (B (1 - p)) moves by the factor
#: p / (p + eps): relative error <= 2e-6. The limits below keep a margin of 2.5x and 5x. On the
#: probe's batches, the real bugs of tests/test_training_verdicts.py (sum, sign, swapped or missing
#: term, log-softmax over the batch) are off by 40% or more, and even eps = 1e-3 by 0.8% (loss)
#: and 0.4% (gradient), 80x and 400x the limits.
LOSS_RTOL, GRAD_RTOL = 1e-4, 1e-5


def _log_softmax(v: np.ndarray) -> np.ndarray:
    return v - (np.log(np.sum(np.exp(v - v.max()))) + v.max())


def logsoftmax_bce(p: np.ndarray, y: np.ndarray) -> float:
    r"""The fall-2025 starter's hint read literally: log-softmax *over the batch* of $p$ and of $1 - p$ in
    place of $\log p$ and $\log(1 - p)$: $-\frac1B\sum_i y_i\,\mathrm{lsm}(p)_i + (1 - y_i)\,\mathrm{lsm}(1 - p)_i$."""
    return float(np.mean(-y * _log_softmax(p) - (1.0 - y) * _log_softmax(1.0 - p)))


def _every_loss_is(formula: Callable[[np.ndarray, np.ndarray], float], cases: List[Dict[str, Any]]) -> bool:
    """Every case's loss is `formula(p, y)`, and some batch has 2+ examples (for a batch of one the formulas
    tried here coincide with other slips: no evidence)."""
    seen_batch = False
    for case in cases:
        try:
            p, y, loss = to_array(case.get("p")), to_array(case.get("y")), to_array(case.get("loss"))
        except NotNumeric:
            return False
        if p.ndim != 1 or p.shape != y.shape or loss.size != 1:
            return False
        if not np.isclose(float(loss.ravel()[0]), formula(p, y), rtol=LOSS_RTOL, atol=1e-12):
            return False
        seen_batch = seen_batch or p.size > 1
    return seen_batch


def _softmaxed_everywhere(cases: List[Dict[str, Any]]) -> bool:
    """Every case's loss is the log-softmax-over-the-batch formula (`logsoftmax_bce`)."""
    return _every_loss_is(logsoftmax_bce, cases)


def squared_error(p: np.ndarray, y: np.ndarray) -> float:
    r"""The mean squared error of the probabilities, $\frac1B\sum_i (p_i - y_i)^2$: a regression loss."""
    return float(np.mean((p - y) ** 2))


def _bce_diagnosis(got: float, want: float, batch: int, cases: List[Dict[str, Any]]) -> Tuple[str, Optional[str]]:
    """A hint naming a common slip, and its misconception id, when the values show it."""
    if _softmaxed_everywhere(cases):
        return (": that is a log-softmax over the batch; binary cross-entropy takes log p and log(1 - p) of "
                "each example's own probability", "bce-logsoftmax")
    if _every_loss_is(squared_error, cases):
        return (": that is the mean squared error of the probabilities; binary cross-entropy is "
                "-mean(y log p + (1 - y) log(1 - p))", None)
    if batch > 1 and np.isclose(got, want * batch, rtol=LOSS_RTOL):
        return ": that is the SUM over the batch; the loss is the mean (divide by the batch size)", None
    if np.isclose(got, -want, rtol=LOSS_RTOL):
        return ": the sign is flipped; the loss is MINUS the mean log-likelihood", None
    return "", None


def bce(student, reference, options) -> Verdict:
    """Mean binary cross-entropy values and gradients, within LOSS_RTOL / GRAD_RTOL (an eps up to 1e-7
    inside the logs passes; sum instead of mean, a flipped sign, swapped or missing terms do not)."""
    loss_rtol = float(options.get("loss_rtol", LOSS_RTOL))
    grad_rtol = float(options.get("grad_rtol", GRAD_RTOL))
    atol = float(options.get("atol", 1e-12))
    cases = student.value if isinstance(student.value, list) else []
    if len(cases) != len(reference.value):
        return Verdict(0.0, f"{len(cases)} results for {len(reference.value)} batches")
    for case, ref in zip(cases, reference.value):
        batch = len(ref["grad"])
        if not isinstance(case, dict):
            return Verdict(0.0, f"batch of {batch}: no result")
        try:
            loss, grad = to_array(case.get("loss")), to_array(case.get("grad"))
        except NotNumeric as exc:
            return Verdict(0.0, f"batch of {batch}: {exc}")
        want_loss, want_grad = float(ref["loss"]), to_array(ref["grad"])
        if loss.size != 1 or not np.isfinite(loss).all() \
                or not np.isclose(float(loss.ravel()[0]), want_loss, rtol=loss_rtol, atol=atol):
            got = float(loss.ravel()[0]) if loss.size == 1 else float("nan")
            hint, misconception = _bce_diagnosis(got, want_loss, batch, [c for c in cases if isinstance(c, dict)])
            return Verdict(0.0, f"batch of {batch}: loss {got:.10g}, expected the mean binary cross-entropy "
                                f"{want_loss:.10g} (rtol={loss_rtol:g}){hint}", misconception=misconception)
        if grad.shape != want_grad.shape or not np.allclose(grad, want_grad, rtol=grad_rtol, atol=atol):
            return Verdict(0.0, f"batch of {batch}: gradient {short(grad)}, expected {short(want_grad)} = "
                                f"(p - y) / (B p (1 - p)) (rtol={grad_rtol:g})")
    return Verdict(1.0, "mean binary cross-entropy values and gradients match")


def training_run(value: Any) -> Tuple[Dict[str, Any], str]:
    """The audited run of the loop whose steps are judged, and its name in the probe's data: the run without
    validation data (`plain`) when the loop completed it; else, when the loop completed the run with validation
    data, that one (the course's starters always call `train` with validation data: their `default_log_fn` reads
    `validation_accuracy[-1]` at every epoch, so a loop that fails without it breaks no contract); else `plain`,
    judged on what it recorded before the loop raised."""
    value = value if isinstance(value, dict) else {}
    runs = {name: value.get(name) if isinstance(value.get(name), dict) else {} for name in ("plain", "validation")}
    if runs["plain"].get("error") and runs["validation"] and not runs["validation"].get("error"):
        return runs["validation"], "validation"
    return runs["plain"], "plain"


def _path(options: Dict[str, Any]) -> str:
    """The student's file as the report names it (the judge's `display_path`)."""
    return str(options.get("display_path") or "project/run_sentiment.py")


def raised(run: Dict[str, Any], path: str) -> str:
    """What the loop raised in a run, in a few words, with the line of the student's file `path` it came from ("" when
    it completed)."""
    error = run.get("error")
    if not isinstance(error, dict):
        return ""
    short_error = {**error, "type": error.get("type", "an exception"), "message": str(error.get("message", ""))[:200]}
    return error_text({"__error__": short_error}, path) or ""


def _after_raise(run: Dict[str, Any], what: str, path: str) -> Optional[Verdict]:
    """A run the loop did not complete fails after its recorded steps were judged right."""
    error = raised(run, path)
    if not error:
        return None
    return Verdict(0.0, f"{what}, but the loop then raised {error} (with and without validation data)")


def _nothing_recorded(run: Dict[str, Any], before: str, otherwise: str, path: str) -> Verdict:
    """A run that recorded nothing to judge: what the loop raised first (before `before`), else `otherwise`."""
    error = raised(run, path)
    return Verdict(0.0, f"the loop raised {error} before {before}" if error else otherwise)


def loop_loss(student, reference, options) -> Verdict:
    """The loss the loop backpropagates: at each recorded step, the mean binary cross-entropy of that batch's
    outputs and labels, within LOSS_RTOL; or, where the loss is a function of the submission's
    (`binary_cross_entropy_loss`), that function's value on the batch called as `(out, y)` (`own`): whether the
    function itself is right is `bce_values`' business, not this test's."""
    run, _ = training_run(student.value)
    steps = run.get("losses") if isinstance(run.get("losses"), list) else []
    if not steps:
        backwards = _count(run.get("backward_calls"), 0)
        otherwise = ("no loss was backpropagated from a training batch (call backward on the batch's loss)"
                     if not backwards else
                     f"{backwards} backward pass(es), but none from one batch's own forward pass: each step "
                     "computes the loss of ONE forward pass of the batch (model.forward(x) on the whole batch) "
                     "and calls backward on it")
        return _nothing_recorded(run, "any batch's loss was backpropagated", otherwise, _path(options))
    own_used = False
    for k, step in enumerate(steps, start=1):
        try:
            out, y = to_array(step.get("out")), to_array(step.get("y"))
            loss = to_array(step.get("loss"))
        except (NotNumeric, AttributeError) as exc:
            return Verdict(0.0, f"step {k}: {exc}")
        if out.shape != y.shape or out.ndim != 1 or not np.all((out > 0) & (out < 1)):
            return Verdict(0.0, f"step {k}: the batch's outputs could not be read as probabilities")
        want = float(np.mean(-(y * np.log(out) + (1 - y) * np.log(1 - out))))
        got = float(loss.ravel()[0]) if loss.size == 1 else float("nan")
        own = step.get("own")
        right = np.isfinite(got) and np.isclose(got, want, rtol=LOSS_RTOL, atol=1e-12)
        if not right and isinstance(own, float) and np.isfinite(got) \
                and np.isclose(got, own, rtol=LOSS_RTOL, atol=1e-12):
            own_used = True  # the submission's loss function, called as the course's loop calls it
            continue
        if not right:
            recorded = [{"p": st.get("out"), "y": st.get("y"), "loss": st.get("loss")}
                        for st in steps if isinstance(st, dict)]
            hint, misconception = _bce_diagnosis(got, want, out.size, recorded)
            what = f"{got:.10g}" if loss.size == 1 else f"a tensor of {loss.size} values (reduce it to one)"
            if not hint and isinstance(own, float):
                hint = (f"; your loss function called as the loop should call it, with the batch's outputs first "
                        f"(out, y), gives {own:.10g}")
            return Verdict(0.0, f"step {k}: the loop backpropagated {what}, expected the batch's mean binary "
                                f"cross-entropy {want:.10g} (rtol={LOSS_RTOL:g}){hint}", misconception=misconception)
    what = (f"the loss backpropagated at {len(steps)} steps is the batch's mean binary cross-entropy" if not own_used
            else f"the loss backpropagated at {len(steps)} steps is your loss function's value on the batch's outputs "
                 "and labels (the function's own values are bce_values' to judge)")
    return _after_raise(run, what, _path(options)) or Verdict(1.0, what)


#: points of the loss curve a figure (and so the report and the gradebook) keeps, whatever the child sent
MAX_FIGURE_POINTS = 2000


def _count(value: Any, default: int) -> int:
    """A count the probe sent (a non-negative int), else `default`."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


def _number_or_nan(v: Any) -> float:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        try:
            return float(v)
        except OverflowError:
            return float("inf") if v > 0 else float("-inf")
    return float("nan")


def loss_curve(value: Dict[str, Any], cap: int = MAX_FIGURE_POINTS) -> Dict[str, Any]:
    """The accuracy run's loss curve, bounded: at most `cap` points evenly spread over what was sent.

    `losses` are the values log_fn received (the probe sends an even sample when there were many),
    `calls` the number of the log_fn call each came from (1, 2, ... for a normal loop: the epochs),
    `log_calls` how many calls there were in all. Non-numbers become NaN (a gap in the curve).
    """
    losses = value.get("losses") if isinstance(value.get("losses"), list) else []
    calls = value.get("loss_calls")
    if not (isinstance(calls, list) and len(calls) == len(losses) and all(_count(c, -1) >= 0 for c in calls)):
        calls = list(range(1, len(losses) + 1))
    if len(losses) > cap:
        keep = np.unique(np.linspace(0, len(losses) - 1, cap).round().astype(int))
        losses, calls = [losses[i] for i in keep], [calls[i] for i in keep]
    return {"losses": [_number_or_nan(v) for v in losses], "calls": list(calls),
            "log_calls": _count(value.get("log_calls"), len(losses))}


def _log_note(log_calls: int, epochs: Any, stopped: bool) -> str:
    """A word on a loop that called log_fn more often than once per epoch (not graded: logging only)."""
    if not isinstance(epochs, int) or log_calls <= epochs:
        return ""
    during = "before training was stopped" if stopped else f"in {epochs} epochs"
    return (f"; log_fn was called {log_calls:,} times {during} (the course calls it once per epoch; "
            "extra calls are not graded, the figure shows an even sample of their losses)")


#: the accuracy a student's training must pass at a checkpoint to stop early, above the target (`past_the_target`)
STOP_MARGIN = 0.01


@lru_cache(maxsize=1)
def heldout_labels() -> np.ndarray:
    """The held-out sentences' labels (read once per process: every checkpoint and every judgement reads them)."""
    labels = np.array([ex.label for ex in heldout()], dtype=np.float64)
    labels.setflags(write=False)
    return labels


def _accuracy(probs: np.ndarray) -> float:
    """The share of held-out sentences whose probability is on their label's side of 0.5."""
    return float(np.mean((probs > 0.5) == (heldout_labels() > 0.5)))


def _heldout_accuracy(probabilities: Any) -> Optional[float]:
    """The held-out accuracy of `probabilities` (None: not one number per held-out sentence, or not finite)."""
    try:
        probs = to_array(probabilities)
    except NotNumeric:
        return None
    if probs.shape != heldout_labels().shape or not np.all(np.isfinite(probs)):
        return None
    return _accuracy(probs)


def past_the_target(evidence: Any, options: Dict[str, Any]) -> bool:
    """A checkpoint of the accuracy probe (graders.probe: probekit.checkpoint): whether the held-out accuracy of
    the probabilities a student's training has reached is past the target by STOP_MARGIN, so that the training may
    stop there. The child learns one bit per ask, a few times per run: the margin makes that bit worth nothing to a
    loop that would probe its way over the target (an ask passes only an accuracy that has the full marks anyway,
    and the probabilities judged are those the run sends at its end)."""
    accuracy = _heldout_accuracy(evidence.get("probabilities")) if isinstance(evidence, dict) else None
    return accuracy is not None and accuracy >= float(options.get("target", 0.75)) + STOP_MARGIN


#: probe id -> its checkpoint judge (graders.baseline.checkpoints)
CHECKPOINTS = {"accuracy": past_the_target}


def _stopped_at(value: Dict[str, Any]) -> Optional[int]:
    """The log_fn call at which a student's training was stopped, its held-out accuracy past the target (the
    accuracy probe's `stopped_at`), or None when it ran to its end."""
    at = value.get("stopped_at")
    return at if isinstance(at, int) and not isinstance(at, bool) and at >= 1 else None


def heldout_accuracy(student, reference, options) -> Verdict:
    """Accuracy of the returned probabilities on the hidden labels: full marks at the target, partial above chance."""
    target = float(options.get("target", 0.75))
    floor = float(options.get("floor", 0.5))
    value = student.value if isinstance(student.value, dict) else {}
    whole = value.get("whole_set")
    if isinstance(whole, dict):
        rows, batch = whole.get("rows"), whole.get("batch_size")
        examples = whole.get("examples")
        return Verdict(0.0, f"not measured: training was stopped at the third batch of one epoch with more than "
                            f"batch_size = {batch} examples ({rows} of the {examples} training examples): the loop "
                            "feeds (nearly) the whole training set as every batch; slice one batch, "
                            "X_train[example_num : example_num + batch_size]",
                       misconception="whole-set-every-batch")
    labels = heldout_labels()
    try:
        probs = to_array(value.get("probabilities"))
    except NotNumeric as exc:
        return Verdict(0.0, f"predictions: {exc}")
    if probs.shape != labels.shape:
        return Verdict(0.0, f"{probs.size} predictions for {labels.size} held-out sentences")
    if not np.all(np.isfinite(probs)):
        return Verdict(0.0, "the trained network outputs NaN or infinity (did the loss diverge?)")
    acc = _accuracy(probs)
    ref_acc = _accuracy(to_array(reference.value["probabilities"]))
    fraction = 1.0 if acc >= target else max(0.0, (acc - floor) / (target - floor))
    curve = loss_curve(value)
    figure = {"kind": "training", **curve, "accuracy": acc, "target": target}
    run = value.get("run") if isinstance(value.get("run"), dict) else {}
    how = ""
    if run.get("optimizer") == "SGD":
        how = (f"; your loop steps an SGD optimizer, so it was trained {run.get('epochs')} epochs at learning rate "
               f"{run.get('learning_rate')}")
    stopped = _stopped_at(value)
    reference_run = reference.value.get("run") if isinstance(reference.value.get("run"), dict) else {}
    message = (f"held-out accuracy {acc:.1%} (target {target:.0%}; the reference loop reaches {ref_acc:.1%} in "
               f"{reference_run.get('epochs')} epochs{how})")
    if stopped is not None:
        message += (f"; measured at log_fn's call {stopped:,}, where it had passed the target and the grader stopped "
                    f"training (of at most {run.get('epochs')} epochs)")
    message += _log_note(curve["log_calls"], run.get("epochs"), stopped is not None)
    if value.get("set_outside_steps") is True:
        message += (f"; after training, the network's parameters were not values an optimizer step produced "
                    f"({value.get('steps')} steps were taken): they were measured as the loop's last step left "
                    "them (accuracy is credited to the parameters your loop trains, not to values set otherwise)")
    if fraction < 1.0:
        message += ": check that every step takes one batch, computes the loss, calls backward and steps the optimizer"
    return Verdict(fraction, message, figure=figure)


def _steps(run: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The steps the probe recorded (the first ones: it keeps a bounded number)."""
    steps = run.get("steps") if isinstance(run, dict) else None
    return [s for s in steps if isinstance(s, dict)] if isinstance(steps, list) else []


def _step_count(run: Dict[str, Any]) -> int:
    """How many optimizer steps the run took (all of them, also those past the recorded ones)."""
    recorded = len(_steps(run))
    return max(recorded, _count(run.get("step_count"), recorded)) if isinstance(run, dict) else recorded


def _leftover_step(steps: List[Dict[str, Any]]) -> Optional[Tuple[int, int]]:
    """(step number from 1, backward passes) of the first step whose gradient came from several passes."""
    for i, step in enumerate(steps):
        passes = step.get("passes")
        if isinstance(passes, int) and not isinstance(passes, bool) and passes > 1:
            return i + 1, passes
    return None


def gradients_cleared(student, reference, options) -> Verdict:
    """Every optimizer step uses the gradient of exactly one backward pass, one step per batch.

    The course's optimizers replace each parameter's value at every step (a new
    leaf without gradient), so a loop that never calls zero_grad is correct: the
    probe counts, at each step, the backward passes the gradients it uses came
    from. More than one (two backward passes per step; a backward pass on the
    validation loss before the next step) is `no-zero-grad`.
    """
    value = student.value if isinstance(student.value, dict) else {}
    plain, name = training_run(value)
    validation = value.get("validation") if isinstance(value.get("validation"), dict) else {}
    want = _step_count(reference.value[name])
    steps = _steps(plain)
    if not plain.get("backward_calls"):
        return _nothing_recorded(plain, "it called loss.backward()", "the training loop never called loss.backward()",
                                 _path(options))
    if not steps:
        return Verdict(0.0, "the training loop never called the optimizer's step(): the parameters never change")
    leftover = _leftover_step(steps)
    if leftover is not None:
        k, passes = leftover
        return Verdict(0.0, f"optimizer step {k} used gradients summed over {passes} backward passes (one batch, "
                            "one backward pass per step: call loss.backward() once, or optim.zero_grad() before it)",
                       misconception="no-zero-grad")
    with_validation = _steps(validation) if not validation.get("error") else []
    leftover = _leftover_step(with_validation)
    if leftover is not None:
        k, passes = leftover
        return Verdict(0.0, f"with validation data, optimizer step {k} used gradients summed over {passes} backward "
                            "passes: a backward pass on the validation data left its gradients for the next training "
                            "step (never call backward() on the validation loss)", misconception="no-zero-grad")
    empty = [i + 1 for i, s in enumerate(steps) if not s.get("with_grad")]
    if empty:
        return Verdict(0.0, f"optimizer step {empty[0]} found no gradient on any parameter (zero_grad() between "
                            "backward() and step()?)")
    stopped = _after_raise(plain, f"the {len(steps)} optimizer steps recorded each used one batch's gradients",
                           _path(options))
    if stopped is not None:
        return stopped
    if _step_count(plain) != want:
        epochs = int(reference.value.get("epochs", 1)) or 1
        return Verdict(0.0, f"{_step_count(plain):,} optimizer steps for {want} batches ({epochs} epochs of "
                            f"{want // epochs}): one step per batch")
    want_val = _step_count(reference.value["validation"])
    got_val = _step_count(validation) if with_validation else 0
    if with_validation and got_val != want_val:
        return Verdict(0.0, f"with validation data, {got_val:,} optimizer steps for {want_val} training "
                            "batches: the loop must not step on the validation data")
    return Verdict(1.0, "every optimizer step used one batch's gradients")


def optimizer_kept(student, reference, options) -> Verdict:
    """Adam keeps its state from step to step: the loop does not build a new Adam for (nearly) every step.

    Adam's update uses its running moment estimates and its step count; a new Adam starts them again, and its
    first, bias-corrected update is lr·g/(|g| + eps) ≈ lr·sign(g), whatever the gradients before. Judged on the
    optimizers the loop stepped: more than one Adam, stepped fewer than twice each on average, is an Adam built
    per step. An Adam built once per epoch (several steps each) and an SGD built anew (it keeps no state) pass.
    """
    run, _ = training_run(student.value)
    stepped = run.get("optimizers")
    if not isinstance(stepped, list) or not stepped:
        return _nothing_recorded(run, "its first optimizer step", "the training loop never called an optimizer's "
                                 "step(): the parameters never change", _path(options))
    adams = [entry for entry in stepped if isinstance(entry, list) and len(entry) == 2 and entry[0] is True]
    steps = sum(_count(entry[1], 0) for entry in adams)
    built = max(len(adams), _count(run.get("optimizer_count"), 0)) if adams else 0
    if built > 1 and steps < 2 * built:
        return Verdict(0.0, f"{built} Adam optimizers stepped {steps} times in all: a new Adam for every step starts "
                            "its moment estimates and step count again, so each update is Adam's first, about "
                            "lr·sign(gradient). Build the optimizer once, before the epochs (as the given code "
                            "does), and step that one", misconception="optimizer-rebuilt")
    return Verdict(1.0, "one optimizer carried its state from step to step" if len(stepped) == 1 else
                   f"{len(stepped)} optimizers stepped, each keeping its state over several steps (or keeping none)")


def _trained(run: Dict[str, Any]) -> List[Tuple[bool, List[Any], int]]:
    """(training mode, rows, number of rows) of the forwards whose output reached a backward pass.

    The probe sends [training, rows, size] (rows: the first ones of a large batch) or [training, rows].
    """
    trained = run.get("trained") if isinstance(run, dict) else None
    if not isinstance(trained, list):
        return []
    return [(t[0] is True, t[1], max(len(t[1]), _count(t[2], 0) if len(t) == 3 else 0))
            for t in trained if isinstance(t, list) and len(t) in (2, 3) and isinstance(t[1], list)]


def _whole_set_message(sizes: List[int], examples: int, batch_size: int) -> str:
    """What a loop that trains on (nearly) the whole set every step is told."""
    shown = ", ".join(str(n) for n in sizes[:6]) + (", ..." if len(sizes) > 6 else "")
    if all(n == examples for n in sizes):
        what = f"every batch was the whole training set ({examples} examples per step for batch_size {batch_size})"
    else:
        what = (f"batches ran to the end of the training set (sizes {shown} for batch_size {batch_size}: "
                "X_train[example_num:] takes every example from example_num on)")
    return f"{what}: slice one batch, X_train[example_num : example_num + batch_size] (and the same for y_train)"


def minibatches(student, reference, options) -> Verdict:
    """Each step trains on at most batch_size examples, and every example once per epoch.

    Rows are recognised by fingerprint in the child; the forwards counted are those
    whose output reached a backward pass (a forward that only computes predictions
    does not count). Any trained batch of more than batch_size examples fails; more
    of them than epochs (every batch being the whole set, or `X_train[example_num:]`)
    is `whole-set-every-batch`.
    """
    examples, batch_size, epochs = (int(reference.value[k]) for k in ("examples", "batch_size", "epochs"))
    plain, name = training_run(student.value)
    forwards = _trained(plain)
    trained = [(rows, size) for training, rows, size in forwards if training]
    if not trained:
        return _nothing_recorded(plain, "a forward pass in training mode reached loss.backward()",
                                 "no forward pass in training mode reached loss.backward()", _path(options))
    oversize = [size for _, size in trained if size > batch_size]
    if len(oversize) > epochs:
        return Verdict(0.0, _whole_set_message(oversize, examples, batch_size), misconception="whole-set-every-batch")
    if oversize:
        return Verdict(0.0, f"a training batch of {oversize[0]} examples for batch_size {batch_size}")
    total = _count(plain.get("trained_count"), len(forwards))
    if total > len(forwards):  # the probe kept the first ones only: far more forwards than batches
        batches = _step_count(reference.value[name])
        return Verdict(0.0, f"{total:,} forward passes reached loss.backward() for {batches} batches "
                            f"({epochs} epochs): one forward and one backward pass per batch")
    trained = [rows for rows, _ in trained]
    counts = np.zeros(examples, dtype=int)
    for rows in trained:
        for r in rows:
            if not isinstance(r, int) or isinstance(r, bool) or not 0 <= r < examples:
                return Verdict(0.0, "a training batch held rows that are not training examples "
                                    "(build x from X_train and y from y_train)")
            counts[r] += 1
    stopped = _after_raise(plain, f"the {len(trained)} training batches recorded held at most {batch_size} examples",
                           _path(options))
    if stopped is not None:
        return stopped
    wrong = np.flatnonzero(counts != epochs)
    if wrong.size:
        k = int(wrong[0])
        c = int(counts[k])
        return Verdict(0.0, f"training example {k} was in {c} batch{'' if c == 1 else 'es'} over {epochs} epochs "
                            f"({int(np.sum(counts == 0))} of {examples} examples in none): every example belongs to "
                            "one batch per epoch (X_train[example_num : example_num + batch_size])")
    return Verdict(1.0, f"batches of at most {batch_size} examples, every example once per epoch")


def _reported_accuracy(logged: Any) -> Optional[str]:
    """Why the validation accuracy the loop handed to log_fn is wrong (None when every epoch's is right).

    Each record (one per log_fn call, the first ones) is {"reported", "lo", "hi", "examples"}: the last entry of
    the `validation_accuracy` list the loop passed, and the accuracy range of the model's eval-mode predictions on
    data_val at that moment, computed by the probe, over `examples` examples. The reported accuracy may differ by
    less than half an example (float32, rounding). A call not of the course's shape (`{"shape": ...}`: the loop
    rewrote the given `log_fn(...)` call), one with no number to read (a loop that logs before it validates), or a
    record the probe could not compute (`error`) is not judged. Then `mispaired`: the same accuracy can come from
    labels paired with the wrong sentences (the probe's network predicts one class for all).
    """
    if not isinstance(logged, list):
        return None
    for epoch, record in enumerate(logged, start=1):
        if not isinstance(record, dict) or "shape" in record or "error" in record:
            continue
        wrong = _accuracy_off(record, epoch) or _mispairing(record.get("mispaired"), epoch)
        if wrong is not None:
            return wrong
    return None


def _accuracy_off(record: Dict[str, Any], epoch: int) -> Optional[str]:
    """Why the reported accuracy of one log_fn call is not the one computed (None when it is, or when either is
    not a number: a log_fn call with no accuracy yet, a loop that logs per batch)."""
    lo, hi, got, n = record.get("lo"), record.get("hi"), record.get("reported"), record.get("examples")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (lo, hi, got)):
        return None
    slack = 0.5 / n if isinstance(n, int) and n > 0 else ACCURACY_SLACK  # a stored or rounded accuracy passes
    if lo - slack <= got <= hi + slack:
        return None
    want = f"{lo:.6g}" if lo == hi else f"{lo:.6g} to {hi:.6g}"
    return (f"log_fn call {epoch}: the validation accuracy passed to log_fn is {got:.6g}, but the model's "
            f"eval-mode predictions on data_val score {want} against data_val's labels at that moment: "
            "predict on X_val, pair the predictions with y_val (get_predictions_array(y, out)) and append "
            "get_accuracy(validation_predictions) to validation_accuracy")


def _mispairing(found: Any, epoch: int) -> Optional[str]:
    """What a `mispaired` record of the probe says: an entry of validation_predictions whose true label is not the
    label of the sentence its probability belongs to (None when there is none or it cannot be read)."""
    if not isinstance(found, dict):
        return None
    values = [found.get(k) for k in ("entry", "label", "want", "p")]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return None
    entry, label, want, p = values
    return (f"log_fn call {epoch}: validation_predictions[{int(entry)}] pairs the probability {p:.6g} with the "
            f"label {label:g}, but the validation sentence with that output has the label {want:g}: predict on "
            "X_val and pair each output with its own sentence's label (y_val in the order of X_val: "
            "get_predictions_array(y, out) with x and y from the same rows)")


#: how far a reported validation accuracy may be from the one computed when the probe gives no example count
ACCURACY_SLACK = 0.01


def eval_mode(student, reference, options) -> Verdict:
    """Validation forwards run in eval mode; the forwards the loop trains on (whose output reached a backward pass)
    in training mode; the validation accuracy handed to log_fn is that of the model's eval-mode predictions.

    A forward on training rows whose output never reaches backward() (`measured`: the training accuracy measured
    with dropout off after the step) may run in either mode. When no forward reached a backward pass (a loop whose
    backward is not the framework's), every training-row forward is judged as one that trains.
    """
    value = student.value if isinstance(student.value, dict) else {}
    val, train = value.get("validation"), value.get("training")
    measured = value.get("measured") if isinstance(value.get("measured"), list) else []
    if not isinstance(val, list) or not isinstance(train, list):
        return Verdict(0.0, "no forward calls recorded")
    if not val:
        return Verdict(0.0, "the validation data was never evaluated (data_val was given)")
    if any(v is not False for v in val):
        return Verdict(0.0, "validation predictions were computed in training mode (dropout active): "
                            "call model.eval() first", misconception="dropout-in-eval")
    if train:
        if any(v is not True for v in train):
            return Verdict(0.0, "some training steps ran in evaluation mode (a forward pass whose loss was "
                                "backpropagated ran after model.eval(), dropout off): call model.train() again after "
                                "validating, before the next training forward")
    elif not measured or any(v is not True for v in measured):
        return Verdict(0.0, "some training steps ran in evaluation mode: call model.train() again after validating")
    wrong = _reported_accuracy(value.get("logged"))
    if wrong is not None:
        return Verdict(0.0, wrong)
    return Verdict(1.0, "eval mode for validation, training mode for training, the validation accuracy reported")


JUDGES = {
    "bce": bce,
    "loop_loss": loop_loss,
    "heldout_accuracy": heldout_accuracy,
    "gradients_cleared": gradients_cleared,
    "minibatches": minibatches,
    "optimizer_kept": optimizer_kept,
    "eval_mode": eval_mode,
}
