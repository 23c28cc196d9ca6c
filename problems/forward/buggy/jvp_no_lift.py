"""Buggy: jvp reads .primal and .tangent of whatever f returns, so a plain-number output raises."""

EXPECT = None


def jvp(
    f: Callable[..., DualLike], primals: Sequence[float], tangents: Sequence[float]
) -> Tuple[float, float]:
    duals = [Dual(p, t) for p, t in zip(primals, tangents)]
    out = f(*duals)
    return out.primal, out.tangent
