"""A student whose `jvp` seeds every input with tangent 1 (ignoring the tangents given), while `gradient` makes its n passes correctly: not a one-pass gradient, so that misconception must not be named."""

EXPECT = None


def jvp(
    f: Callable[..., DualLike], primals: Sequence[float], tangents: Sequence[float]
) -> Tuple[float, float]:
    out = _lift(f(*(Dual(float(p), 1.0) for p in primals)))
    return out.primal, out.tangent
