# (issue 21, red team) Asks Session._evaluate (answered by the trusted process) for exp of a huge input once, in a
# run of several fetches: the value is inf, which the pipe once could not carry (the trusted process crashed and
# the two processes lost step). Non-finite arrays now cross as their bytes.
_hx_run = Session.run
_hx_done = [False]


def _hx_run_inf(self, fetches, feed_dict=None):
    import numpy as np

    if isinstance(fetches, list) and not _hx_done[0]:
        exps = [n for n in self.graph.get_operations() if n.op_type == "Exp"]
        if exps:
            _hx_done[0] = True
            try:
                self._evaluate(exps[0], [np.full((2, 2), 1e4)])
            except BaseException:
                pass
    return _hx_run(self, fetches, feed_dict)


Session.run = _hx_run_inf
