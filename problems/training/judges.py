"""Parent-side judges and inputs for `training`. The held-out labels never leave this process."""

from functools import lru_cache
from pathlib import Path

import numpy as np

from graders import paths
from graders.judge import Verdict, to_array, NotNumeric

HERE = Path(__file__).resolve().parent
HELDOUT = HERE / "hidden" / "heldout.tsv"
MAX_LEN = 25


def _datasets():
    import sys

    if str(paths.REFERENCE) not in sys.path:
        sys.path.insert(0, str(paths.REFERENCE))
    from minitorch import datasets

    return datasets


@lru_cache(maxsize=1)
def heldout():
    return _datasets().load_sst2_tsv(HELDOUT)


def prepare_inputs(dest: Path) -> None:
    """data.npz: the public training split with labels, the held-out split without labels."""
    datasets = _datasets()
    train, _ = datasets.load_sentiment()
    embeddings = datasets.load_embeddings()
    X_train, y_train = datasets.encode_sentences(train, embeddings, max_len=MAX_LEN)
    X_held, _ = datasets.encode_sentences(heldout(), embeddings, max_len=MAX_LEN)
    np.savez_compressed(
        dest / "data.npz",
        X_train=np.asarray(X_train, dtype=np.float64),
        y_train=np.asarray(y_train, dtype=np.float64),
        X_heldout=np.asarray(X_held, dtype=np.float64),
    )


def heldout_accuracy(student, reference, options) -> Verdict:
    """Accuracy of the returned probabilities on the hidden labels: full marks at the target, partial above chance."""
    target = float(options.get("target", 0.75))
    floor = float(options.get("floor", 0.5))
    value = student.value if isinstance(student.value, dict) else {}
    labels = np.array([ex.label for ex in heldout()], dtype=np.float64)
    try:
        probs = to_array(value.get("probabilities"))
    except NotNumeric as exc:
        return Verdict(0.0, f"predictions: {exc}")
    if probs.shape != labels.shape:
        return Verdict(0.0, f"{probs.size} predictions for {labels.size} held-out sentences")
    if not np.all(np.isfinite(probs)):
        return Verdict(0.0, "the trained network outputs NaN or infinity (did the loss diverge?)")
    acc = float(np.mean((probs > 0.5) == (labels > 0.5)))
    ref_acc = float(np.mean((to_array(reference.value["probabilities"]) > 0.5) == (labels > 0.5)))
    fraction = 1.0 if acc >= target else max(0.0, (acc - floor) / (target - floor))
    figure = {"kind": "training", "losses": value.get("losses") if isinstance(value.get("losses"), list) else [],
              "accuracy": acc, "target": target}
    message = f"held-out accuracy {acc:.1%} (target {target:.0%}; the reference loop reaches {ref_acc:.1%})"
    if fraction < 1.0:
        message += ": check that every step clears the gradients, computes the loss, calls backward and steps"
    return Verdict(fraction, message, figure=figure)


def gradients_cleared(student, reference, options) -> Verdict:
    """Before every backward pass, the leaves' gradients must be cleared (None or zero)."""
    value = student.value if isinstance(student.value, dict) else {}
    leftover = value.get("leftover")
    if not isinstance(leftover, list) or not leftover:
        return Verdict(0.0, "the training loop never called backward()")
    try:
        worst = float(np.max(to_array(leftover)))
    except NotNumeric as exc:
        return Verdict(0.0, str(exc))
    expected = reference.value["backward_calls"]
    if worst > 0.0:
        return Verdict(0.0, f"gradients from earlier steps were still there before a backward pass "
                            f"(largest leftover {worst:.3g})", misconception="no-zero-grad")
    if len(leftover) != expected:
        return Verdict(0.0, f"{len(leftover)} backward passes for {expected} batches: one per batch expected")
    return Verdict(1.0, "gradients cleared before every backward pass")


def eval_mode(student, reference, options) -> Verdict:
    """Validation forwards run in eval mode; training forwards in training mode."""
    value = student.value if isinstance(student.value, dict) else {}
    val, train = value.get("validation"), value.get("training")
    if not isinstance(val, list) or not isinstance(train, list):
        return Verdict(0.0, "no forward calls recorded")
    if not val:
        return Verdict(0.0, "the validation data was never evaluated (data_val was given)")
    if any(v is not False for v in val):
        return Verdict(0.0, "validation predictions were computed in training mode (dropout active): "
                            "call model.eval() first", misconception="dropout-in-eval")
    if not train or any(v is not True for v in train):
        return Verdict(0.0, "some training steps ran in evaluation mode: call model.train() again after validating")
    return Verdict(1.0, "eval mode for validation, training mode for training")


JUDGES = {"heldout_accuracy": heldout_accuracy, "gradients_cleared": gradients_cleared, "eval_mode": eval_mode}
