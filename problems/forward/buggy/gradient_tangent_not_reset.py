"""Buggy: gradient reuses one tangent list and never resets it, so pass i runs along e_1 + ... + e_i."""

EXPECT = None


def gradient(f: Callable[..., DualLike], *vals: float) -> List[float]:
    tangents = [0.0] * len(vals)
    grads = []
    for i in range(len(vals)):
        tangents[i] = 1.0
        grads.append(jvp(f, vals, tangents)[1])
    return grads
