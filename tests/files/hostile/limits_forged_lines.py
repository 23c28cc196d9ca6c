def _hx_attack():
    """Forged result lines with the run's own nonce (read from the harness's channel): millions of
    empty lists (`[],` repeated, ~@@MIB@@ MiB a line) until the pipe breaks, then SIGKILL so that
    every restart starts a fresh child."""
    import json
    import os
    import signal

    import probekit

    channel = probekit._CHANNEL
    nonce, out = channel._nonce, channel._out
    value = "[" + "[]," * (@@MIB@@ * 1024 * 1024 // 3) + "[]]"
    head = json.dumps({"nonce": nonce, "event": "result", "probe": probekit.CURRENT, "status": "ok"})[:-1]
    line = head + ', "value": ' + value + "}\n"
    try:
        for _ in range(64):
            out.write(line)
            out.flush()
    except OSError:
        pass
    os.kill(os.getpid(), signal.SIGKILL)
