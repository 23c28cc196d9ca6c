"""Parent-side judges for `network`."""

import itertools
from typing import Any, Dict, Optional

import numpy as np

from graders.api import NotNumeric, Verdict, compare_values, to_array


def parameter_shapes(student, reference, options) -> Verdict:
    """The registered parameters have exactly the reference's shapes (names are free); with the option
    `random_weights`, the weight matrices also start random (no two units, columns, alike; a constant bias is free)."""
    got = student.value if isinstance(student.value, list) else [student.value]
    want = reference.value if isinstance(reference.value, list) else [reference.value]
    for g, w in zip(got, want):
        if not isinstance(g, dict):
            return Verdict(0.0, "no parameter list")
        if g.get("count") == 0:
            return Verdict(0.0, "no parameters are registered: assign minitorch.Parameter objects as attributes "
                                "(self.weights = minitorch.Parameter(...)) so named_parameters() finds them")
        if g.get("shapes") != w["shapes"]:
            return Verdict(0.0, f"parameter shapes {g.get('shapes')}, expected {w['shapes']} "
                                "(weights (in_size, out_size), bias (out_size,))")
        if options.get("random_weights") and g.get("alike") and not w.get("alike"):
            return Verdict(0.0, f"the weights of shape {g['alike'][0]} give every unit (column) the same start: "
                                "every unit of the layer computes the same thing and gets the same gradient, so "
                                "training never tells them apart. Draw every weight at random, as the course's RParam "
                                "helper does", misconception="weights-not-random")
    started = ", weights starting random" if options.get("random_weights") else ""
    return Verdict(1.0, f"parameters registered with the contract's shapes{started}")


def _tolerances(options):
    return float(options.get("rtol", 1e-9)), float(options.get("atol", 1e-12))


def forward_eval(student, reference, options) -> Verdict:
    """Each batch's output has the shape [B] (one probability per sentence) and the reference's values. A wrong
    shape is said as shapes ([3, 1, 1] against [3]), before any value is compared."""
    rtol, atol = _tolerances(options)
    got = student.value if isinstance(student.value, list) else []
    for k, want in enumerate(reference.value):
        case = got[k] if k < len(got) and isinstance(got[k], dict) else {}
        batch = f"a batch of {want['shape'][0]} sentence(s)"
        if case.get("shape") != want["shape"]:
            return Verdict(0.0, f"{batch}: the output has shape {case.get('shape')}, expected {want['shape']}: one "
                                "probability per sentence, so view the last layer's output as (batch,) "
                                "(a mean over the length keeps its dimension: [B, 1, hidden] until viewed)")
        problem = compare_values(case.get("values"), want["values"], rtol, atol, "values")
        if problem:
            return Verdict(0.0, f"{batch}: {problem}{_one_step_off(case, want)}")
    return Verdict(1.0, f"output shape [B] and values match the reference on {len(reference.value)} batches")


#: networks one step off the contract's (mean -> Linear -> ReLU -> Linear -> sigmoid), as `_forward`'s arguments,
#: and what a student whose outputs are theirs is told
ONE_STEP_OFF = (
    ({"pool": "sum"}, "the word embeddings are summed over the sentence's length: the contract averages them "
                      "(embeddings.mean(1))"),
    ({"pool": "max"}, "the word embeddings' maximum over the sentence's length is taken: the contract averages them"),
    ({"relu": False}, "there is no ReLU between the two Linear layers"),
    ({"sigmoid": False}, "there is no sigmoid after the second Linear layer (the output must be a probability)"),
    ({"relu_out": True}, "a ReLU follows the second Linear layer: only the sigmoid comes after it"),
)


def _forward(inputs, parameters, pool="mean", relu=True, sigmoid=True, relu_out=False) -> np.ndarray:
    """The contract's forward (eval mode, dropout_prob = 0) on `inputs` [B, L, 6] with `parameters` by shape, or a
    network one step off it."""
    x = np.asarray(inputs, dtype=np.float64)
    pooled = {"mean": x.mean(axis=1), "sum": x.sum(axis=1), "max": x.max(axis=1)}[pool]
    hidden = pooled @ np.asarray(parameters["[6, 4]"]) + np.asarray(parameters["[4]"])
    if relu:
        hidden = np.maximum(hidden, 0.0)
    z = (hidden @ np.asarray(parameters["[4, 1]"]) + np.asarray(parameters["[1]"])).reshape(-1)
    if relu_out:
        z = np.maximum(z, 0.0)
    return 1.0 / (1.0 + np.exp(-z)) if sigmoid else z


def _one_step_off(case: Dict[str, Any], want: Dict[str, Any]) -> str:
    """"; <what differs>" when the student's outputs are those of a network one step off the contract's
    (ONE_STEP_OFF) on the inputs and parameters the probe sent, else "". The sent data (the student's process's)
    only word the message: they must give the reference's values through the contract's forward first."""
    try:
        inputs, parameters = case["inputs"], case["parameters"]
        got = to_array(case["values"])
        if not np.allclose(_forward(inputs, parameters), to_array(want["values"]), rtol=1e-9, atol=1e-12):
            return ""
        for variant, said in ONE_STEP_OFF:
            off = _forward(inputs, parameters, **variant)
            if off.shape == got.shape and np.allclose(off, got, rtol=1e-6, atol=1e-9):
                return f"; they are those of the contract's network where {said}"
    except (KeyError, TypeError, ValueError, IndexError, ArithmeticError, NotNumeric):  # data it cannot read
        return ""
    return ""


#: the Network's parameters in the gradient probe (embedding 6, hidden 4), by their shapes
PARAMETERS = {"[6, 4]": "the first Linear's weights", "[4]": "the first Linear's bias",
              "[4, 1]": "the second Linear's weights", "[1]": "the second Linear's bias"}


def network_gradients(student, reference, options) -> Verdict:
    """The gradient of every parameter (keyed by its shape) equals the reference's; the message names the parameter.
    When the output's shape is not [B], the probe's loss sum(out * g) broadcast: that is said first."""
    rtol, atol = _tolerances(options)
    got = student.value if isinstance(student.value, dict) else {}
    want = reference.value
    shape, expected = got.get("output_shape"), want["output_shape"]
    if shape != expected:
        return Verdict(0.0, f"the output has shape {shape}, expected {expected}, so the loss sum(out * g) with g of "
                            f"shape {expected} broadcast to other values: view the output as (batch,) first (the "
                            "gradients follow from it)")
    grads = got.get("grads") if isinstance(got.get("grads"), dict) else {}
    for key, values in want["grads"].items():
        name = PARAMETERS.get(key, "a parameter")
        if key not in grads:
            return Verdict(0.0, f"no parameter of shape {key} ({name}): parameters {sorted(grads)}")
        if values is not None and grads[key] is None:
            return Verdict(0.0, f"{name} (shape {key}) got no gradient: is it a minitorch.Parameter used in forward?")
        problem = compare_values(grads[key], values, rtol, atol, f"gradient of {name} (shape {key})")
        if problem:
            return Verdict(0.0, problem)
    return Verdict(1.0, "every parameter's gradient matches the reference")


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def dropped_hidden_layer(value, train, evals) -> Optional[str]:
    """Why the training-mode outputs are not the network with some hidden units dropped (None: they are).

    Judged only when the evaluation-mode output is exactly sigmoid(h W2 + b2) for the probe's hidden
    layer h (the architecture is right; if not, the value tests say so). Each training output must then
    be sigmoid((m * h * s) W2 + b2) for some 0/1 mask m over the hidden units and a scale s of 1 (the
    course's dropout) or 1 / (1 - rate) (inverted dropout).
    """
    try:
        hidden, w2 = to_array(value.get("hidden")), to_array(value.get("w2")).ravel()
        b2, rate = float(value.get("b2")), float(value.get("rate"))
    except (NotNumeric, TypeError, ValueError):
        return None
    if hidden.ndim != 2 or hidden.shape[1] != w2.size or w2.size > 10 or train.shape[1] != hidden.shape[0] \
            or evals.shape[1] != hidden.shape[0]:  # every output row is one batch: never broadcast other shapes
        return None
    if not np.allclose(evals, _sigmoid(hidden @ w2 + b2), rtol=1e-7, atol=1e-9):
        return None
    masks = np.array(list(itertools.product((0.0, 1.0), repeat=w2.size)))
    scales = (1.0, 1.0 / (1.0 - rate))
    for row, h in enumerate(hidden):
        allowed = np.concatenate([_sigmoid((masks * h * s) @ w2 + b2) for s in scales])
        for out in train[:, row]:
            if not np.any(np.isclose(allowed, out, rtol=1e-7, atol=1e-9)):
                return (f"a training-mode output ({out:.6g}) is not the network with some hidden units dropped: "
                        "dropout belongs on the hidden layer, after the first Linear and its ReLU and before the "
                        "second Linear")
    return None


def dropped_output(value, outputs) -> Optional[str]:
    """Why the outputs show dropout on the network's OUTPUT, after the second Linear (None: they do not).

    For a network whose eval-mode output cannot be read as the architecture's (dropout left on in eval mode), the
    placement is judged on positive evidence only: every output, in either mode, is sigmoid(m z s) for the probe's
    pre-activation z = h W2 + b2 of its row, a 0/1 mask m and a scale s of 1 or 1 / (1 - rate) (the output unit
    dropped gives exactly 0.5), some output is 0.5, and some output is not the network with hidden units dropped.
    """
    try:
        hidden, w2 = to_array(value.get("hidden")), to_array(value.get("w2")).ravel()
        b2, rate = float(value.get("b2")), float(value.get("rate"))
    except (NotNumeric, TypeError, ValueError):
        return None
    if hidden.ndim != 2 or hidden.shape[1] != w2.size or w2.size > 10 or outputs.shape[1] != hidden.shape[0] \
            or not np.all(np.isfinite(outputs)):
        return None
    z = hidden @ w2 + b2
    scales = (1.0, 1.0 / (1.0 - rate))
    masks = np.array(list(itertools.product((0.0, 1.0), repeat=w2.size)))
    half = np.isclose(outputs, 0.5, rtol=0, atol=1e-12)
    explained, dropped_hidden = True, True
    for row, h in enumerate(hidden):
        on_output = np.array([0.5] + [float(_sigmoid(z[row] * s)) for s in scales])
        on_hidden = np.concatenate([_sigmoid((masks * h * s) @ w2 + b2) for s in scales])
        for out in outputs[:, row]:
            explained = explained and bool(np.any(np.isclose(on_output, out, rtol=1e-7, atol=1e-9)))
            dropped_hidden = dropped_hidden and bool(np.any(np.isclose(on_hidden, out, rtol=1e-7, atol=1e-9)))
    if not explained or dropped_hidden or not half.any():
        return None
    return ("outputs of exactly 0.5 (sigmoid(0)) show the output unit dropped: dropout is applied after the second "
            "Linear; it belongs on the hidden layer, after the first Linear and its ReLU and before the second Linear")


def dropout_modes(student, reference, options) -> Verdict:
    """Dropout is random in training mode and off in evaluation mode (spreads computed here, in the parent)."""
    value = student.value if isinstance(student.value, dict) else {}
    try:
        train, evals = to_array(value.get("train")), to_array(value.get("eval"))
    except NotNumeric as exc:
        return Verdict(0.0, f"outputs: {exc}")
    if train.ndim < 2 or evals.ndim < 2 or train.shape[0] < 2 or evals.shape[0] < 2:
        return Verdict(0.0, "outputs of the wrong shape")
    # one row per forward; the output's own shape (e.g. [B, 1] instead of [B]) is the value tests' business
    train, evals = train.reshape(train.shape[0], -1), evals.reshape(evals.shape[0], -1)
    problems = []
    train_fixed = bool(np.all(np.isfinite(train)) and float(np.max(np.std(train, axis=0))) <= 1e-9)
    if not np.all(np.isfinite(train)) or train_fixed:
        problems.append("in training mode the output should be random (dropout active)")
    eval_random = bool(np.all(np.isfinite(evals)) and float(np.max(np.std(evals, axis=0))) >= 1e-12)
    if train_fixed and eval_random:
        return Verdict(0.0, "dropout is off in training mode and on in evaluation mode: the mode is inverted "
                            "(ignore=self.training); pass ignore=not self.training to minitorch.dropout",
                       misconception="dropout-mode-inverted")
    if eval_random:
        problems.append("in evaluation mode the output is random: dropout is still active after model.eval() "
                        "(pass ignore=not self.training to minitorch.dropout)")
    elif not np.all(np.isfinite(evals)):
        problems.append("in evaluation mode the output is not finite")
    if problems:
        # dropout left on in eval mode hides the architecture's clean output: its placement is judged apart
        misplaced = dropped_output(value, np.concatenate([train, evals])) if eval_random else None
        if misplaced:
            problems.append(misplaced)
        return Verdict(0.0, "; ".join(problems), misconception="dropout-in-eval" if eval_random else None,
                       also=("dropout-misplaced",) if misplaced else ())
    misplaced = dropped_hidden_layer(value, train, evals)
    if misplaced:
        return Verdict(0.0, misplaced, misconception="dropout-misplaced")
    return Verdict(1.0, "dropout active in training, off in evaluation, on the hidden layer")


JUDGES = {"parameter_shapes": parameter_shapes, "dropout_modes": dropout_modes, "forward_eval": forward_eval,
          "network_gradients": network_gradients}
