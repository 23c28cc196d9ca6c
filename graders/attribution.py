"""Attribution: whose failure it is when a student's run fails in a way the grader may have caused.

Contract (README, *When the grader fails*; graders.faults):

- A failure the grader owns for sure (the child ended, or its harness failed, before graded code ran) never
  reaches this module: graders.grade raises GraderFault for it.
- `suspected_failures(run)` names the probes of a student's run that failed while graded code had control but
  in a way the grader or the machine may have caused: a harness fault after the student's code ran, a SIGKILL
  from outside the grader and the problem's memory limit, an interpreter SystemError (MACHINE_ERRORS).
- `runs_to_judge(spec, first, probe_run, seed, limits)` decides what is judged, as ([runs], note):
  no suspect: `[first]`, no note. Suspects: `probe_run` runs the probes twice more in fresh children; when
  neither repeat is suspect, the first run repaired with each repeat's outcomes of the suspected probes is
  judged (two runs: the caller scores both and keeps the worse, so failing on purpose to be run again gains
  nothing). When a repeat is suspect too, the reference solution is graded the same way now (a control
  run): failing too, the grader is broken and GraderFault is raised (the problem is retried, then recorded as
  a fault); working, the failure is the student's code's and `[first]` is judged as it is, with a note.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .baseline import child_faults, control_run, limits_for, reference_problem
from .faults import GraderFault
from .results import ChildRun
from .safetext import one_line
from .spec import ProblemSpec

#: exceptions that say the interpreter or the machine failed, not the code it ran (when graded code raises
#: them itself, the control run tells)
MACHINE_ERRORS = ("SystemError",)


def suspected_failures(run: ChildRun) -> Dict[str, str]:
    """{probe: why} for what in a student's run the grader or the machine may have caused, though graded code had
    control: a harness fault after the student's code ran (every probe it left without a result), a SIGKILL from
    outside the grader and the child's own memory limit, an interpreter SystemError in a probe (raised by it, or
    recorded in its data by `probekit.capture`)."""
    found: Dict[str, str] = {}
    if run.fault:
        found.update({o.probe: run.fault for o in run.outcomes.values() if o.status == "missing"})
    for where in run.outside_kills:
        for o in run.outcomes.values():
            if o.probe == where or (where == "import" and o.status == "missing"):
                found[o.probe] = "killed by SIGKILL from outside the grader and the problem's memory limit"
    for o in run.outcomes.values():
        if o.status == "error" and o.error_type in MACHINE_ERRORS:
            found[o.probe] = o.describe()
        elif o.ok and _recorded_error(o.value, MACHINE_ERRORS):
            found[o.probe] = f"{_recorded_error(o.value, MACHINE_ERRORS)} in its data"
    return found


def _recorded_error(value: Any, types: Sequence[str]) -> Optional[str]:
    """The type of the first error record (`{"__error__": {"type": ...}}`) of one of `types` in a probe's data."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            record = item.get("__error__")
            if isinstance(record, dict) and record.get("type") in types:
                return str(record["type"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def runs_to_judge(spec: ProblemSpec, first: ChildRun, probe_run: Callable[[str], ChildRun], seed: int,
                  limits: Optional[Dict[str, float]]) -> Tuple[List[ChildRun], Optional[str]]:
    """([runs to judge], note): the student's run, or, after a failure the grader may have caused, two.

    A suspected failure (`suspected_failures`) must cost the student nothing and gain them nothing: the probes
    it hit are run twice more, in fresh children, and the problem is judged on each repair (the first run's
    other probes kept); the worse one counts, so code that fails on purpose to be run again gets no second
    chance. If the failure comes back, the reference solution's file is graded the same way now (`control_run`):
    failing too, the grader is broken (a fault); working, the failure is the student's code's.
    """
    suspects = suspected_failures(first)
    if not suspects:
        return [first], None
    again = [probe_run(f"again{i}") for i in (1, 2)]
    if any(suspected_failures(run) for run in again):
        control = control_run(spec, seed, limits_for(spec, limits), child_faults(spec))
        broken = reference_problem(control)
        if broken:
            raise GraderFault(f"{_said(suspects)}; the reference solution graded the same way fails too: {broken}")
        return [first], ("the grading process failed while your code had control, three times, and the reference "
                         f"solution graded the same way works: the failure is your code's ({_said(suspects)})")
    repaired = [_repair(first, run, suspects) for run in again]
    return repaired, (f"probes {', '.join(sorted(suspects))} failed in a way the grader may have caused "
                      f"({_said(suspects)}); they were run twice more and the worse of the two runs counts")


def _said(suspects: Dict[str, str]) -> str:
    return one_line("; ".join(dict.fromkeys(suspects.values())))[:300]


def _repair(first: ChildRun, again: ChildRun, lost: Dict[str, str]) -> ChildRun:
    """`first` with the outcomes of the `lost` probes taken from `again` (the whole of `again` when the first
    run never loaded the student's file)."""
    if all(o.status == "missing" for o in first.outcomes.values()):
        return again
    outcomes = {probe: again.outcomes[probe] if probe in lost else outcome for probe, outcome in first.outcomes.items()}
    return dataclasses.replace(first, outcomes=outcomes, fault=None, outside_kills=[],
                               notes=first.notes + [f"(run again) {n}" for n in again.notes])
