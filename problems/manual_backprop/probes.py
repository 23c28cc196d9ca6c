"""Hidden probes for `manual_backprop` (run in the sandbox with the student's functions swapped in).

Every probe calls the student's functions on seeded inputs and returns plain data: outputs as
nested lists, exceptions as error records (`capture`). Nothing here knows an expected value; the
parent compares with the same probe run on the reference, and the test digits never enter this
process (inputs_dir/digits.npz holds the training split only): the digits probe returns the trained
parameters, which the parent evaluates on the test images itself.

Cases carry what a judge needs to read them as evidence (which case is another one shifted by
+1000, or duplicated, which has logits beyond exp's range), so the judges test properties of the student's
own outputs.
"""

import os
import time

import numpy as np

from probekit import PROBES, capture, probe  # noqa: F401
from project import digits_mlp as mlp

KEYS = ("W1", "b1", "W2", "b2")
#: the most numbers one returned array may hold (a student result is never sent whole if it is huge)
MAX_ENTRIES = 20_000
#: central-difference step (float64, losses of order 1)
H = 1e-6
#: training time budget (seconds) on the digits: `train` stops after the epoch that passes it
TRAIN_SECONDS = 10.0
#: the digits run: the given `train`'s hyperparameters, passed explicitly
DIGITS_RUN = {"hidden": 64, "lr": 0.5, "epochs": 30, "batch_size": 32, "seed": 0}


def floats(value):
    """A student value as nested lists of float64 (raises on what is not numbers or is too big)."""
    arr = np.asarray(value, dtype=np.float64)
    if arr.size > MAX_ENTRIES:
        raise ValueError(f"a result of {arr.size} numbers (shape {arr.shape}) is far larger than expected")
    return arr.tolist()


def quiet(fn):
    """fn() with NumPy's floating-point errors neither raised nor printed: overflow gives inf/nan values."""
    with np.errstate(all="ignore"):
        return fn()


def call(fn, *args):
    """fn(*args) converted to lists, or an error record."""
    return capture(lambda: floats(quiet(lambda: fn(*args))))


# ------------------------------------------------------------------------- softmax family


def logit_cases():
    """Named logits: (name, what it is, array, extra fields for the judges)."""
    rng = np.random.default_rng(7)
    moderate = rng.normal(0.0, 3.0, (5, 4))
    confident = np.array([[0.0, 2.0, -1000.0, 1.0], [-1000.0, 0.0, 3.0, -5.0], [4.0, -1000.0, -998.5, 0.5]])
    mixed = np.stack([rng.normal(0.0, 2.0, 4), 1000.0 + rng.normal(0.0, 2.0, 4), -1000.0 + rng.normal(0.0, 2.0, 4)])
    return [
        ("moderate", "logits of 5 rows with moderate values", moderate, {}),
        ("single_row", "one row of 10 logits", rng.normal(0.0, 2.0, (1, 10)), {}),
        ("plus_1000", "the same 5 rows + 1000 (softmax is unchanged by adding a constant to a row)",
         moderate + 1000.0, {"shift_of": "moderate", "large_logits": True}),
        ("mixed_scales", "3 rows near 0, near +1000 and near -1000 (each row needs its own max)", mixed,
         {"large_logits": True}),
        ("confident", "confident logits: entries 1000 below their row's max (probabilities about e^-1000)",
         confident, {"log_sign": 1}),
    ]


def values_probe(fn, names):
    cases = []
    for name, what, z, extra in logit_cases():
        if name in names:
            cases.append({"case": name, "what": what, "output": call(fn, z.copy()), **extra})
    return cases


@probe("softmax")
def softmax_probe(_):
    return values_probe(mlp.softmax, {"moderate", "single_row", "plus_1000", "mixed_scales", "confident"})


@probe("log_softmax")
def log_softmax_probe(_):
    return values_probe(mlp.log_softmax, {"moderate", "single_row", "plus_1000", "mixed_scales", "confident"})


@probe("cross_entropy")
def cross_entropy_probe(_):
    """The loss of several batches; `duplicated` is batch_4 with every example twice (same mean)."""
    rng = np.random.default_rng(11)
    cases = []

    def add(name, what, logits, y, **extra):
        cases.append({"case": name, "what": what,
                      "output": call(mlp.cross_entropy, logits.copy(), y.copy()), **extra})

    one = rng.normal(0.0, 2.0, (1, 5))
    add("batch_1", "a batch of 1 example, 5 classes", one, np.array([3]))
    four, y4 = rng.normal(0.0, 2.0, (4, 6)), rng.integers(0, 6, 4)
    add("batch_4", "a batch of 4 examples, 6 classes", four, y4)
    nine, y9 = rng.normal(0.0, 3.0, (9, 10)), rng.integers(0, 10, 9)
    add("batch_9", "a batch of 9 examples, 10 classes", nine, y9)
    add("duplicated", "the batch of 4 with every example twice (8 rows): the mean is the same",
        np.concatenate([four, four]), np.concatenate([y4, y4]), twice_of="batch_4")
    add("plus_1000", "the batch of 9 with 1000 added to every logit (the loss is unchanged)",
        nine + 1000.0, y9, shift_of="batch_9", large_logits=True)
    confident = np.array([[0.0, 2.0, -1000.0, 1.0], [-1000.0, 0.0, 3.0, -5.0]])
    add("confident", "2 examples whose label's logit is 1000 below the row's max (loss about 1000)",
        confident, np.array([2, 0]), log_sign=-1)
    add("confident_right", "2 confident examples labelled with their most likely class (loss about 0)",
        confident, np.array([1, 2]))
    return cases


# ------------------------------------------------------------------------- the network


def random_problem(rng, batch, d, hidden, classes):
    """Params, inputs and labels of a small problem; no pre-activation within 0.01 of the ReLU's kink."""
    while True:
        params = {
            "W1": rng.normal(0.0, 0.8, (d, hidden)),
            "b1": rng.normal(0.0, 0.3, hidden),
            "W2": rng.normal(0.0, 0.8, (hidden, classes)),
            "b2": rng.normal(0.0, 0.3, classes),
        }
        x = rng.uniform(-1.0, 1.0, (batch, d))
        if np.min(np.abs(x @ params["W1"] + params["b1"])) > 0.01:  # central differences never straddle the kink
            return params, x, rng.integers(0, classes, batch)


def copied(params):
    return {k: v.copy() for k, v in params.items()}


def logits_of(params, x):
    """The student's forward: the logits (the first of its two results)."""
    out = quiet(lambda: mlp.forward(copied(params), x.copy()))
    if not (isinstance(out, tuple) and len(out) == 2):
        raise TypeError(f"forward must return (logits, cache), got {type(out).__name__}")
    return out[0]


@probe("forward")
def forward_probe(_):
    rng = np.random.default_rng(17)
    cases = []
    for batch, d, hidden, classes in ((5, 6, 4, 3), (1, 64, 16, 10), (12, 3, 7, 2)):
        params, x, _ = random_problem(rng, batch, d, hidden, classes)
        cases.append({"case": f"B{batch}_D{d}_H{hidden}_C{classes}",
                      "what": f"B = {batch} inputs of D = {d}, H = {hidden} hidden units, C = {classes} classes",
                      "output": capture(lambda: floats(logits_of(params, x)))})
    return cases


def gradients_of(params, x, y):
    """The student's backward after the student's forward: {key: list or error record}."""
    def run():
        out = quiet(lambda: mlp.forward(copied(params), x.copy()))
        if not (isinstance(out, tuple) and len(out) == 2):
            raise TypeError(f"forward must return (logits, cache), got {type(out).__name__}")
        grads = quiet(lambda: mlp.backward(copied(params), out[1], y.copy()))
        if not isinstance(grads, dict):
            raise TypeError(f"backward must return a dict of gradients, got {type(grads).__name__}")
        return grads

    grads = capture(run)
    if isinstance(grads, dict) and "__error__" in grads:
        return dict.fromkeys(KEYS, grads)
    return {k: capture(lambda k=k: floats(grads[k])) for k in KEYS}


def loss_at(params, x, y):
    return float(quiet(lambda: mlp.cross_entropy(logits_of(params, x), y.copy())))


def central_differences(params, x, y):
    """d loss / d every parameter entry from the student's own forward and cross_entropy."""
    fd = {}
    for key in KEYS:
        grad = np.zeros_like(params[key])
        for index in np.ndindex(params[key].shape):
            plus, minus = copied(params), copied(params)
            plus[key][index] += H
            minus[key][index] -= H
            grad[index] = (loss_at(plus, x, y) - loss_at(minus, x, y)) / (2 * H)
        fd[key] = grad.tolist()
    return fd


#: the confident problem's output biases, added to a small problem's: logits near +750 (beyond exp's range,
#: about 709.8) for two classes close to each other (probabilities between 0.1 and 0.9: a gradient neither 0 nor
#: +-1/B), one class near 0 and one near -750 (their probabilities underflow to 0)
CONFIDENT_B2 = (750.0, 749.0, 0.0, -750.0)
#: its labels: mostly the two likely classes (a loss of order 1 per example), one the class near 0
CONFIDENT_Y = (0, 1, 1, 0, 2, 1)


#: the rows problem's hidden activations (x itself: W1 = I, b1 = 0; no pre-activation near the kink) and the logits
#: they give (W2 solves h W2 = logits): each row's largest logit in another column, rows 750 apart in scale, and one
#: row of mean 0 spanning -1000..1000, so that a shift by anything but each row's own maximum (the batch's maximum,
#: the row's mean, its first column) overflows or leaves a row of zeros (nan)
ROWS_H = ((1.0, 0.1, 0.1), (0.1, 1.0, 0.1), (0.1, 0.1, 1.0))
ROWS_LOGITS = ((1500.0, 1499.0, 0.0), (-750.0, 750.0, 749.0), (0.0, -1000.0, 1000.0))
#: its labels: a likely class, a likely class, an unlikely one (a loss of about 1000, finite when stable)
ROWS_Y = (1, 2, 0)


def rows_problem():
    """The rows problem's params, inputs and labels (`ROWS_H`, `ROWS_LOGITS`, `ROWS_Y`)."""
    h = np.array(ROWS_H)
    params = {"W1": np.eye(3), "b1": np.zeros(3), "W2": np.linalg.solve(h, np.array(ROWS_LOGITS)), "b2": np.zeros(3)}
    return params, h.copy(), np.array(ROWS_Y)


def gradient_case(name, what, params, x, y, **extra):
    """One problem of the gradients probe: the student's gradients and central differences of the student's loss."""
    return {"case": name, "what": what, "batch": int(x.shape[0]), "grads": gradients_of(params, x, y),
            "central_differences": capture(lambda: central_differences(params, x, y)), **extra}


@probe("gradients")
def gradients_probe(_):
    """Two small problems with moderate logits, then two with confident logits (near +750; rows whose largest
    logits sit in different columns and differ by 750), judged on the output layer's gradients only (`keys`): the
    softmax inside backward must be the stable one too, each row shifted by its own maximum."""
    rng = np.random.default_rng(23)
    cases = []
    for batch, d, hidden, classes in ((7, 6, 5, 4), (3, 4, 8, 3)):
        params, x, y = random_problem(rng, batch, d, hidden, classes)
        cases.append(gradient_case(f"B{batch}_D{d}_H{hidden}_C{classes}",
                                   f"B = {batch}, D = {d}, H = {hidden}, C = {classes}", params, x, y))
    params, x, _ = random_problem(np.random.default_rng(37), len(CONFIDENT_Y), 5, 4, len(CONFIDENT_B2))
    params["b2"] = params["b2"] + np.array(CONFIDENT_B2)
    cases.append(gradient_case(
        "confident", f"B = {len(CONFIDENT_Y)}, D = 5, H = 4, C = {len(CONFIDENT_B2)} and confident logits: "
        "output biases near +750, +749, 0, -750 (logits beyond exp's range of about 709.8)",
        params, x, np.array(CONFIDENT_Y), keys=["W2", "b2"], large_logits=True))
    params, x, y = rows_problem()
    cases.append(gradient_case(
        "confident_rows", "B = 3, D = H = C = 3 and confident logits, each row's largest in another column: rows "
        "(1500, 1499, 0), (-750, 750, 749), (0, -1000, 1000)", params, x, y, keys=["W2", "b2"], large_logits=True,
        per_row=True))
    return cases


@probe("batch_scale")
def batch_scale_probe(_):
    """The gradients of one batch, and of the same batch with every example twice."""
    rng = np.random.default_rng(29)
    params, x, y = random_problem(rng, 6, 5, 4, 3)
    return {"batch": 6,
            "single": gradients_of(params, x, y),
            "twice": gradients_of(params, np.concatenate([x, x]), np.concatenate([y, y]))}


@probe("sgd_step")
def sgd_step_probe(_):
    rng = np.random.default_rng(31)
    cases = []
    for lr in (0.1, 0.75):
        params, _, _ = random_problem(rng, 2, 5, 4, 3)
        grads = {k: rng.normal(0.0, 1.0, v.shape) for k, v in params.items()}

        def step():
            new = quiet(lambda: mlp.sgd_step(copied(params), copied(grads), lr))
            if not isinstance(new, dict):
                raise TypeError(f"sgd_step must return the dict of parameters, got {type(new).__name__}")
            return {k: floats(new[k]) for k in KEYS}

        cases.append({"case": f"lr_{lr}", "what": f"one step with lr = {lr}", "output": capture(step)})
    return cases


# ------------------------------------------------------------------------- the digits


def he_params(n_in, n_hidden, n_out, seed):
    """The given `init_params`' starting point (He-initialised weights, zero biases), made by the grader."""
    rng = np.random.default_rng(seed)
    return {"W1": rng.normal(0.0, np.sqrt(2.0 / n_in), (n_in, n_hidden)), "b1": np.zeros(n_hidden),
            "W2": rng.normal(0.0, np.sqrt(2.0 / n_hidden), (n_hidden, n_out)), "b2": np.zeros(n_out)}


def sgd_training(x, y, hidden, lr, epochs, batch_size, seed, max_seconds):
    """The given `train`'s loop, run by the grader: minibatch SGD through the student's `forward`,
    `cross_entropy`, `backward` and `sgd_step` (read from the module at each call, as `train` does), each
    step checked to be params - lr * grads of the backward's gradients (StepCheck).

    The grader's own copy, so that no replacement of the module's given code can stand in for the
    student's functions. Returns (params, per-epoch mean losses)."""
    params = he_params(x.shape[1], hidden, int(y.max()) + 1, seed)
    rng = np.random.default_rng(seed + 1)
    started = time.perf_counter()
    losses, steps = [], StepCheck()
    for _ in range(epochs):
        order = rng.permutation(x.shape[0])
        batch = []
        for start in range(0, x.shape[0], batch_size):
            idx = order[start:start + batch_size]
            logits, cache = mlp.forward(params, x[idx])
            batch.append(float(mlp.cross_entropy(logits, y[idx])))
            grads = mlp.backward(params, cache, y[idx])
            expected = steps.expected(params, grads, lr)
            params = mlp.sgd_step(params, grads, lr)
            steps.check(params, expected)
        losses.append(float(np.mean(batch)))
        if time.perf_counter() - started > max_seconds:
            break
    return params, losses, steps.record()


class StepCheck:
    """Whether each training step's new parameters are params - lr * grads, of the gradients the student's
    backward returned for that batch (computed before the step: an sgd_step may update in place)."""

    def __init__(self):
        self.count, self.off, self.first_off = 0, 0, None

    @staticmethod
    def expected(params, grads, lr):
        try:
            return {key: np.asarray(params[key], dtype=np.float64) - lr * np.asarray(grads[key], dtype=np.float64)
                    for key in KEYS}
        except Exception:  # unusable gradients: the step cannot be checked, and the training shows it
            return None

    def check(self, params, expected):
        self.count += 1
        try:
            right = expected is None or all(
                np.allclose(np.asarray(params[key], dtype=np.float64), expected[key], rtol=1e-6, atol=1e-9,
                            equal_nan=True) for key in KEYS)
        except Exception:
            right = False
        if not right:
            self.off += 1
            self.first_off = self.first_off or self.count

    def record(self):
        return {"count": self.count, "off": self.off, "first_off": self.first_off}


@probe("digits")
def digits_probe(inputs_dir):
    """Train on the digits' training split with the student's functions; return the trained parameters.

    The test images never enter this process: the parent evaluates the returned parameters on them
    with its own forward pass."""
    data = np.load(os.path.join(inputs_dir, "digits.npz"))
    x_train = data["x_train"].astype(np.float64) / 16.0
    y_train = data["y_train"].astype(np.int64)
    started = time.perf_counter()
    trained = capture(lambda: quiet(lambda: sgd_training(x_train, y_train, max_seconds=TRAIN_SECONDS, **DIGITS_RUN)))
    seconds = time.perf_counter() - started
    result = {"run": {**DIGITS_RUN, "max_seconds": TRAIN_SECONDS}, "seconds": seconds}
    if isinstance(trained, dict):  # an error record
        return {**result, "error": trained}
    params, losses, steps = trained
    result["steps"] = steps
    result["losses"] = [float(v) for v in list(losses)[: DIGITS_RUN["epochs"]]]
    result["params"] = capture(lambda: {key: floats(params[key]) for key in KEYS})
    return result
