"""gradient seeds every input with tangent 1 and returns that one directional derivative n times."""

MISCONCEPTION = "one-pass-gradient"


def gradient(f, *vals):  # noqa: F811
    _, slope = jvp(f, list(vals), [1.0] * len(vals))  # noqa: F821
    return [slope] * len(vals)
