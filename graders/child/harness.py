"""The sandboxed child: load the hybrid stack, swap the student's symbols in, run probes.

It holds no expected value, no label and no reference solution of the swapped code. Before the
student's file is executed it forks (`run`):

* the **trusted process** (this one) keeps the result channel, its nonce, the acknowledgement pipe of
  timing marks and the real recursion-limit setter; it runs the *trusted* probes, whose graphs and
  counters stay here while the student's functions run in the other process on proxies of them
  (graders/child/remote.py), and relays the other probes' results;
* the **student's process** loads the student's file, swaps its symbols in, runs the untrusted probes
  and the student's functions when asked, and can only talk to the trusted process (one pipe pair):
  no channel, no nonce, no setter, no capabilities, and the trusted process is not traceable by it.

With no student's file (the reference's own runs) everything runs in this one process. The trusted
process streams plain data, one JSON line per event, to the file descriptor the parent gave it:

    {"nonce": ..., "event": "student"}      (just before the student's file is executed)
    {"nonce": ..., "event": "loaded", "missing": [...], "error": {...}|null}
    {"nonce": ..., "event": "start", "probe": id}
    {"nonce": ..., "event": "result", "probe": id, "status": "ok"|"error", "value"|"error": ...}
    {"nonce": ..., "event": "policy", "module": "torch (torch.tensor at line 12)"}   (any time)
    {"nonce": ..., "event": "note", "note": "..."}   (what the student's process sent that was dropped)
    {"nonce": ..., "event": "done"}

Its configuration arrives as one JSON document on stdin (read, then closed).
It uses only the standard library until the stack is on sys.path.

Imports the course's files make are stand-ins (`compat/_standin.py`): a
forbidden autodiff library imports as an inert module and its first USE by
graded code sends the "policy" event (`ForbiddenImports`); the course's
packages the sandbox lacks (`datasets`, `embeddings`, `tqdm`) come from
`compat/_course_packages.py`.
"""

import importlib
import importlib.abc
import importlib.util
import json
import math
import os
import random
import sys
import time
import traceback
import types
import typing
import zlib


def _plain(value, depth=0):
    """Only exact JSON types cross the channel; anything else becomes a marker."""
    if depth > 50:
        return {"__unserializable__": "too deep"}
    t = type(value)
    if value is None or t is bool or t is str:
        return value
    if t is int:
        return value
    if t is float:
        if math.isnan(value) or math.isinf(value):
            return {"__float__": repr(value)}
        return value
    if t in (list, tuple):
        return [_plain(v, depth + 1) for v in value]
    if t is dict:
        return {str(k): _plain(v, depth + 1) for k, v in value.items()}
    return {"__unserializable__": t.__name__}


class Channel:
    """The result channel to the parent (trusted process only): nonce-tagged JSON lines, and timing marks the
    parent stamps and acknowledges on `ack_fd`."""

    def __init__(self, fd, nonce, ack_fd=None):
        self._fd, self._ack = fd, ack_fd
        self._out: typing.Any = os.fdopen(fd, "w", buffering=1, encoding="utf-8", closefd=False)
        self._nonce = nonce

    def emit(self, event, **fields):
        fields["event"] = event
        fields["nonce"] = self._nonce
        self._out.write(json.dumps(fields, allow_nan=False) + "\n")
        self._out.flush()

    def mark(self, probe, label):
        if self._ack is None:
            return
        self.emit("mark", probe=probe, label=label)
        os.read(self._ack, 1)

    def ask(self, probe, evidence):
        """A checkpoint (probekit.checkpoint): the evidence goes to the parent, which answers one byte on `ack_fd`
        (b"s": the probe may stop)."""
        if self._ack is None:
            return False
        self.emit("checkpoint", probe=probe, evidence=_plain(evidence))
        return os.read(self._ack, 1) == b"s"

    def forget(self):
        """In the student's process, after the fork: close the descriptors and drop the nonce."""
        for fd in (self._fd, self._ack):
            if fd is not None:
                os.close(fd)
        self._out = self._nonce = self._fd = self._ack = None


def describe_error(exc, student_file):
    """Exception type, message and the innermost line of the student's file it passed through (for an exception
    of the student's process raised again in the trusted one: that process's description)."""
    remote = sys.modules.get("remote")
    if remote is not None and isinstance(exc, remote.RemoteException):
        return {key: exc.record.get(key) for key in ("type", "message", "line")}
    location = None
    tb = exc.__traceback__
    for frame, lineno in traceback.walk_tb(tb):
        if student_file and os.path.abspath(frame.f_code.co_filename) == os.path.abspath(student_file):
            location = lineno
    if isinstance(exc, SyntaxError) and exc.filename and student_file \
            and os.path.abspath(exc.filename) == os.path.abspath(student_file):
        location = exc.lineno
    try:
        message = str(exc)
    except BaseException:  # a student exception whose __str__ raises
        message = "<unprintable message>"
    return {"type": type(exc).__name__, "message": message[:2000], "line": location}


def load_student_module(path, module_name):
    """Execute the student's file as `package._student_<name>` so relative imports resolve."""
    package, _, leaf = module_name.rpartition(".")
    name = f"{package}._student_{leaf}" if package else f"_student_{leaf}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a module", path=path)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = package
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _lookup_raw(owner, attr):
    """The raw attribute (staticmethod/classmethod objects intact) along the MRO."""
    if isinstance(owner, type):
        for klass in owner.__mro__:
            if attr in vars(klass):
                return vars(klass)[attr]
        raise AttributeError(attr)
    return getattr(owner, attr)


def _missing(symbol, student_path):
    def missing(*args, **kwargs):
        raise NotImplementedError(f"{symbol} is missing from {student_path}")

    return missing


def symbol_names(symbol):
    """The alternatives of a swap symbol: "binary_cross_entropy_loss|cross_entropy_loss" -> both names.

    The first is the canonical name: the reference's, the one the probes use.
    """
    return [name.strip() for name in symbol.split("|")]


def describe_symbol(symbol):
    """How a missing symbol is named to the student: "a (or b)"."""
    first, *others = symbol_names(symbol)
    return f"{first} (or {', '.join(others)})" if others else first


def _names_used(module, skip):
    """Global names the code of `module`'s own functions and methods refers to (nested code included),
    leaving out the functions named in `skip`."""
    used, codes = set(), []
    for name, value in vars(module).items():
        if name in skip:
            continue
        for member in (vars(value).values() if isinstance(value, type) else (value,)):
            code = getattr(getattr(member, "__func__", member), "__code__", None)
            if code is not None and getattr(member, "__module__", None) == module.__name__:
                codes.append(code)
    while codes:
        code = codes.pop()
        used.update(code.co_names)
        codes.extend(c for c in code.co_consts if hasattr(c, "co_names"))
    return used


def _student_value(student, names):
    """The raw value of one of `names` (dotted alternatives) the student's module defines: the one the
    rest of the file uses (a file defining both loss names grades the one its loop calls), else the first."""
    found = []
    for name in names:
        parts = name.split(".")
        try:
            found.append((name, _lookup_raw(_resolve(student, parts[:-1]), parts[-1])))
        except AttributeError:
            continue
    if not found:
        raise AttributeError(names[0])
    if len(found) > 1:
        used = _names_used(student, {name for name, _ in found})
        for name, value in found:
            if name.rpartition(".")[2] in used:
                return value
    return found[0][1]


def swap_symbols(reference, student, symbols, inject, student_path):
    """Put the student's `symbols` into the reference module; return the ones not found.

    A symbol may list alternatives, "canonical|other": the one the student's
    file defines (if both, the one its other code uses) is installed under the canonical name (the fall-2025
    starter calls the loss `cross_entropy_loss`, spring 2026
    `binary_cross_entropy_loss`). `inject` names reference objects the
    student's code must use instead of its own (e.g. the reference Network when
    grading the training loop alone).
    """
    for name in inject:
        if hasattr(reference, name):
            setattr(student, name, getattr(reference, name))
    missing = []
    for symbol in symbols:
        names = symbol_names(symbol)
        parts = names[0].split(".")
        target = _resolve(reference, parts[:-1])
        try:
            value = _student_value(student, names)
        except AttributeError:
            missing.append(describe_symbol(symbol))
            value = _missing(describe_symbol(symbol), student_path)
            if isinstance(_lookup_raw(target, parts[-1]), staticmethod):
                value = staticmethod(value)
        setattr(target, parts[-1], value)
    return missing


def _resolve(module, parts):
    owner = module
    for part in parts:
        owner = getattr(owner, part)
    return owner


#: autodiff/deep-learning libraries a submission may not use to do the work
FORBIDDEN = frozenset({
    "torch", "jax", "jaxlib", "tensorflow", "autograd", "micrograd", "tinygrad", "mxnet",
    "chainer", "theano", "keras", "paddle", "mlx", "cupy", "flax",
})


class _Harmless:
    """What `torch.no_grad()` gives: a context manager and decorator that does nothing."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        return fn


def _no_grad(*args, **kwargs):
    """`with torch.no_grad():`, `@torch.no_grad()` and `@torch.no_grad` all do nothing."""
    if len(args) == 1 and not kwargs and callable(args[0]):
        return args[0]
    return _Harmless()


#: calls of a forbidden library that cannot compute anything for the student (they only set the library's
#: own seeds, flags and print options, or ask for a GPU): allowed, with these results. Everything else is a use.
HARMLESS_CALLS = {
    "torch.manual_seed": lambda *a, **k: None,
    "torch.random.manual_seed": lambda *a, **k: None,
    "torch.cuda.manual_seed": lambda *a, **k: None,
    "torch.cuda.manual_seed_all": lambda *a, **k: None,
    "torch.use_deterministic_algorithms": lambda *a, **k: None,
    "torch.set_printoptions": lambda *a, **k: None,
    "torch.set_num_threads": lambda *a, **k: None,
    "torch.cuda.is_available": lambda *a, **k: False,
    "torch.device": lambda *a, **k: str(a[0]) if a else "cpu",  # `device = torch.device("cpu")`, never used
    "torch.cuda.device_count": lambda *a, **k: 0,
    "torch.no_grad": _no_grad,
    "torch.inference_mode": _no_grad,
    "torch.enable_grad": _no_grad,
    "tensorflow.random.set_seed": lambda *a, **k: None,
}


class ForbiddenImports:
    """A meta-path finder: a forbidden library imports as an inert stand-in; USING it is the violation.

    The course's own starter imports torch at module level for a given helper
    that grading never calls, so importing must cost nothing (torch is not in
    the sandbox anyway). Any use of the stand-in by graded code (a call other
    than HARMLESS_CALLS, subclassing, arithmetic, ...; see `_standin.StandIn`)
    reports the library to the parent once, naming the line of the student's
    file it came from, and raises `PolicyViolation`; the parent scores the
    problem 0. Catching that exception does not undo the report. A stand-in
    has no behaviour of the library, so nothing done with it can compute for
    the student; the report is about the attempt.
    """

    def __init__(self, channel, student_file=None):
        from _standin import StandInFinder

        self.channel = channel
        self.student_file = os.path.abspath(student_file) if student_file else None
        self.seen = set()
        self._finder = StandInFinder(FORBIDDEN, self._module)

    def find_spec(self, name, path=None, target=None):
        return self._finder.find_spec(name, path, target)

    def _module(self, fullname):
        from _standin import StandInModule

        return StandInModule(fullname, self.use)

    def _student_line(self):
        frame: types.FrameType | None = sys._getframe(1)
        while frame is not None:
            if self.student_file and os.path.abspath(frame.f_code.co_filename) == self.student_file:
                return frame.f_lineno
            frame = frame.f_back
        return None

    def use(self, name, action, *args, **kwargs):
        """`name` (e.g. ``torch.tensor``) is used: report once per library, then raise."""
        from _standin import PolicyViolation

        if action == "call" and name in HARMLESS_CALLS:
            return HARMLESS_CALLS[name](*args, **kwargs)
        top = name.partition(".")[0]
        if top not in self.seen:
            self.seen.add(top)
            line = self._student_line()
            self.channel.emit("policy", module=f"{top} ({name}" + (f" at line {line})" if line else ")"))
        raise PolicyViolation(
            f"{name} cannot be used while grading: this assignment is about writing autodiff yourself, "
            f"so using {top} scores 0 for this problem (importing it costs nothing)"
        )


def neutralise_breakpoints():
    """A leftover `pdb.set_trace()` / `breakpoint()` in graded code continues, as a TA would type `c`."""
    import pdb  # noqa: T100 - imported to be disarmed

    sys.breakpointhook = lambda *args, **kwargs: None
    pdb.set_trace = lambda *args, **kwargs: None


DEFAULT_RECURSION_LIMIT = 1000


def pin_recursion_limit():
    """Python's default recursion limit for all graded code: `sys.setrecursionlimit` becomes a no-op.

    A recursive traversal then meets the deep chains as it would at the default
    limit (RecursionError: `recursion-limit`), whether or not it raises the limit
    and restores it afterwards; an iterative one with a leftover call is not
    penalised. Returns the real setter, for the harness alone.
    """
    setter = sys.setrecursionlimit
    setter(DEFAULT_RECURSION_LIMIT)
    sys.setrecursionlimit = lambda limit: None
    return setter


class Seal:
    """What the grader's own child-side modules (probekit, the probes) hold, taken before graded code could
    change it: `broken()` names what graded code replaced since.

    Recorded by identity: every module-level function, class and module (but the run's state in
    `state`), and for the functions and classes the module defines, their code, defaults and methods
    (data, which probes may update, is left out). A probe whose
    tools were replaced (a wrapped `probekit.mark` doing work before the parent stamps it, a
    `Counter.tick` that no longer counts, ...) is reported as an error, never judged.
    """

    def __init__(self, module, state=()):
        self.module, self.state = module, frozenset(state)
        self.record = self._snapshot()

    def _snapshot(self):
        found = {}
        name = self.module.__name__
        for key, value in vars(self.module).items():
            if key.startswith("__") or key in self.state or not _behaviour(value):
                continue
            found[key] = value
            if getattr(value, "__module__", None) != name:
                continue
            if isinstance(value, type):
                for member, inner in vars(value).items():
                    if _behaviour(inner):
                        found[f"{key}.{member}"] = inner
                        found.update(_code_parts(f"{key}.{member}", inner))
            else:
                found.update(_code_parts(key, value))
        return found

    def broken(self):
        """The names changed since the seal was made (sorted), empty when intact."""
        now = self._snapshot()
        return sorted(k for k in set(now) | set(self.record) if now.get(k, self) is not self.record.get(k, self))


def _behaviour(value):
    """Whether `value` is code (a function, method descriptor, class or module), not data."""
    import types

    return callable(value) or isinstance(value, (type, types.ModuleType, property, staticmethod, classmethod))


def _code_parts(name, value):
    """The parts of a function (or of a property's / staticmethod's functions) that define what it does."""
    parts = {}
    for role, fn in (("", value), (".fget", getattr(value, "fget", None)), (".fset", getattr(value, "fset", None)),
                     (".__func__", getattr(value, "__func__", None))):
        if fn is None or not hasattr(fn, "__code__"):
            continue
        if role:
            parts[name + role] = fn
        for attr in ("__code__", "__defaults__", "__kwdefaults__", "__globals__"):
            parts[f"{name}{role}.{attr}"] = getattr(fn, attr, None)
    return parts


def tools_error(seals):
    """An error record when graded code changed the grader's probe tools, else None."""
    parts = (".fget", ".fset", ".__func__", ".__code__", ".__defaults__", ".__kwdefaults__", ".__globals__")
    broken = list(dict.fromkeys(f"{seal.module.__name__}.{_owner(name, parts)}"
                                for seal in seals for name in seal.broken()))
    if not broken:
        return None
    return {"type": "GraderToolsChanged", "line": None,
            "message": f"graded code replaced the grader's probe tools ({', '.join(broken[:5])}): nothing measured "
                       "with them counts"}


def _owner(name, parts):
    """"Counter.tick.__code__" -> "Counter.tick": the tool a changed part belongs to."""
    cut = min((name.index(p) for p in parts if p in name), default=len(name))
    return name[:cut]


def settle_heap():
    """Move every object alive once the modules are loaded (numpy, the framework, the student's module, the
    probes) out of the garbage collector's reach (`gc.freeze`): the collections each probe starts with, and the
    timing probe's between its graphs, then walk only what probes and graded code made since (a full collection
    took about 12 ms with the imports' 24,000 objects in it, 7 ms without). Called before the student's process
    is forked (the imports' objects, frozen once: neither process walks them again, and the student's does not
    copy their pages by touching them) and again in each process once the file and the probes are loaded."""
    import gc

    gc.collect()
    gc.freeze()


def fresh_process_state(set_recursion_limit):
    """The same process state for every probe: the default recursion limit, the garbage collector
    enabled and just run (no probe switches it, so none can be told apart by it)."""
    import gc

    set_recursion_limit(DEFAULT_RECURSION_LIMIT)
    gc.enable()
    gc.collect()


def probe_seed(seed, probe_id):
    return (seed * 1_000_003 + zlib.crc32(probe_id.encode())) % (2**32)


def install_import_stand_ins(channel, student_file):
    """Forbidden libraries first, then the course's packages the sandbox lacks, before any path finder;
    last, after them, stand-ins for other packages the student's file imports and the sandbox lacks."""
    import _course_packages

    sys.meta_path[:0] = [ForbiddenImports(channel, student_file), _course_packages.finder()]
    sys.meta_path.append(_course_packages.MissingPackages(student_file))


def compile_probes(sources):
    """The problem's probes compiled from `sources` ({"probes.py" or "probes/<name>.py": text}, sent on stdin
    with the configuration), before graded code runs: {module name: (code, is_package)}. The probes are never a
    file in the sandbox, and their text is not kept, so graded code cannot read their source (their code objects,
    which it can reach as it can reach anything in its process, hold no source lines)."""
    codes = {}
    for rel, text in sources.items():
        parts = rel[:-len(".py")].split("/")
        package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if package else parts)
        codes[name] = (compile(text, f"<{rel}>", "exec", dont_inherit=True), package)
    if "probes" not in codes:
        raise ImportError("no probes.py nor probes/__init__.py among the problem's probes")
    return codes


class ProbeModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds and loads the probes' modules from their compiled code (`compile_probes`): `probes` and, for a
    package, its helper modules (`probes.<name>`, imported by name or relatively)."""

    def __init__(self, codes):
        self.codes = codes

    def find_spec(self, name, path=None, target=None):
        if name not in self.codes:
            return None
        return importlib.util.spec_from_loader(name, self, is_package=self.codes[name][1])

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec(self.codes[module.__name__][0], module.__dict__)  # noqa: S102 - the grader's own probes


def import_probes(codes):
    """The problem's probes as the module `probes` (`codes`: `compile_probes`), with its helper modules.

    Graded code runs before this (it is imported first): whatever it put in the module table under these
    names (`sys.modules["probes.graphs"] = fake`) is dropped, so the probes import their own helpers."""
    for name in [n for n in sys.modules if n == "probes" or n.startswith("probes.")]:
        del sys.modules[name]
    finder = ProbeModules(codes)
    sys.meta_path.insert(0, finder)
    try:
        spec = finder.find_spec("probes")
        probes = importlib.util.module_from_spec(spec)
        sys.modules["probes"] = probes
        finder.exec_module(probes)
    finally:
        if finder in sys.meta_path:
            sys.meta_path.remove(finder)
    return probes


def _setup(config, channel):
    """What both processes share, made before graded code runs: the paths, the import stand-ins, disarmed
    breakpoints, the pinned recursion limit (its real setter returned), the probes' tools, the working folder."""
    sys.path[:0] = config["paths"]
    swap = config.get("swap")
    install_import_stand_ins(channel, swap["student_file"] if swap else None)
    neutralise_breakpoints()
    set_recursion_limit = pin_recursion_limit()
    import probekit  # noqa: F401 - before graded code runs: the probes' tools are the grader's, and sealed

    os.chdir(config["workdir"])
    if "stack-import" in set(config.get("inject") or ()):  # tests only (graders.faults): the stack fails to import
        raise ImportError("injected fault 'stack-import': the framework stack cannot be imported")
    return set_recursion_limit


def run(config, channel, probe_codes):
    """Grade in this process when there is no student's file (the reference's own runs); otherwise fork: the
    student's process loads the file and answers, this one stays trusted (`graders/child/remote.py`)."""
    set_recursion_limit = _setup(config, channel)
    swap = config.get("swap")
    if not swap:
        channel.emit("loaded", missing=[], error=None)
        run_probes_here(config, channel, probe_codes, set_recursion_limit)
        return
    reference = importlib.import_module(swap["module"])
    import remote

    settle_heap()  # before the fork: neither process walks (and copies) the imports' objects again
    down_read, down_write = os.pipe()
    up_read, up_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the student's process: nothing of the harness's that is worth forging stays reachable
        del set_recursion_limit
        os.close(down_write)
        os.close(up_read)
        channel.forget()
        try:
            student_process(config, reference, probe_codes, remote.Pipe(down_read, up_write, trusted_peer=True))
        finally:
            os._exit(0)
    os.close(down_read)
    os.close(up_write)
    trusted_process(config, channel, probe_codes, set_recursion_limit, reference,
                    remote.StudentProcess(remote.Pipe(up_read, down_write), pid, lambda m: _relay(channel, m)))


def _probe_outcome(registry, probe_id, inputs_dir, seals, student_file, started):
    """Run one probe of `registry`: {"status": "ok", "value"} or {"status": "error", "error"}, and its seconds."""
    if probe_id not in registry:  # a problem.toml naming a probe its probes do not register
        error = {"type": "UnknownProbe", "line": None,
                 "message": f"no @probe({probe_id!r}) in the problem's probes (autograde check-problems)"}
        return {"status": "error", "error": error, "seconds": 0.0}
    try:
        value = _plain(registry[probe_id](inputs_dir))
    except BaseException as exc:  # KeyboardInterrupt, SystemExit from student code too
        error = tools_error(seals) or describe_error(exc, student_file)
        return {"status": "error", "error": error, "seconds": time.perf_counter() - started}
    error = tools_error(seals)
    if error is not None:
        return {"status": "error", "error": error, "seconds": time.perf_counter() - started}
    return {"status": "ok", "value": value, "seconds": time.perf_counter() - started}


def _fresh_seeds(seed, probe_id):
    seed = probe_seed(seed, probe_id)
    random.seed(seed)
    try:
        import numpy

        numpy.random.seed(seed)
    except ImportError:
        pass


def _import_probes_sealed(config, probe_codes):
    import probekit

    if "probes-import" in set(config.get("inject") or ()):  # tests only (graders.faults)
        raise ImportError("injected fault 'probes-import': the problem's probes cannot be imported")
    probes = import_probes(probe_codes)
    seals = [Seal(probekit, state=PROBEKIT_STATE)]
    seals.extend(Seal(module) for name, module in sorted(sys.modules.items())
                 if name == "probes" or name.startswith("probes."))
    # a copy taken before any probe runs: graded code that swaps entries of the module's registry (reachable
    # from the module table) changes nothing here
    return dict(probes.PROBES), seals


#: probekit's names that are the run's state, not tools (left out of its seal)
PROBEKIT_STATE = ("PROBES", "TRUSTED", "STUDENT_FILE", "CURRENT", "STUDENT", "_CHANNEL", "CHECKPOINTS")


def run_probes_here(config, channel, probe_codes, set_recursion_limit):
    """Every probe in this process (no student's file: nothing here is graded code)."""
    import probekit

    probekit.connect(channel)
    registry, seals = _import_probes_sealed(config, probe_codes)
    settle_heap()
    for probe_id in config["probes"]:
        channel.emit("start", probe=probe_id)
        probekit.CURRENT = probe_id
        fresh_process_state(set_recursion_limit)
        _fresh_seeds(config["seed"], probe_id)
        channel.emit("result", probe=probe_id, **_probe_outcome(registry, probe_id, config.get("inputs_dir"), seals,
                                                                None, time.perf_counter()))


# ------------------------------------------------------------------ the student's process


class UpChannel:
    """The student's process's only way out: events and timing marks sent to the trusted process, which
    checks them and sends what it accepts on with the run's nonce (this process never holds it)."""

    def __init__(self, pipe):
        self.pipe = pipe

    def emit(self, event, **fields):
        self.pipe.send({"op": "event", "event": event, **_plain(fields)})

    def mark(self, probe, label):
        self.pipe.send({"op": "mark", "label": label})
        self.pipe.receive()

    def ask(self, probe, evidence):
        """A checkpoint of the untrusted probe running here: the trusted process passes it on (or not) and
        answers."""
        self.pipe.send({"op": "checkpoint", "evidence": _plain(evidence)})
        answer = self.pipe.receive()
        return isinstance(answer, dict) and answer.get("v") is True


def student_process(config, reference, probe_codes, pipe):
    """Load the student's file, then do what the trusted process asks: run an untrusted probe, call one of the
    student's functions on the trusted process's objects, run a probe helper. Never returns."""
    import probekit
    import remote

    die_with_parent()
    drop_capabilities()
    swap = config["swap"]
    student_file = swap["student_file"]
    up = UpChannel(pipe)
    for finder in sys.meta_path:
        if isinstance(finder, ForbiddenImports):
            finder.channel = up
    up.emit("student")  # from here on, graded code has had control of this process
    missing, load_error = [], None
    try:
        student = load_student_module(student_file, swap["module"])
    except BaseException as exc:  # SyntaxError, SystemExit, anything at import
        load_error = describe_error(exc, student_file)
    else:
        missing = swap_symbols(reference, student, swap["symbols"], swap.get("inject", []), swap["display_path"])
    up.emit("loaded", missing=missing, error=load_error)
    if load_error is not None:
        return
    probekit.STUDENT_FILE = student_file
    probekit.CHECKPOINTS = frozenset(map(str, config.get("checkpoints") or ()))
    probekit.connect(up)
    registry, seals = _import_probes_sealed(config, probe_codes)
    settle_heap()
    objects = remote.TrustedObjects(
        pipe, reference, {name: module for name, module in sys.modules.items() if name == "probes" or
                          name.startswith("probes.")},
        lambda exc: {**describe_error(exc, student_file), "ancestors": _ancestors(exc)})
    while True:
        with objects.lock:  # a thread of graded code does not read or write the pipe in the middle of this
            message = pipe.receive()
        if message is None:
            return
        op = message.get("op")
        if op == "probe":
            probe_id = str(message.get("id"))
            probekit.CURRENT = probe_id
            _fresh_process_state_untrusted()
            _fresh_seeds(config["seed"], probe_id)
            pipe.send({"op": "result", **_probe_outcome(registry, probe_id, config.get("inputs_dir"), seals,
                                                        student_file, time.perf_counter())})
        elif op in ("call", "local"):
            objects.serve_call(message)
        elif op == "reset":
            objects.clear()
        else:
            return


def _ancestors(exc):
    try:
        return [str(c.__name__) for c in type(exc).__mro__[1:17]]
    except BaseException:
        return []


def _fresh_process_state_untrusted():
    """The student's process has no recursion-limit setter: the limit stays the default (unless graded code
    reaches the interpreter's own, which the depth evidence sees); the garbage collector enabled and just run."""
    import gc

    gc.enable()
    gc.collect()


def drop_capabilities():
    """Give up every capability this process holds (inside a user namespace it is root there): it can then
    neither trace the trusted process nor open its descriptors under /proc, whatever its user id."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            held = next((line.split()[1] for line in status if line.startswith("CapEff:")), "0")
        if int(held, 16) == 0:
            return
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        for cap in range(64):
            libc.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP (fails harmlessly past the last capability)
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
        data = (ctypes.c_uint32 * 6)()
        libc.syscall(126 if os.uname().machine == "x86_64" else 91, header, data)  # capset: all sets empty
    except Exception:  # no ctypes or no capset: the sandbox's own user and capabilities stand
        pass


# ------------------------------------------------------------------ the trusted process


def _relay(channel, message):
    """An event the student's process sent at any time: a forbidden library's use goes on; any other is
    noted for the parent ("ignored: ...") and dropped."""
    if message.get("event") == "policy" and isinstance(message.get("module"), str):
        channel.emit("policy", module=message["module"][:200])
    else:
        channel.emit("note", note=f"an event {str(message.get('event'))[:40]!r} from the student's process, "
                                  "which may send none but a forbidden library's use")


def _note_junk(channel, student, said):
    """Note (once per run) bytes the student's process wrote on the grader's pipe that were no message."""
    if student.pipe.skipped and not said:
        channel.emit("note", note=f"bytes written on the grader's pipe that are no message of the harness "
                                  f"({student.pipe.skipped} bytes from the student's process)")
        return True
    return said


def _until_loaded(channel, student):
    """Relay the student's process's 'student' and 'loaded' events; whether the file loaded (False: stop)."""
    started = False
    while True:
        message = student.pipe.receive()
        if message is None:
            raise remote_module().StudentGone("the student's process ended")
        if message.get("op") != "event":
            raise remote_module().ProtocolError("a request before the student's file was loaded")
        event = message.get("event")
        if event == "student" and not started:
            started = True
            channel.emit("student")
        elif event == "loaded" and started:
            missing, error = message.get("missing"), message.get("error")
            missing = [str(m)[:200] for m in missing][:100] if isinstance(missing, list) else []
            error = {"type": str(error.get("type"))[:200], "message": str(error.get("message"))[:2000],
                     "line": error.get("line") if isinstance(error.get("line"), int) else None} \
                if isinstance(error, dict) else None
            channel.emit("loaded", missing=missing, error=error)
            return error is None
        else:
            _relay(channel, message)


def remote_module():
    import remote

    return remote


def _install_remote_symbols(reference, swap, student):
    """The swap symbols of the reference module, in this process, call the student's functions remotely."""
    remote = remote_module()
    for symbol in swap["symbols"]:
        name = symbol_names(symbol)[0]
        parts = name.split(".")
        if len(parts) == 1:
            setattr(reference, name, remote.RemoteFunction(student, name))


def _relayed_result(message):
    """A result the student's process sent for its probe, rebuilt field by field (nothing else crosses)."""
    seconds = message.get("seconds") if isinstance(message.get("seconds"), (int, float)) else 0.0
    if message.get("status") == "ok":
        return {"status": "ok", "value": message.get("value"), "seconds": seconds}
    error = message.get("error") if isinstance(message.get("error"), dict) else {}
    return {"status": "error", "seconds": seconds,
            "error": {"type": str(error.get("type", "Error"))[:200], "message": str(error.get("message", ""))[:2000],
                      "line": error.get("line") if isinstance(error.get("line"), int) else None}}


def trusted_process(config, channel, probe_codes, set_recursion_limit, reference, student):
    """Run the probes: a trusted one here (the student's functions called in the student's process, on this
    process's objects), an untrusted one in the student's process (its result relayed). The student's process
    ending ends this one the same way (the parent restarts for the probes left)."""
    import probekit

    remote = remote_module()
    not_traceable()
    try:
        if not _until_loaded(channel, student):
            return
        probekit.connect(channel)
        probekit.STUDENT = student
        probekit.CHECKPOINTS = frozenset(map(str, config.get("checkpoints") or ()))
        student.checkpoint = lambda evidence: probekit.CURRENT in probekit.CHECKPOINTS and \
            channel.ask(probekit.CURRENT, evidence)
        _install_remote_symbols(reference, config["swap"], student)
        registry, _seals = _import_probes_sealed(config, probe_codes)
        settle_heap()
        trusted = set(probekit.TRUSTED)
        junk_said = _note_junk(channel, student, False)
        for probe_id in config["probes"]:
            channel.emit("start", probe=probe_id)
            probekit.CURRENT = probe_id
            if probe_id in trusted:
                fresh_process_state(set_recursion_limit)
                _fresh_seeds(config["seed"], probe_id)
                outcome = _probe_outcome(registry, probe_id, config.get("inputs_dir"), [], None, time.perf_counter())
                if student.broken is not None:  # whatever the probe made of it: the run stops here
                    raise student.broken
                student.reset()
            else:
                message = student.run_probe(probe_id)
                outcome = _relayed_result(message)
            junk_said = _note_junk(channel, student, junk_said)
            channel.emit("result", probe=probe_id, **outcome)
    except remote.ProtocolError as exc:
        said = f"the student's process broke the grader's protocol: {exc}"
        if probekit.CURRENT is not None:
            channel.emit("result", probe=probekit.CURRENT, status="error", seconds=0.0,
                         error={"type": "ProtocolError", "line": None, "message": said})
        channel.emit("broken", message=said)  # the parent's reason for the end below (no SIGKILL from outside)
        _end_like(student, None)
    except remote.StudentGone:
        _end_like(student, student.pid)


def _end_like(student, pid):
    """Stop the student's process, then end this one as it ended (its exit status, or the signal that killed
    it), without 'done': the parent reads the reason and restarts for the probes left."""
    import signal

    if pid is None:
        os.kill(student.pid, signal.SIGKILL)
    _, status = os.waitpid(student.pid, 0)
    sys.stdout.flush()
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def not_traceable():
    """No process of the same user may trace this one or read its memory and descriptors under /proc."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
    except Exception:
        pass


def die_with_parent():
    """Ask the kernel to SIGKILL this process if the grader dies (the weak sandbox has no PID namespace)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # 1 = PR_SET_PDEATHSIG
    except Exception:  # no ctypes or no prctl: the parent's process-group kill still applies
        pass


def main():
    die_with_parent()
    config = json.loads(sys.stdin.read())
    sys.stdin.close()
    channel = Channel(config.pop("fd"), config.pop("nonce"), config.pop("ack_fd", None))
    try:
        run(config, channel, compile_probes(config.pop("probe_sources")))
    except BaseException as exc:
        channel.emit("fault", error=describe_error(exc, None), traceback=traceback.format_exc()[-4000:])
    channel.emit("done")
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown: atexit hooks and __del__ of student objects


if __name__ == "__main__":
    main()
