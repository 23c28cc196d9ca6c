"""Hidden probes for `training` (run in the sandbox): the student's loss and training loop
driving the reference Network.

Inputs come from the parent (inputs_dir/*.npy): training embeddings with
labels, and held-out embeddings WITHOUT labels. The accuracy probe returns
predicted probabilities; the parent, which alone has the labels, scores them.

The loop probes only observe (plain data for the parent's judges):

- `LoopAudit` hooks the framework's backpropagate (`backpropagate_hooked`: under any name) and the
  optimizers' `step`: for every step, how many backward passes the gradient each parameter carries came from.
  The course's optimizers REPLACE each parameter's value, so a loop without
  `zero_grad` still steps with one backward's gradient; only gradients that
  really reach a step (two backward passes per step, a backward on the
  validation loss before the next step) count as leftovers.
- `WatchedNetwork` records, per forward, the mode and which examples it was fed;
  the audit marks the forwards whose output reached a backward pass (the rows
  the loop trained on). It also stops, early and with a clear record, a loop
  that feeds the whole training set as every batch (it would otherwise train
  for minutes and hit the time limit).

Every list returned is bounded in size whatever the loop does (see "bounded results"): a loop
that calls log_fn a million times sends an even sample of its losses and the count of calls.
"""

import gc
import os
import types
import weakref
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, ClassVar, Dict, List, Set, Tuple

import numpy as np

import minitorch
from minitorch import autodiff, optim
from probekit import PROBES, checkpoint, checkpointed, error_record, probe  # noqa: F401
from project import run_sentiment as hw

# The loop's own tensors may name the pure-Python backend (the fall-2025 TODO: "create x and y ... through
# the SimpleOps backend"). It computes the same values as the NumPy backend (bit for bit on map, zip and
# reduce), which trains the held-out run in seconds instead of minutes: the loop is graded, not the backend.
# However the loop reaches it (`minitorch.SimpleBackend`, or a `TensorBackend(SimpleOps)` of its own, made once
# or at every batch), SimpleOps computes with the NumPy backend's operations. (The course's other backend,
# CudaKernelOps, is the NumPy backend already: minitorch/cuda_kernel_ops.py.)
minitorch.SimpleBackend = minitorch.FastBackend
for _name in ("map", "zip", "reduce", "matrix_multiply"):
    setattr(minitorch.SimpleOps, _name, minitorch.FastOps.__dict__[_name])


@lru_cache(maxsize=1)
def load(inputs_dir):
    """(X_train, y_train, X_heldout) of inputs_dir's .npy files, mapped read-only once per process (the three
    probes that train read the same arrays), as plain read-only arrays (views of the maps, not np.memmap)."""
    return tuple(np.load(os.path.join(inputs_dir, f"{name}.npy"), mmap_mode="r", allow_pickle=False).view(np.ndarray)
                 for name in ("X_train", "y_train", "X_heldout"))


def as_lists(x):
    return np.asarray(x, dtype=np.float64).tolist()


class Sentence(list):
    """A sentence as the course's loop receives it: a list of words, each a plain list of floats, with every list
    behaviour. It also keeps the float64 array it was made from, which NumPy takes through `__array__` instead of
    reading the floats back one by one (`minitorch.tensor(X_train[i:i + batch_size])` parses 40,000 of them per
    batch), and a shallow copy of its words as made (`made`): the array is the sentence's while every word is a
    list equal to its copy (list equality: a word whose floats are the objects it was made with compares in a
    pointer check per float). A changed sentence or word, however it was changed, is read as NumPy reads plain lists.
    (The one change this cannot see, 0.0 written over -0.0 or back, changes no product or sum of a training step.)"""

    def __init__(self, words=(), array=None):
        super().__init__(words)
        self.array = array
        self.made = [list(word) for word in self] if array is not None else None

    def __array__(self, dtype=None, copy=None):
        made = self.made
        # every word a plain list (so that no __eq__ of graded code's answers), then list equality word by word:
        # both loops in C (a generator over the words cost 0.1 s of CPU per training run)
        if made is not None and len(self) == len(made) and set(map(type, self)) == {list} and \
                list.__eq__(self, made):
            array = self.array.copy()
        else:
            array = np.array(list(self))
        return array if dtype is None else array.astype(dtype, copy=False)


def course_lists(X):
    """The sentences of X (sentences x words x dimensions) as the course's loop receives them: nested lists of
    floats (`Sentence`s of plain lists). Made with the garbage collector paused, then moved out of its reach
    (`gc.freeze`): 60,000 lists holding three million floats otherwise cost a collection per 700 lists while they
    are made, and every later collection walks them all (they hold no cycles: freed by their reference counts)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    collecting = gc.isenabled()
    gc.disable()
    try:
        sentences = [Sentence(_words(sentence, count), sentence) for sentence, count in zip(X, _word_counts(X))]
        gc.freeze()
        return sentences
    finally:
        if collecting:
            gc.enable()


def _word_counts(X):
    """For each sentence of X, its words up to the last one with a bit set: the padding after it is +0.0 throughout."""
    if X.size == 0:
        return [0] * len(X)
    used = X.view(np.uint64).any(axis=2)
    return np.where(used.any(axis=1), X.shape[1] - np.argmax(used[:, ::-1], axis=1), 0).tolist()


def _words(sentence, count):
    """A sentence's words as lists of floats (`tolist`), its padding after `count` words as lists of one shared
    0.0: equal lists, made without a float object per zero (two thirds of the training words are padding)."""
    words = sentence[:count].tolist()
    words.extend([[0.0] * sentence.shape[1] for _ in range(len(sentence) - count)])
    return words


def quiet_log(*args, **kwargs):
    pass


def logged_loss(args, kwargs):
    """The epoch's training loss in the course's call `log_fn(epoch, train_loss, train_accuracy,
    validation_predictions, validation_accuracy)`, passed by position or by its name (the parameters of the
    starters' `default_log_fn`); NaN when the call has none."""
    value = kwargs["train_loss"] if "train_loss" in kwargs else args[1] if len(args) > 1 else float("nan")
    return float(value)


# --------------------------------------------------------------------------- bounded results
#
# Every list a probe returns grows with what the student's loop does (log_fn calls, optimizer steps,
# forwards), so each is capped here, before it is sent: a normal loop's lists are far below the caps
# and are sent whole; past a cap, the total is sent with a bounded sample.

#: points kept of the loss curve (an even sample of the log_fn calls, the last call always included)
MAX_LOSS_POINTS = 2000
#: optimizer steps and trained forwards kept per audited run (the loop probe's runs have 8 batches)
MAX_STEPS = 1000
MAX_TRAINED = 1000
#: row indices kept per trained forward (the loop probe's data has 66 distinct rows)
MAX_ROWS = 256
#: modes kept per kind of forward in `eval_mode` (past it, only a mode not yet kept is added)
MAX_MODES = 1000


class Thinned:
    """An even sample of at most `cap` + 1 values of a stream of unknown length, with its total.

    Keeps every `stride`-th value (calls 1, 1 + stride, 1 + 2 stride, ...); when more than `cap`
    are kept, every other one is dropped and the stride doubles. The last value is always sent.
    Below the cap, every value is kept: `points()` is the whole stream.
    """

    def __init__(self, cap):
        self.cap, self.count, self.stride = cap, 0, 1
        self.kept, self.last = [], None  # [call number from 1, value]

    def add(self, value):
        self.count += 1
        self.last = [self.count, value]
        if (self.count - 1) % self.stride == 0:
            self.kept.append(self.last)
            if len(self.kept) > self.cap:
                self.kept = self.kept[::2]
                self.stride *= 2

    def points(self):
        """[call number, value] of the kept values, in call order, the last call included."""
        if self.last is not None and (not self.kept or self.kept[-1][0] != self.count):
            return self.kept + [self.last]
        return list(self.kept)


def capped(items, cap):
    """At most `cap` items of a list (the first ones)."""
    return items if len(items) <= cap else items[:cap]


@probe("bce_values")
def bce_values(_):
    """Loss and ∂loss/∂p for probabilities in [0.05, 0.95] and 0/1 labels, batches of 1, 4 and 9."""
    rng = np.random.default_rng(3)
    cases = []
    for batch in (1, 4, 9):
        p = minitorch.tensor(rng.uniform(0.05, 0.95, (batch,)), requires_grad=True)
        y = minitorch.tensor(rng.integers(0, 2, (batch,)).astype(float))
        loss = hw.binary_cross_entropy_loss(p, y)
        loss.backward()
        cases.append({"loss": float(loss.item()), "grad": as_lists(p.grad.to_numpy()),
                      "p": as_lists(p.to_numpy()), "y": as_lists(y.to_numpy())})
    return cases


# --------------------------------------------------------------------------- the loop's observers


def fingerprints(X):
    """One number per example (its embeddings' sum), to recognise which rows a forward was fed."""
    return [round(float(v), 9) for v in np.asarray(X, dtype=np.float64).reshape(len(X), -1).sum(axis=1)]


def distinct_rows(X, count, avoid=()):
    """Indices of the first `count` rows of X whose fingerprints are distinct (and not in `avoid`)."""
    seen, chosen = set(avoid), []
    for i, f in enumerate(fingerprints(X)):
        if f not in seen:
            seen.add(f)
            chosen.append(i)
        if len(chosen) == count:
            break
    return chosen


class WholeSetEveryBatch(BaseException):
    """Raised by WatchedNetwork when the loop keeps feeding more than batch_size rows per training forward.

    A BaseException, so a student's `except Exception` does not swallow it; once
    raised, every later forward raises it again.
    """


class WatchedNetwork(hw.Network):
    """The reference Network, recording every forward: its mode, its rows, its output.

    `rows` maps an example's fingerprint to its index (training examples 0..n-1,
    validation examples -1-k). With `trip_after = k`, the (k+1)-th training-mode
    forward of more than `batch_size` rows within one epoch (`epoch_end` is
    called from log_fn) stops the run: a pass or two over the whole set per
    epoch (say, for the training accuracy) is allowed, every batch being the
    whole set is not.
    """

    def setup(self, rows, batch_size, record=True, trip_after=None):
        self.watch_rows = rows
        self.watch_batch = batch_size
        self.watch_record = record
        self.trip_after = trip_after
        self.forwards = []  # [training, [row indices], output tensor]
        self.trained_rows = 0  # rows of every training-mode forward
        self.oversize = 0
        self.tripped = None
        return self

    def epoch_end(self):
        self.oversize = 0

    def forward(self, embeddings):
        if self.tripped is not None:
            raise WholeSetEveryBatch(self.tripped)
        rows = [self.watch_rows.get(f, None) for f in fingerprints(embeddings.to_numpy())]
        if self.training and len(rows) > self.watch_batch:
            self.oversize += 1
            if self.trip_after is not None and self.oversize > self.trip_after:
                self.tripped = {"rows": len(rows), "batch_size": self.watch_batch,
                                "examples": sum(1 for r in self.watch_rows.values() if r >= 0)}
                raise WholeSetEveryBatch(self.tripped)
        if self.training:
            self.trained_rows += len(rows)
        out = super().forward(embeddings)
        if self.watch_record:
            self.forwards.append([bool(self.training), rows, out])
        return out


def _graph_ids(root):
    """ids of every variable in the graph of `root` (walked through history.inputs, constants included)."""
    seen, stack = set(), [root]
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        history = getattr(v, "history", None)
        if history is not None:
            stack.extend(getattr(history, "inputs", None) or ())
    return seen


def _grad(value):
    """A parameter value's gradient as a float array, or None when it has none (or only zeros)."""
    grad = getattr(value, "grad", None)
    if grad is None:
        return None
    arr = np.asarray(grad.to_numpy(), dtype=np.float64)
    return arr if np.any(arr != 0) else None


#: the global of the framework's autodiff module through which a hooked backpropagate reaches its hook
HOOK_NAME = "_grader_backpropagate_hook"


def _trampoline(variable, deriv):
    """The code a hooked backpropagate runs (with autodiff's globals): the hook, under HOOK_NAME."""
    return _grader_backpropagate_hook(variable, deriv)  # noqa: F821 (autodiff's global while hooked)


@contextmanager
def backpropagate_hooked(hook):
    """While active, every call of the framework's backpropagate, under any name (autodiff's, which
    `Tensor.backward` calls; minitorch's re-export; an alias, a default argument, an attribute holding it), runs
    `hook(variable, deriv)`. The function object stays the one every name holds: its code is swapped for
    `_trampoline`'s and put back after. Yields the original function (a copy with the original code), which the
    hook calls to do the work."""
    function = autodiff.backpropagate
    code = function.__code__
    real = types.FunctionType(code, function.__globals__, function.__name__, function.__defaults__,
                              function.__closure__)
    function.__globals__[HOOK_NAME] = hook
    function.__code__ = _trampoline.__code__
    try:
        yield real
    finally:
        function.__code__ = code
        function.__globals__.pop(HOOK_NAME, None)


class LoopAudit:
    """Counts, per parameter value, the backward passes its gradient accumulates; reads them at each step.

    A gradient is "fresh" when the backward pass that wrote it found no gradient
    there; every further backward pass before the gradient is cleared adds one.
    A step records the largest count over the parameters (1 = one backward's
    gradient, as the course intends) and how many parameters had a gradient.
    """

    #: backward passes whose loss is recorded with the batch's outputs and labels (the loss test of inline losses)
    RECORDED_LOSSES = 4

    def __init__(self, model, labels=None):
        self.model = model
        self.labels = labels
        self.losses = []  # {"loss", "out", "y"} of the first backward passes fed by one training forward
        self.passes = {}  # id(value) -> [value, count]; the value is kept so its id is not reused
        self.backwards = 0
        self.steps = []  # the first MAX_STEPS steps ({"with_grad", "passes"}); step_count counts them all
        self.step_count = 0
        self.optimizers = []  # [optimizer, is an Adam, steps] of the first MAX_STEPS optimizers stepped, each once
        self.optimizer_count = 0  # every optimizer stepped
        self.trained = []  # [training, rows, len(rows)] of the first MAX_TRAINED forwards that reached a backward
        self.trained_count = 0  # rows: the first MAX_ROWS
        self._counted = set()
        self._backprop = autodiff.backpropagate  # a copy of the original once entered (backpropagate_hooked)
        self._steps = {cls: cls.__dict__["step"] for cls in (optim.SGD, optim.Adam) if "step" in cls.__dict__}

    def _values(self):
        return [p.value for p in self.model.parameters() if p.value is not None]

    def backpropagate(self, variable, deriv):
        before = {id(v): _grad(v) for v in self._values()}
        ids = _graph_ids(variable)
        self._note_forwards(ids)
        self._note_loss(variable, ids)
        result = self._backprop(variable, deriv)
        self.backwards += 1
        for v in self._values():
            old, new = before.get(id(v)), _grad(v)
            if new is None or (old is not None and old.shape == new.shape and np.array_equal(old, new)):
                continue  # not reached by this backward pass
            entry = self.passes.get(id(v))
            if old is None or entry is None or entry[0] is not v:
                self.passes[id(v)] = [v, 1]
            else:
                entry[1] += 1
        return result

    def _note_loss(self, variable, ids):
        """The value backpropagated, with the outputs and labels of the one training batch it comes from."""
        forwards = getattr(self.model, "forwards", None)
        if self.labels is None or not forwards or len(self.losses) >= self.RECORDED_LOSSES:
            return
        fed = [(rows, out) for training, rows, out in forwards if training and id(out) in ids]
        if len(fed) != 1 or any(r is None or r < 0 for r in fed[0][0]):
            return
        rows, out = fed[0]
        value = np.asarray(variable.to_numpy(), dtype=np.float64).ravel()
        self.losses.append({"loss": float(value[0]) if value.size == 1 else None,
                            "out": as_lists(out.to_numpy().ravel()),
                            "y": [float(self.labels[r]) for r in rows]})

    def _note_forwards(self, ids):
        forwards = getattr(self.model, "forwards", None)
        if not forwards:
            return
        for i, (training, rows, out) in enumerate(forwards):
            if i not in self._counted and id(out) in ids:
                self._counted.add(i)
                self.trained_count += 1
                if len(self.trained) < MAX_TRAINED:
                    self.trained.append([training, capped(rows, MAX_ROWS), len(rows)])

    def step_wrapper(self, original):
        audit = self

        def step(optimizer, *args, **kwargs):
            counts, with_grad = [], 0
            for p in getattr(optimizer, "parameters", []):
                v = getattr(p, "value", None)
                if v is None or _grad(v) is None:
                    continue
                with_grad += 1
                entry = audit.passes.get(id(v))
                counts.append(entry[1] if entry is not None and entry[0] is v else 0)
            audit.step_count += 1
            if len(audit.steps) < MAX_STEPS:
                audit.steps.append({"with_grad": with_grad, "passes": max(counts, default=0)})
            audit.note_optimizer(optimizer)
            return original(optimizer, *args, **kwargs)

        return step

    def note_optimizer(self, optimizer):
        """One step of `optimizer`: counted on its entry (the object kept, so that its id is never another's)."""
        entry = next((e for e in self.optimizers if e[0] is optimizer), None)
        if entry is not None:
            entry[2] += 1
            return
        self.optimizer_count += 1
        if len(self.optimizers) < MAX_STEPS:
            self.optimizers.append([optimizer, isinstance(optimizer, optim.Adam), 1])

    def __enter__(self):
        self._hooked = backpropagate_hooked(self.backpropagate)
        self._backprop = self._hooked.__enter__()
        for cls, original in self._steps.items():
            cls.step = self.step_wrapper(original)
        return self

    def __exit__(self, *exc):
        self._hooked.__exit__(None, None, None)
        for cls, original in self._steps.items():
            cls.step = original
        return False


def _audited_run(X, y, rows, batch_size, epochs, data_val=None, catch=False):
    """Train a fresh WatchedNetwork with the student's loop under a LoopAudit; what was seen.

    With `catch`, an exception of the loop is recorded (`error`) instead of raised.
    """
    trainer = hw.SentenceSentimentTrain()
    model = WatchedNetwork(embedding_dim=X.shape[2], hidden_dim=8, dropout_prob=0.0).setup(rows, batch_size)
    trainer.model = model
    error = None
    with LoopAudit(model, labels=np.asarray(y, dtype=np.float64)) as audit:
        try:
            trainer.train((course_lists(X), as_lists(y)), learning_rate=0.01, batch_size=batch_size,
                          max_epochs=epochs, data_val=data_val, log_fn=quiet_log)
        except Exception as exc:
            if not catch:
                raise
            error = error_record(exc)["__error__"]
    for record in audit.losses:
        record["own"] = own_loss(record["out"], record["y"])
    return {"backward_calls": audit.backwards, "steps": audit.steps, "step_count": audit.step_count,
            "optimizers": [[adam, steps] for _, adam, steps in audit.optimizers],
            "optimizer_count": audit.optimizer_count, "trained": audit.trained,
            "trained_count": audit.trained_count, "error": error, "losses": audit.losses}


def own_loss(out, y):
    """The submission's own loss function (`binary_cross_entropy_loss`, f25's `cross_entropy_loss`) on a recorded
    batch's outputs and labels, called as the course's loop calls it, `(out, y)`: what a loop that uses the
    function as intended backpropagates (None without one, or when it fails or gives no single number)."""
    function = getattr(hw, "binary_cross_entropy_loss", None) or getattr(hw, "cross_entropy_loss", None)
    if not callable(function):
        return None
    try:
        value = np.asarray(function(minitorch.tensor(list(out)), minitorch.tensor(list(y))).to_numpy(),
                           dtype=np.float64).ravel()
    except Exception:
        return None
    return float(value[0]) if value.size == 1 and np.isfinite(value[0]) else None


@probe("loop")
def loop(inputs_dir):
    """Two audited runs of the loop: 50 examples, batch_size 16, 2 epochs (4 batches each, the last one of 2:
    a loss divided by batch_size instead of the batch's own size shows there).

    `plain`: no validation data. `validation`: with validation data, so that a
    backward pass on the validation loss shows as leftovers in the next epoch's
    first step. Training examples are numbered 0..47, validation ones -1..-16.
    Each run records what the loop did up to an exception it raised (`error`): the course's starters always
    call `train` with validation data (their `default_log_fn` reads `validation_accuracy[-1]`), so a loop that
    cannot run without it is judged on its run with it.
    """
    X, y, X_held = load(inputs_dir)
    train_idx = distinct_rows(X, 50)
    X, y = X[train_idx], y[train_idx]
    val_idx = distinct_rows(X_held, 16, avoid=fingerprints(X))
    X_val = X_held[val_idx]
    rows = {f: i for i, f in enumerate(fingerprints(X))}
    rows.update({f: -1 - k for k, f in enumerate(fingerprints(X_val))})
    plain = _audited_run(X, y, rows, batch_size=16, epochs=2, catch=True)
    labels = [float(i % 2) for i in range(len(X_val))]  # dummy labels: the loop may compute a validation loss
    validation = _audited_run(X, y, rows, batch_size=16, epochs=2, data_val=(course_lists(X_val), labels), catch=True)
    return {"examples": len(X), "batch_size": 16, "epochs": 2, "plain": plain, "validation": validation}


class ModeNetwork(hw.Network):
    """The reference Network, recording per forward whether it was fed validation rows, its mode, and (set by
    `BackwardWatch`) whether its output reached a backward pass: [is_val, training, backpropagated]."""

    #: shared by the instances a run makes (the trainer may build its own); eval_mode resets them
    calls: ClassVar[List[List[Any]]] = []
    validation: ClassVar[Set[float]] = set()
    #: id(output) -> (weak reference to the output, its record in `calls`), for outputs still alive
    outputs: ClassVar[Dict[int, Tuple[Any, List[Any]]]] = {}

    def forward(self, embeddings):
        rows = fingerprints(embeddings.to_numpy())
        is_val = bool(rows) and all(r in ModeNetwork.validation for r in rows)
        call = [is_val, self.training, False]
        ModeNetwork.calls.append(call)
        out = super().forward(embeddings)
        ModeNetwork.watch(out, call)
        return out

    @staticmethod
    def watch(out, call):
        """Remember `out` until it is freed (a weak reference: a loop's thousand measuring forwards keep no graph
        alive), so that a backward pass whose graph holds it marks its forward as trained."""
        key, outputs = id(out), ModeNetwork.outputs

        def forget(ref, key=key):
            if outputs.get(key, (None,))[0] is ref:
                del outputs[key]

        try:
            outputs[key] = (weakref.ref(out, forget), call)
        except TypeError:  # not weakly referenceable: kept alive (the probe's run is small)
            outputs[key] = ((lambda out=out: out), call)


class BackwardWatch:
    """Marks the ModeNetwork forwards whose output is in the graph of a backward pass (`autodiff.backpropagate`,
    which `Tensor.backward` calls): those trained the network. A forward that only measures (predictions, the
    training accuracy) reaches no backward pass, whatever mode it ran in."""

    def __enter__(self):
        def backpropagate(variable, deriv):
            outputs = ModeNetwork.outputs
            if outputs:
                for key in _graph_ids(variable) & outputs.keys():
                    ref, call = outputs[key]
                    if ref() is not None:
                        call[2] = True
            return self._backprop(variable, deriv)

        self._hooked = backpropagate_hooked(backpropagate)
        self._backprop = self._hooked.__enter__()
        return self

    def __exit__(self, *exc):
        self._hooked.__exit__(None, None, None)
        ModeNetwork.outputs = {}
        return False


def _descendants(module):
    """`module` and every module under it."""
    found, stack = [], [module]
    while stack:
        m = stack.pop()
        if any(m is f for f in found):
            continue
        found.append(m)
        try:
            stack.extend(m.modules())
        except Exception:
            pass
    return found


#: entries of validation_predictions read for their pairing, per log_fn call
MAX_PAIRED = 1000


class ValidationLog:
    """The loop's log_fn in `eval_mode`: at each call, the validation accuracy the loop reports (the last entry of
    `validation_accuracy`, the 5th argument of the course's call `log_fn(epoch, train_loss, train_accuracy,
    validation_predictions, validation_accuracy)`, given code in every starter) and the accuracy that the model's
    eval-mode predictions on data_val score at that moment against data_val's labels, computed here with the
    network's own forward (not recorded in ModeNetwork.calls; each module's mode is put back afterwards).

    The probe's labels (`labels`) are the complements of the first training labels, so validation labels taken
    from y_train give the complementary accuracy, never the same one (23 examples: no accuracy of 1/2). And the
    entries of `validation_predictions` (the 4th argument) are read for their pairing (`mispaired`): the probe's
    network predicts one class for every sentence, so labels paired with the wrong sentences score the same
    accuracy; each entry's probability says which sentence it is."""

    def __init__(self, trainer, X_val, labels):
        self.trainer, self.X_val, self.labels = trainer, X_val, np.asarray(labels, dtype=np.float64)
        self.records = []  # the first MAX_MODES calls: {"reported", "lo", "hi"} or {"shape": ...}
        self.count = 0

    def probabilities(self):
        """The model's eval-mode outputs on X_val now, one per example (float64)."""
        model = self.trainer.model
        modules = _descendants(model)
        modes = [m.__dict__.get("training") for m in modules]
        try:
            for m in modules:
                m.__dict__["training"] = False
            probs = np.asarray(hw.Network.forward(model, minitorch.tensor(self.X_val)).to_numpy(),
                               dtype=np.float64).reshape(-1)
        finally:
            for m, mode in zip(modules, modes):
                m.__dict__["training"] = mode
        return probs

    def expected(self, probs):
        """(lowest, highest) accuracy of the eval-mode outputs `probs` against data_val's labels (an output within
        1e-9 of 0.5 counts either way: the loop's own forward may round differently)."""
        sure = np.abs(probs - 0.5) > 1e-9
        right = int(np.sum(sure & ((probs > 0.5) == (self.labels > 0.5))))
        n = len(self.labels)
        return right / n, (right + int(np.sum(~sure))) / n

    def mispaired(self, entries, probs):
        """The first entry of `validation_predictions` (the course's `(true label, predicted label, probability)`,
        from get_predictions_array) whose true label is not the label of the example its probability belongs to
        (the one example whose eval-mode output it equals, within 1e-9): {"entry", "label", "want", "p"}; None
        when every entry that names one example is paired right, or when the list is not in the course's form."""
        if not isinstance(entries, list):
            return None
        for index, entry in enumerate(entries[:MAX_PAIRED]):
            try:
                label, p = float(entry[0]), float(entry[2])
            except Exception:  # not the course's triples: nothing to read the pairing from
                return None
            matches = np.flatnonzero(np.abs(probs - p) <= 1e-9)
            if len(matches) == 1 and label != self.labels[matches[0]]:
                return {"entry": index, "label": label, "want": float(self.labels[matches[0]]), "p": p}
        return None

    def __call__(self, *args, **kwargs):
        self.count += 1
        if len(self.records) >= MAX_MODES:
            return
        if "validation_accuracy" in kwargs:
            accuracies, entries = kwargs["validation_accuracy"], kwargs.get("validation_predictions")
        elif len(args) == 5:
            accuracies, entries = args[4], args[3]
        else:  # not the course's call of log_fn: nothing to read the validation accuracy from
            self.records.append({"shape": [len(args), sorted(str(k) for k in kwargs)[:10]]})
            return
        reported = None
        try:
            last = accuracies[-1]
            reported = float(last.item() if hasattr(last, "item") else last)
        except Exception:
            pass
        try:
            probs = self.probabilities()
            lo, hi = self.expected(probs)
        except Exception as exc:
            self.records.append({"reported": reported, "error": error_record(exc)["__error__"]})
            return
        record = {"reported": reported if reported is None or np.isfinite(reported) else str(reported),
                  "lo": lo, "hi": hi, "examples": len(self.labels)}
        try:
            wrong = self.mispaired(entries, probs)
        except Exception:
            wrong = None
        if wrong is not None:
            record["mispaired"] = wrong
        self.records.append(record)


@probe("eval_mode")
def eval_mode(inputs_dir):
    """The modes of the validation forwards and of the training-row forwards, these split by whether their output
    reached a backward pass (`training`) or not (`measured`: predictions only, e.g. a training accuracy measured
    with dropout off); and the validation accuracy log_fn received at each epoch with the one it should be."""
    X, y, X_held = load(inputs_dir)
    X, y, X_val = X[:40], y[:40], X_held[:23]
    ModeNetwork.calls = []
    ModeNetwork.outputs = {}
    ModeNetwork.validation = set(fingerprints(X_val)) - set(fingerprints(X))
    trainer = hw.SentenceSentimentTrain()
    trainer.model = ModeNetwork(embedding_dim=X.shape[2], hidden_dim=8, dropout_prob=0.5)
    labels = [1.0 - float(v) for v in y[:len(X_val)]]  # not y_train's: a loop that reads those is seen
    log = ValidationLog(trainer, X_val, labels)
    with BackwardWatch():
        trainer.train((course_lists(X), as_lists(y)), learning_rate=0.01, batch_size=20, max_epochs=2,
                      data_val=(course_lists(X_val), labels), log_fn=log)
    return {**mode_lists(ModeNetwork.calls), "logged": log.records, "log_calls": log.count}


def mode_lists(calls):
    """The modes (True, False, or None for anything else) of the validation forwards, of the training-row forwards
    that reached a backward pass (`training`) and of those that did not (`measured`), each list bounded: the first
    MAX_MODES, then only a mode not kept yet (what the judge reads: which modes occurred). A call recorded as
    (is_val, training), without whether it reached a backward pass, counts as a training forward."""
    modes = {"validation": [], "training": [], "measured": []}
    for call in calls:
        is_val, training = call[0], call[1]
        trained = call[2] if len(call) > 2 else True  # (is_val, training): every forward counted as training
        kept = modes["validation" if is_val else "training" if trained else "measured"]
        mode = training if isinstance(training, bool) else None
        if len(kept) < MAX_MODES or not any(m is mode for m in kept):
            kept.append(mode)
    return modes


#: (learning rate, epochs) of the accuracy run, by the optimizer the loop builds. The starter's loop
#: builds Adam; the course's FAQ allows others, and the spring-2024 starter's Adam could not run, so
#: students switched to SGD, which needs a larger step and more epochs (the reference loop with SGD:
#: 77.7% held-out after 15 epochs at 1.0; 50.2%, chance, after 6 epochs at 0.25).
ACCURACY_RUNS = {"Adam": (0.01, 6), "SGD": (1.0, 15)}


def loop_optimizer(X, y):
    """'SGD' when the optimizer the student's loop STEPS is an SGD (seen in a one-epoch run on 6
    examples), else 'Adam': an optimizer built but never stepped, or built inside the epoch, counts as used."""
    stepped = []
    originals = {cls: cls.__dict__["step"] for cls in (optim.SGD, optim.Adam) if "step" in cls.__dict__}

    def recording(original):
        def step(self, *args, **kwargs):
            stepped.append(type(self))
            return original(self, *args, **kwargs)

        return step

    for cls, original in originals.items():
        cls.step = recording(original)
    try:
        trainer = hw.SentenceSentimentTrain()
        trainer.model = hw.Network(embedding_dim=X.shape[2])
        trainer.train((course_lists(X[:6]), as_lists(y[:6])), learning_rate=0.01, batch_size=3, max_epochs=1,
                      log_fn=quiet_log)
    except BaseException:  # a crash (or the whole-set stop) here only means the default budget
        pass
    finally:
        for cls, original in originals.items():
            cls.step = original
    return "SGD" if stepped and all(issubclass(cls, optim.SGD) for cls in stepped) else "Adam"


class SteppedParameters:
    """The parameter values the loop's own training produced, for the held-out run. The values after each optimizer
    step (and the initial ones) are remembered by digest, the latest in full, and so are the values each
    training-mode forward ran with. After training, parameters that no step produced are put back to what the last
    step produced when the loop never changed them while it trained (a loop that never steps, then sets a closed-form
    fit or another model's weights), so the held-out accuracy is that of the loop's own training. Kept: values an
    earlier step produced (early stopping that restores its best epoch), and values of a loop whose parameters
    changed from one training forward to another without an optimizer (its own update rule: the step test judges
    that, not the accuracy)."""

    def __init__(self, model):
        self.model = model
        self.count = 0
        self.digests = {self._digest(self._arrays())}
        self.latest = self._arrays()
        self.trained_with = set()
        self._steps = {cls: cls.__dict__["step"] for cls in (optim.SGD, optim.Adam) if "step" in cls.__dict__}

    def _arrays(self):
        return [np.array(p.value.to_numpy(), dtype=np.float64) for p in self.model.parameters()]

    @staticmethod
    def _digest(arrays):
        return tuple(hash(a.tobytes()) for a in arrays)

    def _wrapped(self, original):
        def step(optimizer, *args, **kwargs):
            result = original(optimizer, *args, **kwargs)
            self.count += 1
            self.latest = self._arrays()
            self.digests.add(self._digest(self.latest))
            return result

        return step

    def _watched_forward(self, original):
        def forward(embeddings):
            if self.model.training:
                self.trained_with.add(self._digest(self._arrays()))
            return original(embeddings)

        return forward

    def __enter__(self):
        for cls, original in self._steps.items():
            cls.step = self._wrapped(original)
        self.model.__dict__["forward"] = self._watched_forward(self.model.forward)
        return self

    def __exit__(self, *exc):
        for cls, original in self._steps.items():
            cls.step = original
        self.model.__dict__.pop("forward", None)
        return False

    def digest_now(self):
        return self._digest(self._arrays())

    def restore_if_not_stepped(self):
        """True (and the last step's values put back) when the parameters now are none a step produced and the
        loop did not change them while it trained."""
        if self.digest_now() in self.digests or len(self.trained_with) >= 2:
            return False
        for parameter, values in zip(self.model.parameters(), self.latest):
            parameter.update(minitorch.tensor(values.tolist()))
        return True


class TargetReached(BaseException):
    """Raised from the accuracy probe's log_fn when the parent judged the held-out accuracy past the target
    (`EarlyStop`): training stops there. A BaseException, as WholeSetEveryBatch."""


def heldout_probabilities(model, X_held):
    """The network's evaluation-mode outputs on the held-out sentences, through the reference forward itself (no
    watch records it; evaluation draws nothing from `random`), every module's mode put back after."""
    modes, stack = [], [model]
    while stack:
        module = stack.pop()
        modes.append((module, module.training))
        stack.extend(module.modules())
    model.eval()
    try:
        return hw.Network.forward(model, minitorch.tensor(X_held)).to_numpy().reshape(-1)
    finally:
        for module, mode in modes:
            module.training = mode


class EarlyStop:
    """The accuracy probe's checkpoints (a student's runs only: probekit.checkpointed). At a log_fn call after an
    epoch's worth of training rows since the last ask, when the parameters are values an optimizer step produced
    (so that they are the ones the held-out run measures: SteppedParameters), their held-out probabilities go to
    the parent, which answers whether the accuracy is past the target (the labels stay there: judges.py,
    CHECKPOINTS). Past it, training stops, and the probe's result is those probabilities (`stopped`: the log_fn
    call and them), whatever the loop does after: a loop that swallows TargetReached (a bare `except:` around
    log_fn) trains on, is stopped again at its next log_fn call, and is credited the same. The reference needs 3
    of its 6 epochs to pass (the probe was the largest cost of a batch)."""

    def __init__(self, model, stepped, X_held, examples):
        self.model, self.stepped, self.X_held, self.examples = model, stepped, X_held, examples
        self.asked_at = 0
        self.stopped = None

    def after_log(self, log_call):
        """Ask the parent when due; raise TargetReached when it says (or said) the target is passed."""
        if self.stopped is not None:
            raise TargetReached()
        if not checkpointed() or self.model.trained_rows - self.asked_at < self.examples:
            return
        if self.stepped.digest_now() not in self.stepped.digests:
            return
        self.asked_at = self.model.trained_rows
        probabilities = as_lists(heldout_probabilities(self.model, self.X_held))
        if checkpoint({"probabilities": probabilities}):
            self.stopped = (log_call, probabilities)
            raise TargetReached()


@probe("accuracy")
def accuracy(inputs_dir):
    """Train the reference Network (default sizes) on the whole training split; held-out probabilities.

    A loop that feeds the whole training set as every batch is stopped at its
    third such batch of an epoch and reported as `whole_set` (no probabilities).
    Its validation data are the last 100 training examples, with their labels (a loop
    may stop early on its validation accuracy); the held-out labels never enter the child.
    The probabilities are those of the parameters the loop's optimizer steps produced (SteppedParameters), after
    the last epoch or, in a student's run, at the first log_fn call where the parent found them past the target
    (EarlyStop: `stopped_at`, that call's number).
    """
    X, y, X_held = load(inputs_dir)
    optimizer = loop_optimizer(X, y)
    learning_rate, epochs = ACCURACY_RUNS[optimizer]
    trainer = hw.SentenceSentimentTrain()
    rows = {f: i for i, f in enumerate(fingerprints(X))}
    model = WatchedNetwork(embedding_dim=X.shape[2]).setup(rows, 32, record=False, trip_after=2)
    trainer.model = model
    losses = Thinned(MAX_LOSS_POINTS)

    with SteppedParameters(model) as stepped:
        early = EarlyStop(model, stepped, X_held, len(X))

        def log_fn(*args, **kwargs):
            model.epoch_end()
            losses.add(logged_loss(args, kwargs))
            early.after_log(losses.count)

        try:
            trainer.train((course_lists(X), as_lists(y)), learning_rate=learning_rate, batch_size=32,
                          max_epochs=epochs, data_val=(course_lists(X[-100:]), as_lists(y[-100:])), log_fn=log_fn)
        except (WholeSetEveryBatch, TargetReached):
            pass
    if model.tripped is not None:
        return {"whole_set": model.tripped}
    if early.stopped is not None:
        stopped_at, probs, set_outside = early.stopped[0], early.stopped[1], False
    else:
        stopped_at, set_outside = None, stepped.restore_if_not_stepped()
        probs = as_lists(heldout_probabilities(model, X_held))
    points = losses.points()
    return {"probabilities": probs, "losses": [v for _, v in points],
            "loss_calls": [n for n, _ in points], "log_calls": losses.count,
            "run": {"optimizer": optimizer, "learning_rate": learning_rate, "epochs": epochs},
            "steps": stepped.count, "set_outside_steps": set_outside, "stopped_at": stopped_at}
