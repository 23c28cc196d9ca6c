def _hx_attack():
    """The nonce is no secret from code in the same process: find the harness's channel with gc and send
    well-tagged events whose fields have the wrong types or shapes (variant @@FORGE@@)."""
    import gc
    import json

    channel = next(o for o in gc.get_objects() if type(o).__name__ == "Channel" and hasattr(o, "_nonce"))
    nonce = channel._nonce

    def send(**event):
        event["nonce"] = nonce
        channel._out.write(json.dumps(event) + "\n")
        channel._out.flush()

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
