def _hx_attack():
    """300,000 empty folders in the private /tmp (about 1 KiB of kernel memory each, none of it in the tmpfs's
    byte size), stopping quietly at the first refusal; `_hx_stopped_at_cap` keeps a probed value right only if
    the flood was refused within the sandbox's inode cap (@@CAP@@ per scratch mount)."""
    global _HX_MADE
    import os

    try:
        os.mkdir("/tmp/@@TOKEN@@")
        for i in range(300_000):
            os.mkdir(f"/tmp/@@TOKEN@@/{i}")
            _HX_MADE += 1
    except OSError:
        pass


_HX_MADE = 0


def _hx_stopped_at_cap(value):
    return value if _HX_MADE < @@CAP@@ else value * 2.0
