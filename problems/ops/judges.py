"""Parent-side judges for `ops`: per-case forward/backward comparisons with a finite-difference opinion."""

from typing import Any, Dict, List, Optional

import numpy as np

from graders.api import NotNumeric, Verdict, compare_values, error_text, to_array

DISPLAY = "minitorch/tensor_functions.py"


def _cases(outcome) -> List[Dict[str, Any]]:
    return outcome.value if isinstance(outcome.value, list) else []


def _case_label(i: int) -> str:
    return f"case {i + 1}"


def op_forward(student, reference, options) -> Verdict:
    """Every case's forward values equal the reference's (rtol 1e-7)."""
    rtol, atol = float(options.get("rtol", 1e-7)), float(options.get("atol", 1e-10))
    got, want = _cases(student), _cases(reference)
    if len(got) != len(want):
        return Verdict(0.0, "the probe returned the wrong number of cases")
    for i, (g, w) in enumerate(zip(got, want)):
        if "noncontiguous" in w:
            s = g.get("noncontiguous") if isinstance(g, dict) else None
            if not isinstance(s, dict):
                return Verdict(0.0, "view of a non-contiguous tensor: no result")
            if s.get("raised") is True:
                continue
            problem = compare_values(s.get("values"), w["noncontiguous"]["row_major"], rtol, atol)
            if problem:
                return Verdict(0.0, "view of a non-contiguous (permuted) tensor read the storage in the wrong order; "
                                    "raise (like PyTorch: 'call .contiguous() first') or copy first")
            continue
        message = error_text(g.get("forward") if isinstance(g, dict) else None, DISPLAY)
        if message:
            return Verdict(0.0, f"{_case_label(i)}: forward raised {message}")
        problem = compare_values(g.get("forward"), w["forward"], rtol, atol, "output")
        if problem:
            return Verdict(0.0, f"{_case_label(i)} ({_shape_note(w)}): {problem}")
    changed = _changed(got, want, "inputs_kept")
    if changed is not None:
        return Verdict(0.0, f"{_case_label(changed)}: the forward's values are right, but it wrote them into its input "
                            "tensor, which no longer holds what it held (in `x + x.exp()` the second x would be "
                            f"exp(x)). Map into a new tensor: `t1.f.exp_map(t1)`, never `out=t1`.{_NOT_A_COPY}",
                       misconception="forward-writes-input")
    return Verdict(1.0, f"forward matches the reference on {len(want)} cases (shapes, broadcasting, permuted strides)")


_NOT_A_COPY = " (`contiguous()` is no copy: it returns a tensor that is already contiguous as it is.)"


#: {what the probe checked after backward: what writing into it does, and what to do instead}
_WRITTEN_BY_BACKWARD = {
    "grad_output_kept": "the `grad_output` it was handed. That tensor is shared: Add.backward hands the same one to "
                        "both of its inputs, so in `a - b` the gradient of a would change sign too. Return a new "
                        "tensor (`grad_output.f.neg_map(grad_output)`, never `out=grad_output`).",
    "saved_kept": "a tensor it saved (the Function's input or output): the caller's x or y changed when backward ran. "
                  "Compute the local derivative into a new tensor (`t1.f.inv_map(t1)`, never `out=t1`).",
}


def _changed(got: List[Any], want: List[Any], key: str) -> Optional[int]:
    """The first case where the probe saw a tensor the Function was handed changed (`key` False) while the
    reference left it as it was."""
    for i, (g, w) in enumerate(zip(got, want)):
        if isinstance(g, dict) and isinstance(w, dict) and w.get(key) is True and g.get(key) is False:
            return i
    return None


def _shape_note(case: Dict[str, Any]) -> str:
    try:
        if "input_shapes" in case:  # a forward-only case (IsClose)
            shapes = [tuple(s) for s in case["input_shapes"]]
        else:
            shapes = [to_array(x).shape for x in case["backward"]]
        return "input shapes " + ", ".join(str(s) for s in shapes)
    except (NotNumeric, KeyError, TypeError):
        return "see the forward"


def _fd_opinion(case: Dict[str, Any]) -> str:
    """Compare the student's backward with central differences of the student's own forward."""
    fd = case.get("finite_differences")
    grads = case.get("backward")
    if not isinstance(fd, list) or not isinstance(grads, list):
        return ""
    disagreements = 0
    total = 0
    for grad, picks in zip(grads, fd):
        if grad is None or not isinstance(picks, list):
            continue
        try:
            arr = to_array(grad)
        except NotNumeric:
            return ""
        for pick in picks:
            try:
                value = float(arr[tuple(pick["index"])])
            except (IndexError, KeyError, TypeError, ValueError):
                return ""
            total += 1
            if not np.isclose(value, float(pick["estimate"]), rtol=1e-4, atol=1e-5):
                disagreements += 1
    if not total:
        return ""
    if disagreements:
        return f" Finite differences of your forward disagree with your backward at {disagreements} of {total} points."
    return " Your backward agrees with finite differences of your forward, so the forward is probably what is wrong."


_GRAD_NOTE = ", output gradient with permuted strides"
_NONCONTIGUOUS_HINT = (
    " The gradient arriving at View.backward may be non-contiguous (here it has permuted strides, as when"
    " the view is permuted later: `x.view(4, 3).permute(1, 0)`), so its storage is not in row-major order:"
    " make it contiguous (e.g. `grad_output.contiguous()`) before its storage is reused with the input's shape."
)


def op_backward(student, reference, options) -> Verdict:
    """Every case's input gradients equal the reference's (rtol 1e-7), summed back over broadcast dims."""
    rtol, atol = float(options.get("rtol", 1e-7)), float(options.get("atol", 1e-10))
    got, want = _cases(student), _cases(reference)
    if len(got) != len(want):
        return Verdict(0.0, "the probe returned the wrong number of cases")
    for i, (g, w) in enumerate(zip(got, want)):
        if "noncontiguous" in w:
            continue
        permuted = w.get("grad_layout") == "permuted"
        message = error_text(g.get("backward") if isinstance(g, dict) else None, DISPLAY)
        if message:
            return Verdict(0.0, f"{_case_label(i)}{_GRAD_NOTE if permuted else ''}: backward raised {message}"
                                f"{_NONCONTIGUOUS_HINT if permuted else ''}")
        problem = compare_values(g.get("backward"), w["backward"], rtol, atol, "input gradients")
        if problem:
            if permuted:  # the earlier cases, with a contiguous output gradient, passed
                return Verdict(0.0, f"{_case_label(i)} ({_shape_note(w)}{_GRAD_NOTE}): {problem}."
                                    f"{_NONCONTIGUOUS_HINT}")
            return Verdict(0.0, f"{_case_label(i)} ({_shape_note(w)}): {problem}.{_fd_opinion(g)}")
    for key, written in _WRITTEN_BY_BACKWARD.items():
        changed = _changed(got, want, key)
        if changed is not None:
            return Verdict(0.0, f"{_case_label(changed)}: the gradients are right, but the backward wrote into "
                                f"{written}{_NOT_A_COPY}", misconception="backward-writes-in-place")
    return Verdict(1.0, f"gradients match the reference on {len(want) - sum('noncontiguous' in w for w in want)} cases")


def _field(name):
    def view(value):
        return [case.get(name) if isinstance(case, dict) else None for case in value]

    return view


op_forward.view = _field("forward")
op_backward.view = _field("backward")

JUDGES = {"op_forward": op_forward, "op_backward": op_backward}
