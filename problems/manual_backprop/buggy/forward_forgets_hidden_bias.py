"""Buggy: The forward leaves out the hidden layer's bias: z1 = x W1 (the backward is the textbook one)."""

EXPECT = None


def forward(params: Params, x: np.ndarray) -> Tuple[np.ndarray, dict]:
    x = np.asarray(x, dtype=np.float64)
    z1 = x @ params["W1"]
    h = np.maximum(z1, 0.0)
    logits = h @ params["W2"] + params["b2"]
    return logits, {"x": x, "z1": z1, "h": h, "logits": logits}
