"""A student whose `gradient` returns a 1-d NumPy array of the n derivatives (not a list)."""

import numpy as np


def gradient(f: Callable[..., DualLike], *vals: float) -> List[float]:
    return np.array([derivative(f, *vals, arg=i) for i in range(len(vals))])
