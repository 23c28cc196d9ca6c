def _hx_attack():
    """Replace the clock the probes time with: every interval measures one millisecond."""
    import time

    ticks = [0.0]

    def fake_clock():
        ticks[0] += 0.0005
        return ticks[0]

    time.perf_counter = fake_clock
    time.monotonic = fake_clock
    time.time = fake_clock
