"""Parent-side judges for `network`."""

from graders.judge import Verdict, compare_values


def parameter_shapes(student, reference, options) -> Verdict:
    """The registered parameters have exactly the reference's shapes (names are free)."""
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
    return Verdict(1.0, "parameters registered with the contract's shapes")


def flags(student, reference, options) -> Verdict:
    """Boolean properties that must all hold."""
    value = student.value if isinstance(student.value, dict) else {}
    failed = [k for k, v in reference.value.items() if v is True and value.get(k) is not True]
    if failed:
        text = {
            "train_varies": "in training mode the output should be random (dropout active)",
            "eval_deterministic": "in evaluation mode the output should be deterministic (dropout off: "
                                  "pass ignore=not self.training)",
        }
        return Verdict(0.0, "; ".join(text.get(k, k) for k in failed))
    return Verdict(1.0, "dropout active in training, off in evaluation")


JUDGES = {"parameter_shapes": parameter_shapes, "flags": flags}
