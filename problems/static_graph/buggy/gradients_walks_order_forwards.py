"""Buggy: the gradient pass walks the topological order forwards (inputs first) instead of reversed: the ys are
reached last, so their adjoints are never passed on and the xs get no gradient."""

LABELS = ["order-not-reversed"]
FAILS = ["gradients_given_order"]
EDITS = [("        for n in reversed(order):\n", "        for n in order:\n")]
