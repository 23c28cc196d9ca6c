"""A student who seeds every y with the scalar 1.0 when no grad_ys is given, instead of OnesLike(y)."""

EXPECT = "seed-not-ones-like-y"
FAILS = ["gradients_symbolic"]
EDITS = [
    ("""                seed = Node("OnesLike", (y,), y.shape, "OnesLike")\n""",
     """                seed = constant(1.0, graph=graph)\n"""),
]
