def _hx_attack():
    """250 files of 8 MiB in /dev/shm (2 GB of the host's shared memory if that tmpfs takes them), stopping
    quietly at the first refusal; `_hx_nothing_written` keeps a probed value right only if none was written."""
    global _HX_SHM_WRITTEN
    block = b"\1" * (8 << 20)
    try:
        for i in range(250):
            with open(f"/dev/shm/@@TOKEN@@_{i}", "wb") as f:
                f.write(block)
            _HX_SHM_WRITTEN += 1
    except OSError:
        pass


_HX_SHM_WRITTEN = 0


def _hx_nothing_written(value):
    return value if _HX_SHM_WRITTEN == 0 else value * 2.0
