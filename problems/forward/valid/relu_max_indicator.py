"""Valid: relu written without `operators`: the primal as max(a, 0.0) (which is -0.0 at a = -0.0) and the
tangent as b times the indicator float(a > 0), so 0 at the kink a = 0, like the reverse-mode relu_back."""


def _relu_max_indicator(self):
    return Dual(max(self.primal, 0.0), self.tangent * float(self.primal > 0))


Dual.relu = _relu_max_indicator
