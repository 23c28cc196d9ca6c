def _hx_attack():
    """The probes' work counters (in this process: autodiff's probes package) report words instead of numbers."""
    from probes import graphs

    graphs.Counter.as_dict = lambda self: {"chain_rule": "many", "parents": "lots", "accumulate": 0}
