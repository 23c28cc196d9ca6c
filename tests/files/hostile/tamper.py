def _hx_attack():
    """Try to change the grader's code, its problems, the reference, the cache (reference runs, stacks)
    and a gradebook; also everything mounted in the sandbox (harness, probes, stack, inputs)."""
    import os

    targets = []
    tops = ["@@CACHE@@", "/sandbox", os.path.expanduser("~/.cache/minitorch-autograder")]
    if not os.path.exists("@@ROOT@@/graders"):  # a broken sandbox must fail the test, not damage the repository
        tops += ["@@ROOT@@/graders", "@@ROOT@@/problems", "@@ROOT@@/reference/minitorch"]
    for top in tops:
        for dirpath, dirnames, filenames in os.walk(top):
            targets.extend(os.path.join(dirpath, n) for n in filenames)
            for n in dirnames:
                try:
                    with open(os.path.join(dirpath, n, "@@TOKEN@@-planted.py"), "w") as f:
                        f.write("raise SystemExit\n")
                except OSError:
                    pass
    targets.append("@@GRADEBOOK@@")
    for path in targets:
        tail = "\n# @@TOKEN@@\n"
        try:
            with open(path, "a") as f:
                f.write(tail)
        except OSError:
            pass
        try:
            os.chmod(path, 0o777)
        except OSError:
            pass
