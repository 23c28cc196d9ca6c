def _hx_attack():
    """Asks for many GiB: one 8 GiB block, a 16 GiB numpy array, then 64 MiB blocks until refused."""
    import numpy

    hog = []
    for ask in (lambda: bytearray(8 << 30), lambda: numpy.ones(1 << 31)):
        try:
            hog.append(ask())
        except MemoryError:
            pass
    while True:
        hog.append(bytearray(64 << 20))
