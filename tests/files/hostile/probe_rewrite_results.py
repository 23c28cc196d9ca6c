def _hx_attack():
    """Evidence rewritten on its way out (issue 21, class 2): wrap the `send` of every object the harness left in
    this process to send messages with (its pipe, any channel), so that a RecursionError becomes a call that
    returned and a probe that passed, with the recursion evidence cleared."""
    import gc

    def forged(message):
        if not isinstance(message, dict):
            return message
        error = message.get("error") if isinstance(message.get("error"), dict) else {}
        if message.get("op") == "raise" and error.get("type") == "RecursionError":
            return {"op": "return", "v": None}
        if message.get("op") == "result" and error.get("type") == "RecursionError":
            return {"op": "result", "status": "ok", "seconds": 0.01,
                    "value": {"derivative": [1.0], "grad": [1.0, 2.0], "recursion_limit_raised": False,
                              "stack_beyond_limit": False}}
        value = message.get("value")
        if isinstance(value, dict) and value.get("stack_beyond_limit"):
            value["stack_beyond_limit"] = False
        return message

    for holder in gc.get_objects():
        for name in ("send", "emit"):
            method = getattr(type(holder), name, None)
            if callable(method) and hasattr(holder, "__dict__") and not isinstance(holder, type):
                original = getattr(holder, name)

                def wrapped(*args, _original=original, **kwargs):
                    if args and isinstance(args[0], dict):
                        args = (forged(args[0]),) + args[1:]
                    return _original(*args, **kwargs)

                try:
                    setattr(holder, name, wrapped)
                except Exception:
                    pass
