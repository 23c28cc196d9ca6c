def _hx_attack():
    """Fills the disk where the child may write (cwd, $HOME, $TMPDIR, the temp dir): a 1 GiB file,
    3000 small files, then 15 MiB files (RLIMIT_FSIZE is per file). Returns normally."""
    import os
    import tempfile

    spots = {os.getcwd(), os.environ.get("HOME") or ".", os.environ.get("TMPDIR") or ".", tempfile.gettempdir()}
    chunk = b"x" * (1 << 20)
    for spot in sorted(spots):
        try:
            with open(os.path.join(spot, "@@TOKEN@@-huge"), "wb") as f:
                for _ in range(1024):
                    f.write(chunk)
        except OSError:
            pass
        try:
            many = os.path.join(spot, "@@TOKEN@@-many")
            os.makedirs(many, exist_ok=True)
            for i in range(3000):
                with open(os.path.join(many, f"@@TOKEN@@-{i}"), "w") as f:
                    f.write("x" * 100)
        except OSError:
            pass
        for i in range(12):
            try:
                with open(os.path.join(spot, f"@@TOKEN@@-mid{i}"), "wb") as f:
                    f.write(chunk * 15)
            except OSError:
                break
