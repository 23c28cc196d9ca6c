def _hx_attack():
    """Up to two million empty files in the private /tmp (its byte size is capped, its inode count is
    not unless the sandbox says so), stopping quietly at the first refusal."""
    import os

    folder = "/tmp/@@TOKEN@@"
    try:
        os.mkdir(folder)
        for i in range(2_000_000):
            os.close(os.open(f"{folder}/{i}", os.O_CREAT | os.O_WRONLY, 0o600))
    except OSError:
        pass
