def _hx_attack():
    """Find the harness's channel with gc and send well-tagged events whose fields have the wrong types or
    shapes (variant @@FORGE@@). The student's process holds no live channel (the trusted process does): then
    the same events go out through whatever the harness left there to send events with (its pipe's `emit`)."""
    import gc
    import json

    channel = next((o for o in gc.get_objects() if type(o).__name__ == "Channel"
                    and getattr(o, "_out", None) is not None and getattr(o, "_nonce", None)), None)
    if channel is not None:
        nonce = channel._nonce

        def send(**event):
            event["nonce"] = nonce
            channel._out.write(json.dumps(event) + "\n")
            channel._out.flush()
    else:
        up = next(o for o in gc.get_objects() if callable(getattr(type(o), "emit", None))
                  and type(o).__name__ != "Channel" and hasattr(o, "pipe"))

        def send(**event):
            up.emit(event.pop("event"), **event)

    deep = 5.0
    for _ in range(900):
        deep = [deep]
    variant = "@@FORGE@@"
    if variant == "loaded":
        send(event="loaded", missing=5, error="not a mapping")
    elif variant == "fault":
        send(event="fault", error="not a mapping")
    elif variant == "start":
        send(event="start", probe=["op_neg"])
        send(event="start", probe={"op_neg": 1})
    elif variant == "deep_value":
        send(event="result", probe="op_neg", status="ok", value=deep)
    elif variant == "bad_result":
        send(event="result", probe="op_neg", status="ok", value=[{"forward": {"values": "x"}}], seconds=float("nan"))
    elif variant == "done":
        send(event="done")
    elif variant == "orphan":  # armed at import: no probe runs yet, so these name none
        send(event="mark", probe=None, label="start")
        send(event="result", probe=None, status="ok", value=[1.0])
    else:
        raise AssertionError(variant)
