"""Grader faults: failures that are not the student's code, and a test-only switch that injects them.

The line (README, *When the grader fails*): a failure is the student's only when it happened while the
student's code had control AND the same grading of the reference solution, at that moment, on the same
stack, succeeds. Everything else — the cache, the interpreter, the sandbox failing to start, the child ending
or its harness failing before any graded code ran, the grader's own process raising, a judge or a figure
crashing on data the reference also produces, the reference or a mutant failing — is a **grader fault**: the
problem is retried once, and if it fails again it is recorded as a fault (never as points lost), shown to
staff and regraded by the next `batch`. What might be either (a harness fault, a SystemError or an outside
SIGKILL after graded code ran) is run twice more, the worse counting; if it comes back, a control run of the
reference solution decides (graders.attribution).

Fault injection (tests only): ``AUTOGRADE_INJECT_FAULTS="kind[:problem][*times],..."`` makes the grader fail
at the named point, for every problem or one, always or the first `times` times in this process. The kinds
are FAULT_KINDS (grading's) and OTHER_FAULT_KINDS. Nothing a submission controls can set it: it is read from the
grader's own environment, which the sandboxed child never inherits.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

#: where a fault can be injected, and what it stands for
FAULT_KINDS: Dict[str, str] = {
    "cache": "a cached artefact cannot be built (disk full, permissions)",
    "stack-import": "the sandboxed child cannot import the framework stack (before the student's code runs)",
    "probes-import": "the sandboxed child cannot import the problem's probes (after the student's code ran)",
    "system-error": "an interpreter SystemError in the grader's process",
    "memory": "the grader's own process runs out of memory",
    "judge": "a judge crashes (on the reference's data too)",
    "figure": "a figure cannot be drawn (on the reference's data too)",
    "reference": "the reference run fails a probe",
}
#: points outside grading where a fault can be injected (no problem's grade depends on them)
OTHER_FAULT_KINDS: Dict[str, str] = {
    "similarity-worker": "a worker process of the similarity screening cannot start",
}
_KNOWN_KINDS = {**FAULT_KINDS, **OTHER_FAULT_KINDS}

INJECT_ENV = "AUTOGRADE_INJECT_FAULTS"
#: attempts a problem gets when the grader fails on it (the first, and one retry)
ATTEMPTS = 2


class GraderFault(RuntimeError):
    """The grader, not the student's code, failed on a problem (its message says where)."""


class CacheFault(GraderFault):
    """A cached artefact could not be built or trusted."""


class InjectedFault(GraderFault):
    """A fault made on purpose by AUTOGRADE_INJECT_FAULTS (tests only)."""


@dataclass
class _Rule:
    kind: str
    problem: Optional[str]
    #: injections left (None: always)
    left: Optional[int]


_LOCK = threading.Lock()
#: (the AUTOGRADE_INJECT_FAULTS value, its rules with their counts), parsed at first use
_PARSED: Optional[Tuple[str, List[_Rule]]] = None


def _rules() -> List[_Rule]:
    """The parsed rules of the current AUTOGRADE_INJECT_FAULTS value (re-parsed when it changes, so counts
    start afresh for a new value). Called under _LOCK."""
    global _PARSED
    raw = os.environ.get(INJECT_ENV, "")
    if _PARSED is not None and _PARSED[0] == raw:
        return _PARSED[1]
    rules = []
    for item in filter(None, (part.strip() for part in raw.split(","))):
        item, _, times = item.partition("*")
        kind, _, problem = item.partition(":")
        if kind not in _KNOWN_KINDS:
            raise ValueError(f"{INJECT_ENV}: unknown fault kind '{kind}' (known: {', '.join(_KNOWN_KINDS)})")
        rules.append(_Rule(kind, problem or None, int(times) if times else None))
    _PARSED = (raw, rules)
    return rules


def reset_injections() -> None:
    """Start the injection counts afresh (tests that reuse one AUTOGRADE_INJECT_FAULTS value)."""
    global _PARSED
    with _LOCK:
        _PARSED = None


def injected(kind: str, problem: Optional[str] = None) -> bool:
    """Whether to fail at `kind` now (and count it); always False unless AUTOGRADE_INJECT_FAULTS says so."""
    if INJECT_ENV not in os.environ:
        return False
    with _LOCK:
        for rule in _rules():
            if rule.kind == kind and rule.problem in (None, problem) and (rule.left is None or rule.left > 0):
                if rule.left is not None:
                    rule.left -= 1
                return True
    return False


def inject(kind: str, problem: Optional[str] = None) -> None:
    """Raise the fault `kind` stands for, if AUTOGRADE_INJECT_FAULTS asks for it here."""
    if not injected(kind, problem):
        return
    text = f"injected fault '{kind}': {_KNOWN_KINDS[kind]}"
    if kind == "system-error":
        raise SystemError(f"{text} (AST constructor recursion depth mismatch)")
    if kind == "memory":
        raise MemoryError(text)
    raise InjectedFault(text)
