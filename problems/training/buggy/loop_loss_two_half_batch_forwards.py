"""Bug (or at least not the course's step): each batch is run as two forward passes of its halves and one
backward of their weighted losses. The loss is the batch's mean, but no backward pass comes from one forward pass
of the batch, and the message says exactly that (not that nothing was backpropagated)."""

EXPECT = None
FAILS = ["loop_loss"]
MESSAGES = {"loop_loss": "none from one batch's own forward pass"}
EDITS = [("                out = model.forward(x)\n                loss = binary_cross_entropy_loss(out, y)\n", """\
                half = max(1, x.shape[0] // 2)
                parts = [(slice(0, half), half), (slice(half, x.shape[0]), x.shape[0] - half)]
                loss = None
                for rows, size in parts:
                    if size == 0:
                        continue
                    part_out = model.forward(minitorch.tensor(X_train[example_num:example_num + batch_size][rows],
                                                              backend=BACKEND))
                    part_y = minitorch.tensor(y_train[example_num:example_num + batch_size][rows], backend=BACKEND)
                    part = binary_cross_entropy_loss(part_out, part_y) * (size / x.shape[0])
                    loss = part if loss is None else loss + part
                out = model.forward(x)
""")]
