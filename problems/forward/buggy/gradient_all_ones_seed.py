"""Buggy: gradient seeds every input with tangent 1 in one pass and hands that tangent to every input."""

EXPECT = "one-pass-gradient"


def gradient(f: Callable[..., DualLike], *vals: float) -> List[float]:
    # seed all inputs at once: one forward pass
    out = _lift(f(*[Dual(float(v), 1.0) for v in vals]))
    return [out.tangent for _ in vals]
