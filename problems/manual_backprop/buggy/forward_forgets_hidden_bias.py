"""Buggy: The forward leaves out the hidden layer's bias: z1 = x W1 (the backward is the textbook one)."""

EXPECT = None
EDITS = [('    z1 = x @ params["W1"] + params["b1"]\n', '    z1 = x @ params["W1"]\n')]
