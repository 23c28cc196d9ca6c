def _hx_attack():
    """(issue 21) What the student's process can reach of the trusted process, its parent: its memory, maps,
    environment and descriptors under /proc, and this process's own capabilities. Raised at import, so the
    report is the load error's message."""
    import os

    found = []
    parent = os.getppid()
    for what in ("mem", "maps", "environ", "fd"):
        path = f"/proc/{parent}/{what}"
        try:
            if what == "fd":
                os.listdir(path)
            else:
                with open(path, "rb") as handle:
                    handle.read(64)
            found.append(f"{what}: readable")
        except OSError as exc:
            found.append(f"{what}: {type(exc).__name__}")
    with open("/proc/self/status", encoding="ascii") as status:
        found += [line.split()[0] + " " + line.split()[1] for line in status if line.startswith("CapEff")]
    raise RuntimeError("PEEK " + " | ".join(found))
