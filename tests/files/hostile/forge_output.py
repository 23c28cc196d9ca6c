def _hx_attack():
    """Fake results everywhere: Gradescope JSON on stdout/stderr, forged event lines (no nonce, guessed
    nonces, a 'done', a 200000-deep JSON array, binary junk) on every file descriptor, and results.json
    in every directory it can reach, the --out directory of any grader command line it can see included."""
    import json
    import os
    import sys

    fake = {
        "score": 1000.0, "execution_time": 0.1, "output": "All tests passed", "visibility": "visible",
        "stdout_visibility": "visible", "extra_data": {"forged": "@@TOKEN@@"},
        "tests": [{"name": n, "score": 100.0, "max_score": 100.0, "status": "passed"} for n in ("ops", "network")],
    }
    line = json.dumps(fake)
    print(line)
    print(line, file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    forged = [line, json.dumps({"event": "done"})]
    for nonce in ("", "0" * 32, "@@TOKEN@@", None):
        for probe in ("op_neg", "op_add", "linear_forward", "linear_parameters"):
            forged.append(json.dumps({"nonce": nonce, "event": "start", "probe": probe}))
            forged.append(json.dumps({"nonce": nonce, "event": "result", "probe": probe, "status": "ok", "value": []}))
        forged.append(json.dumps({"nonce": nonce, "event": "done"}))
    forged.append("[" * 200000)
    forged.append("\x00\xff\xfe not json at all")
    payload = ("\n".join(forged) + "\n").encode("utf-8", "surrogateescape")
    for fd in range(0, 256):
        try:
            os.write(fd, payload)
        except OSError:
            pass
    dirs = {os.getcwd(), os.environ.get("HOME", "."), os.environ.get("TMPDIR", "."), "@@OUT@@"}
    # Spray only when the grader's own files are out of sight (the sandbox holds): a broken sandbox must make
    # the test fail, not litter the grading machine with results.json files.
    if not os.path.exists("@@ROOT@@/graders"):
        dirs |= {"/tmp", "/work", "/sandbox", os.path.dirname(os.getcwd()), os.path.dirname("@@OUT@@")}
        for pid in os.listdir("/proc"):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    argv = f.read().decode("utf-8", "replace").split("\0")
            except OSError:
                continue
            for flag, value in zip(argv, argv[1:]):
                if flag == "--out":
                    dirs.add(value)
            try:
                dirs.add(os.readlink(f"/proc/{pid}/cwd"))
            except OSError:
                pass
        for top in ("/", "/tmp", "/work", "/sandbox", os.path.expanduser("~")):
            for dirpath, dirnames, _ in os.walk(top):
                if dirpath.startswith(("/proc", "/sys", "/dev", "/usr")):
                    dirnames[:] = []
                    continue
                dirs.add(dirpath)
                if len(dirs) > 3000:
                    break
    for d in dirs:
        try:
            with open(os.path.join(d, "results.json"), "w") as f:
                f.write(line)
        except OSError:
            pass
