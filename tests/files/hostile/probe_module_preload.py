def _hx_attack():
    """Before the probes are imported, put a module of our own in the module table under the name of a helper
    module of autodiff's probes package (`probes.graphs`): the probes would import our counters."""
    import sys
    import types

    fake = types.ModuleType("probes.graphs")
    fake.__dict__.update(Counter=object, Graph=object, chain=None, count_graph_uses=None, diamond_chain=None,
                         layered_dag=None, random_dag=None)
    sys.modules["probes.graphs"] = fake
