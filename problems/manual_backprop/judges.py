r"""Parent-side judges and inputs for `manual_backprop`. The digits' test labels never leave this process.

Misconceptions are named only on properties of the submission's own outputs:

- `softmax-overflow`: the function is right on some logits z but gives inf/nan on z + 1000
  (softmax and log-softmax do not change when a constant is added to a row; only exp(1000) overflows),
  or the backward's output-layer gradients are right on moderate logits but inf/nan on the problem whose
  logits are near +750 (its own softmax, recomputed without the max shift);
- `log-of-softmax`: a log-probability the reference computes near -1000 comes out -inf, nan, or in
  [-745.4, 0] (no log of a positive float64 is below log(5e-324) = -744.4): whatever the code, it took the
  log of a probability that had underflowed (also judged when the same code overflows on logits near +1000:
  inf/nan there is the other misconception, and both are named);
- `not-averaged-over-batch`: duplicating every example of a batch doubles the loss or the gradient
  (a batch mean does not change).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np

from graders.api import NotNumeric, Verdict, compare_values, error_text, short, to_array

HERE = Path(__file__).resolve().parent
DIGITS = HERE / "hidden" / "digits.npz"
KEYS = ("W1", "b1", "W2", "b2")
#: log of the smallest positive float64 (5e-324): no log of a float64 probability is below it, except -inf
LOG_TINIEST = float(np.log(np.nextafter(0.0, 1.0)))  # -744.44
#: a reference log-probability below this is one only the stable form can give
UNDERFLOWED = -800.0
DISPLAY = "project/digits_mlp.py"


# ----------------------------------------------------------------------------------------- inputs


@lru_cache(maxsize=1)
def digits() -> Dict[str, np.ndarray]:
    with np.load(DIGITS) as data:
        return {k: data[k] for k in data.files}


def prepare_inputs(dest: Path) -> None:
    """digits.npz for the probes: the training images and labels only (the test split stays here)."""
    d = digits()
    np.savez_compressed(dest / "digits.npz", x_train=d["x_train"], y_train=d["y_train"])


# ----------------------------------------------------------------------------------------- helpers


@dataclass
class Case:
    """One named case of a probe: the reference's data (trusted) and the student's output."""

    name: str
    what: str
    reference: Dict[str, Any]
    output: Any

    def array(self) -> Optional[np.ndarray]:
        """The student's output as floats, or None (an error record, not numbers)."""
        try:
            return to_array(self.output)
        except NotNumeric:
            return None

    def want(self) -> np.ndarray:
        return to_array(self.reference["output"])


def _cases(student, reference) -> List[Case]:
    """The reference's cases, each with the student's output of the same name (None when absent)."""
    got = {}
    if isinstance(student.value, list):
        got = {c.get("case"): c.get("output") for c in student.value if isinstance(c, dict)}
    return [Case(str(r["case"]), str(r.get("what", r["case"])), r, got.get(r["case"])) for r in reference.value]


def _matches(case: Optional[Case], rtol: float, atol: float) -> bool:
    return case is not None and compare_values(case.output, case.reference["output"], rtol, atol) is None


def _overflowed(value: Any, arr: Optional[np.ndarray]) -> bool:
    """A student's result (`value`, read as `arr`) has inf/nan entries, or computing it raised an overflow error."""
    err = value.get("__error__") if isinstance(value, dict) else None
    if isinstance(err, dict):
        return err.get("type") in ("FloatingPointError", "OverflowError")
    return arr is not None and arr.size > 0 and not np.all(np.isfinite(arr))


def _nonfinite_or_overflow(case: Case) -> bool:
    """The student's output has inf/nan, or the call raised an overflow error."""
    return _overflowed(case.output, case.array())


def _shown(case: Case) -> str:
    """The student's output of a case, briefly: its numbers, or the error it raised."""
    arr = case.array()
    return short(arr) if arr is not None else (error_text(case.output, DISPLAY) or "no result")


def overflow_evidence(cases: List[Case], rtol: float, atol: float) -> Optional[str]:
    """A case right on z but inf/nan on z + 1000: exp overflowed (the max was not subtracted)."""
    by_name = {c.name: c for c in cases}
    for case in cases:
        base = by_name.get(case.reference.get("shift_of"))
        if base is not None and _matches(base, rtol, atol) and _nonfinite_or_overflow(case):
            return (f"right on {base.what}, but inf/nan on {case.what} (got {_shown(case)}): exp(1000) overflows to "
                    "inf. Subtract each row's maximum before exp (log-sum-exp trick)")
    return None


def _loosely_right(case: Case) -> bool:
    """The student's output is the reference's up to rounding and small slips (an eps inside a log)."""
    return compare_values(case.output, case.reference["output"], 1e-5, 1e-6) is None


def log_of_probability_evidence(cases: List[Case]) -> Optional[str]:
    """Where the reference's log-probability is below -800, the student's is -inf, nan or in [-745.4, 0].

    `log_sign` (from the reference's data) is 1 for log-probabilities and -1 for a loss (a mean of
    minus log-probabilities). No log of a float64 probability lies below -744.4 but -inf, so such values
    mean the code took the log of a probability that had underflowed. The function must be right
    elsewhere: on the case's other entries and on every other case (every logit of these cases is below
    5, so nothing overflows: a wrong value there has another cause, e.g. indexing the wrong entries).
    """
    for case in cases:
        sign = case.reference.get("log_sign")
        arr = case.array()
        if sign not in (1, -1) or arr is None:
            continue
        want, got = sign * case.want(), sign * arr
        tiny = want < UNDERFLOWED
        if got.shape != want.shape or not tiny.any():
            continue
        others = [c for c in cases if c is not case and "log_sign" not in c.reference]
        # where the outputs show overflow (right on z, inf/nan on z + 1000), inf/nan on the other logits beyond
        # exp's range is that misconception, named on its own: no sign of a third bug
        excused = overflow_evidence(cases, 1e-5, 1e-6) is not None
        others_right = [_loosely_right(c) or (excused and bool(c.reference.get("large_logits"))
                                              and _nonfinite_or_overflow(c)) for c in others]
        if not others or not all(others_right):  # wrong elsewhere too: another bug
            continue
        if not np.allclose(got[~tiny], want[~tiny], rtol=1e-5, atol=1e-6):
            continue
        values = got[tiny]
        if not np.all(np.isfinite(values)):
            return (f"on {case.what}: got {short(arr)}, expected {short(case.want())}: log(0) = -inf. "
                    "The probability e^-1000 underflows to 0 before the log; compute log-softmax directly, "
                    "z - max - log(sum(exp(z - max))), and take the loss from it")
        if np.all((values >= LOG_TINIEST - 1.0) & (values <= 0.0)):
            return (f"on {case.what}: got {short(arr)}, expected {short(case.want())}: a log-probability "
                    f"cannot come out below {LOG_TINIEST:.1f} when it is the log of a float probability "
                    "(e^-1000 underflows to 0, and adding an eps only hides it). Compute log-softmax directly, "
                    "z - max - log(sum(exp(z - max)))")
    return None


def averaging_evidence(cases: List[Case]) -> Optional[str]:
    """A case that is another with every example twice: the student's value doubled."""
    by_name = {c.name: c for c in cases}
    for case in cases:
        base = by_name.get(case.reference.get("twice_of"))
        if base is None:
            continue
        one, two = base.array(), case.array()
        if one is None or two is None or one.shape != two.shape or not np.all(np.isfinite(one)):
            continue
        if np.any(one != 0) and np.allclose(two, 2 * one, rtol=1e-6, atol=1e-12):
            return (f"{short(one)} on {base.what}, {short(two)} on {case.what}: duplicating every example doubled it, "
                    "so it is a sum over the batch. The loss is the MEAN over the batch: divide by B")
    return None


# ----------------------------------------------------------------------------------------- judges


def values(student, reference, options) -> Verdict:
    """Each named case equals the reference's (rtol/atol); on a failure, a misconception when the
    student's own outputs show one (overflow on +1000, log of an underflowed probability, batch sums)."""
    rtol, atol = float(options.get("rtol", 1e-9)), float(options.get("atol", 1e-12))
    what = str(options.get("what", "the function"))
    cases = _cases(student, reference)
    for case in cases:
        message = error_text(case.output, DISPLAY)
        problem = None if message else compare_values(case.output, case.reference["output"], rtol, atol, what)
        if case.output is None and not message:
            problem = "no result"
        if not message and not problem:
            continue
        found = f"raised {message}" if message else problem
        shown = [(evidence, mid) for evidence, mid in ((overflow_evidence(cases, rtol, atol), "softmax-overflow"),
                                                       (log_of_probability_evidence(cases), "log-of-softmax"),
                                                       (averaging_evidence(cases), "not-averaged-over-batch"))
                 if evidence]
        if shown:  # every misconception the outputs show is named (the same code may overflow AND take log(0))
            text = " Also: ".join(f"{evidence}." for evidence, _ in shown)
            return Verdict(0.0, f"{what}: {text}", misconception=shown[0][1], also=tuple(m for _, m in shown[1:]))
        return Verdict(0.0, f"{what} on {case.what}: {found}")
    return Verdict(1.0, f"{what} matches the reference on {len(cases)} cases")


def _grad(value: Any) -> Tuple[Optional[np.ndarray], Optional[str]]:
    """(array, None) or (None, why not)."""
    message = error_text(value, DISPLAY)
    if message:
        return None, f"raised {message}"
    try:
        return to_array(value), None
    except NotNumeric as exc:
        return None, str(exc)


def _fd_opinion(got: np.ndarray, want: np.ndarray, fd: Any, key: str) -> str:
    """What central differences of the student's own loss say about the student's gradient."""
    if not isinstance(fd, dict) or key not in fd:
        return ""
    try:
        estimate = to_array(fd[key])
    except NotNumeric:
        return ""
    if estimate.shape != want.shape or not np.all(np.isfinite(estimate)):
        return ""
    mine = got.shape == estimate.shape and np.allclose(got, estimate, rtol=1e-4, atol=1e-7)
    truth = np.allclose(estimate, want, rtol=1e-4, atol=1e-7)
    if truth:
        return (" Central differences of your own cross_entropy(forward(...)) agree with the expected gradient, "
                "so your forward and loss are right and the backward is what is wrong.")
    if mine:
        return (" Your backward agrees with central differences of your own loss, so the loss or the forward "
                "is what differs (see those tests).")
    return " Central differences of your own loss agree neither with your gradient nor with the expected one."


def _scale_hint(got: np.ndarray, want: np.ndarray, batch: int) -> str:
    if got.shape != want.shape or not np.any(want != 0):
        return ""
    if batch > 1 and np.allclose(got, batch * want, rtol=1e-6, atol=1e-12):
        return f" That is B = {batch} times the expected gradient: dL/dlogits = (softmax - onehot) / B."
    if np.allclose(got, -want, rtol=1e-6, atol=1e-12):
        return " That is the expected gradient with the sign flipped: softmax - onehot, not onehot - softmax."
    return ""


class ReferenceDisagrees(RuntimeError):
    """The reference's gradient disagrees with central differences of the reference's loss: a grader fault."""


def _check_reference(want: np.ndarray, ref: Dict[str, Any], key: str) -> None:
    """The reference's gradient agrees with central differences of the reference's own loss (else raise:
    the grader, not the student, is wrong)."""
    estimate = to_array(ref["central_differences"][key])
    if estimate.shape != want.shape or not np.allclose(want, estimate, rtol=1e-4, atol=1e-7):
        raise ReferenceDisagrees(f"reference d{key} disagrees with central differences on {ref['what']}")


#: what an inf/nan gradient on a confident problem means, and its misconception: on the first (every row's largest
#: logits in the same columns) the backward's softmax has no shift; on the per-row one, its shift is not per row
OVERFLOW_HINTS = {
    "large_logits": ("Right on the problems with moderate logits, but inf/nan where logits are near +750: exp(750) "
                     "overflows to inf and inf / inf = nan. The softmax inside backward must be the stable one too: "
                     "subtract each row's maximum before exp (or call your softmax)", "softmax-overflow"),
    "per_row": ("Right where every row's largest logits sit in the same columns, but inf/nan on rows whose maxima "
                "differ: shift each row by its OWN maximum (np.max(z, axis=1, keepdims=True)), not by the batch's "
                "maximum, the row's mean or one column; a row 750 below the batch's maximum becomes 0 / 0, a row "
                "spanning -1000..1000 overflows around its mean", None),
}


def gradients(student, reference, options) -> Verdict:
    """The gradients named in `keys` equal the reference's on each small problem (rtol/atol); the message
    adds what central differences of the student's own loss say."""
    rtol, atol = float(options.get("rtol", 1e-6)), float(options.get("atol", 1e-10))
    keys = [str(k) for k in options.get("keys", KEYS)]
    cases = {c.get("case"): c for c in student.value if isinstance(c, dict)} if isinstance(student.value, list) else {}
    judged = 0
    for ref in reference.value:
        # a problem may be judged on some gradients only (the confident one: the output layer's)
        case_keys = [k for k in keys if k in ref.get("keys", keys)]
        if not case_keys:
            continue
        judged += 1
        case = cases.get(ref["case"])
        if not isinstance(case, dict) or not isinstance(case.get("grads"), dict):
            return Verdict(0.0, f"problem {ref['what']}: no gradients")
        for key in case_keys:
            want = to_array(ref["grads"][key])
            _check_reference(want, ref, key)
            got, why = _grad(case["grads"].get(key))
            label = f"d loss / d {key} on a problem with {ref['what']}"
            if ref.get("large_logits") and _overflowed(case["grads"].get(key), got):
                # the problems before this one were right: only exp beyond its range (or a shift not per row) differs
                why_not, misconception = OVERFLOW_HINTS["per_row" if ref.get("per_row") else "large_logits"]
                return Verdict(0.0, f"{label}: got {short(got) if got is not None else why}, expected "
                                    f"{short(want)} (finite). {why_not}", misconception=misconception)
            if got is None:
                return Verdict(0.0, f"{label}: {why}")
            if got.shape != want.shape:
                return Verdict(0.0, f"{label}: shape {got.shape}, expected {want.shape} (the shape of {key}; "
                                    "for out = a W + b: dW = a^T g, db = sum of g over the rows)")
            problem = compare_values(got.tolist(), want.tolist(), rtol, atol, key)
            if problem:
                hint = _scale_hint(got, want, int(ref.get("batch", 1)))
                fd = _fd_opinion(got, want, case.get("central_differences"), key)
                return Verdict(0.0, f"{label}: {problem}.{hint}{fd}")
    return Verdict(1.0, f"{', '.join('d' + k for k in keys)} match the reference on {judged} problems "
                        "(the reference's agree with central differences)")


def batch_scale(student, reference, options) -> Verdict:
    """The student's gradients are the same on a batch and on that batch with every example twice."""
    rtol = float(options.get("rtol", 1e-7))
    value = student.value if isinstance(student.value, dict) else {}
    single, twice = value.get("single"), value.get("twice")
    if not isinstance(single, dict) or not isinstance(twice, dict):
        return Verdict(0.0, "no gradients")
    batch = int(reference.value.get("batch", 1))
    changed = []  # (key, single, twice) of the gradients that changed
    for key in KEYS:
        one, why = _grad(single.get(key))
        if one is None:
            return Verdict(0.0, f"d{key} on a batch of {batch}: {why}")
        two, why = _grad(twice.get(key))
        if two is None:
            return Verdict(0.0, f"d{key} on the same batch with every example twice: {why}")
        if one.shape != two.shape or not np.all(np.isfinite(one)) or not np.any(one != 0):
            return Verdict(0.0, f"d{key}: shapes {one.shape} and {two.shape}, or no finite non-zero gradient")
        if not np.allclose(two, one, rtol=rtol, atol=1e-12):
            changed.append((key, one, two))
    if not changed:
        return Verdict(1.0, "the gradients do not change when every example of the batch appears twice: a batch mean")
    key, one, two = changed[0]
    if len(changed) == len(KEYS) and all(np.allclose(t, 2 * o, rtol=1e-6, atol=1e-12) for _, o, t in changed):
        divisor = _fixed_divisor(single, reference.value.get("single"), batch)
        how = (f"divided by a fixed {divisor:g} instead of this batch's size" if divisor is not None
               else "a sum over the batch")
        return Verdict(0.0, f"d{key} was {short(one)} on a batch of {batch} and {short(two)} on the same batch with "
                            f"every example twice: every gradient doubled, so it is {how}. The loss is the mean over "
                            "the batch, so dL/dlogits = (softmax - onehot) / B, B the rows of this batch",
                       misconception="not-averaged-over-batch")
    return Verdict(0.0, f"d{key} was {short(one)} on a batch of {batch} and {short(two)} on the same batch with every "
                        "example twice; a batch mean does not change when every example appears twice")


def _fixed_divisor(single: Any, expected: Any, batch: int) -> Optional[float]:
    """The whole number the student's gradients were divided by, when they are the reference's (a mean over
    `batch`) times one factor batch / d for every key with d neither 1 (a sum) nor `batch`: a batch size written
    into the code (32) instead of read from the data. None otherwise."""
    if not isinstance(single, dict) or not isinstance(expected, dict):
        return None
    factors = []
    for key in KEYS:
        got, _ = _grad(single.get(key))
        want, _ = _grad(expected.get(key))
        if got is None or want is None or got.shape != want.shape or not np.any(want != 0):
            return None
        mask = np.abs(want) > 1e-12
        factors.extend((got[mask] / want[mask]).ravel().tolist())
    factor = float(np.median(factors)) if factors else 0.0
    if factor <= 0 or not np.allclose(factors, factor, rtol=1e-6):
        return None
    divisor = batch / factor
    if abs(divisor - round(divisor)) > 1e-6 or round(divisor) in (1, batch):
        return None
    return float(round(divisor))


def digits_accuracy(student, reference, options) -> Verdict:
    """Test accuracy of the trained parameters (evaluated here, on images the child never saw): full marks at
    `target`, linear from `floor`."""
    target = float(options.get("target", 0.95))
    floor = float(options.get("floor", 0.7))
    labels = digits()["y_test"].astype(np.int64)
    value = student.value if isinstance(student.value, dict) else {}
    ref_acc = float(np.mean(held_out_predictions(reference.value["params"]) == labels))
    if "error" in value:
        return Verdict(0.0, f"training raised {error_text(value['error'], DISPLAY) or 'an error'}")
    losses = _losses(value.get("losses"))
    run = value.get("run") if isinstance(value.get("run"), dict) else {}
    figure = {"kind": "digits_training", "losses": losses, "reference_losses": _losses(reference.value.get("losses")),
              "target": target, "reference_accuracy": ref_acc}
    predictions = held_out_predictions(value.get("params"))
    if isinstance(predictions, str):
        return Verdict(0.0, predictions, figure=figure)
    acc = float(np.mean(predictions == labels))
    figure["accuracy"] = acc
    steps = value.get("steps") if isinstance(value.get("steps"), dict) else {}
    if isinstance(steps.get("off"), int) and steps["off"] > 0:
        return Verdict(0.0, f"test accuracy {acc:.1%} not credited: on {steps['off']} of {steps.get('count')} "
                            f"training steps (the first: step {steps.get('first_off')}) sgd_step did not return "
                            "params - lr * grads of the gradients your backward gave for that batch, so the "
                            "parameters were not trained by your backward and step (see the sgd_step test)",
                       figure=figure)
    fraction = 1.0 if acc >= target else max(0.0, (acc - floor) / (target - floor))
    epochs = run.get("epochs")
    message = (f"test accuracy {acc:.1%} on {labels.size} held-out digits (target {target:.0%}; the reference reaches "
               f"{ref_acc:.1%}) after {len(losses)} epochs of SGD (lr {run.get('lr')}, "
               f"batches of {run.get('batch_size')})")
    if isinstance(epochs, int) and len(losses) < epochs:
        message += (f"; training stopped early: the time budget of {run.get('max_seconds')} s ran out "
                    "(vectorise: no Python loop over examples or matrix entries)")
    if not all(np.isfinite(losses)):
        message += "; the training loss became inf or nan (see the softmax and cross_entropy tests)"
    if fraction < 1.0:
        message += ": check the backward against central differences and the loss against the reference values"
    return Verdict(fraction, message, figure=figure)


#: the parameters' shapes: 64 pixels, 64 hidden units, 10 classes (the probe's run)
SHAPES = {"W1": (64, 64), "b1": (64,), "W2": (64, 10), "b2": (10,)}


def held_out_predictions(params: Any) -> Union[np.ndarray, str]:
    """The classes the trained `params` give the test images, by the grader's own forward pass
    (x W1 + b1 → ReLU → · W2 + b2 → argmax); a message instead when `params` are not usable."""
    message = error_text(params, DISPLAY)
    if message:
        return f"reading the trained parameters raised {message}"
    if not isinstance(params, dict):
        return "the training returned no parameters"
    arrays = {}
    for key, shape in SHAPES.items():
        try:
            arrays[key] = to_array(params.get(key))
        except NotNumeric as exc:
            return f"trained {key}: {exc}"
        if arrays[key].shape != shape:
            return f"trained {key} has shape {arrays[key].shape}, expected {shape}"
    x = digits()["x_test"].astype(np.float64) / 16.0
    with np.errstate(all="ignore"):
        hidden = np.maximum(x @ arrays["W1"] + arrays["b1"], 0.0)
        return np.argmax(np.nan_to_num(hidden @ arrays["W2"] + arrays["b2"], nan=-np.inf), axis=1)


#: points of a loss curve kept (one per epoch: the probe sends at most `epochs`)
MAX_POINTS = 200


def _losses(value: Any) -> List[float]:
    """Per-epoch losses as floats (non-numbers become NaN, a gap in the curve), at most MAX_POINTS."""
    if not isinstance(value, list):
        return []
    out = []
    for v in value[:MAX_POINTS]:
        try:
            out.append(float(to_array(v)) if not isinstance(v, list) else float("nan"))
        except (NotNumeric, TypeError, ValueError):
            out.append(float("nan"))
    return out


JUDGES = {
    "values": values,
    "gradients": gradients,
    "batch_scale": batch_scale,
    "digits_accuracy": digits_accuracy,
}
