def _hx_attack():
    """The probes' work counters (in this process) report words instead of numbers."""
    import probekit

    probekit.Counter.as_dict = lambda self: {"chain_rule": "many", "parents": "lots", "accumulate": 0}
