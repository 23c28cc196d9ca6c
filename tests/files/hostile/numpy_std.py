def _hx_attack():
    """numpy.std, used by a probe to decide 'deterministic in eval mode', answers 0 every second call."""
    import numpy

    real = numpy.std
    calls = [0]

    def std(a, *args, **kwargs):
        calls[0] += 1
        value = real(a, *args, **kwargs)
        return value if calls[0] % 2 else value * 0.0

    numpy.std = std
