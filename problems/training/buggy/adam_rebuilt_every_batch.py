"""A student who builds Adam inside the batch loop: its moments and step count start again before every step, so
each update is Adam's first (about lr·sign(g)). The held-out accuracy still reaches the target."""

EXPECT = "optimizer-rebuilt"
FAILS = ["optimizer_state"]
PASSES = ["accuracy", "zero_grad", "loop_loss"]
EDITS = [
    ("""\
                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND)
""", """\
                optim = minitorch.Adam(model.parameters(), learning_rate)
                x = minitorch.tensor(X_train[example_num : example_num + batch_size], backend=BACKEND)
"""),
]
