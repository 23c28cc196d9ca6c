"""Valid: after each optimizer step the loop measures the batch's training accuracy with dropout off, on the
updated model: `model.eval(); out = model.forward(x); model.train()`. That forward's output never reaches
backward(): it is a measurement, not a training step, so the mode it runs in is the loop's choice. Every forward
whose loss is backpropagated runs in training mode (model.train() right after the measurement): full marks.
"""

SCORE = 30.0
EDITS = [("                optim.step()\n", """\
                optim.step()
                # training accuracy measured without dropout, on the updated model
                model.eval()
                out = model.forward(x)
                model.train()
"""),
]
