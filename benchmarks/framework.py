"""One HW2 training step: minitorch (NumPy backend) vs PyTorch CPU eager.

    python benchmarks/framework.py [--steps N] [--slow-steps K] [--slow-batch B] [--no-slow]

The step is exactly the body of the training loop in
reference/project/run_sentiment.py — build the x / y tensors from the batch,
`optim.zero_grad()`, `model.forward(x)`, `binary_cross_entropy_loss`,
`loss.backward()`, `optim.step()` (Adam, lr 0.01) — on the HW2 network
(batch 32, sentence length 20, embedding dim 50, hidden 32, dropout 0.5),
with batches of the bundled corpus encoded by minitorch.datasets.

The torch twin does the same step in eager mode (`torch.tensor(batch)`,
zero_grad, mean -> Linear -> ReLU -> dropout -> Linear -> sigmoid, the same
written-out BCE, backward, torch.optim.Adam), in float64 (minitorch's dtype)
and in float32 (torch's default dtype, what a student's torch code uses).

Each configuration is warmed up, then timed step by step with
`time.perf_counter`; the figure is the median. Batches are fed as NumPy
arrays (the framework's cost; see `--batches lists` for the nested Python
lists that run_sentiment.py slices, where both sides also pay for parsing
them). The pure-Python (SimpleOps) and SIMT-simulator backends are far
slower: they run fewer steps (7 by default, same batch of 32; `--slow-batch`
can shrink it) and are reported as a ratio to the NumPy backend on the same
batch size.

The LAST line printed is `ratio_vs_torch=<x>`: the NumPy backend's median
step time divided by torch float32's (goal: <= 1.2).
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, List, Sequence, Tuple

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "reference"))

import minitorch  # noqa: E402
from minitorch import datasets  # noqa: E402

B, L, D, H, P, LR = 32, 20, 50, 32, 0.5, 0.01


def load_hw2():
    """reference/project/run_sentiment.py as a module (its Network, loss and BACKEND)."""
    spec = importlib.util.spec_from_file_location("hw2_run_sentiment_bench",
                                                  ROOT / "reference/project/run_sentiment.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def corpus(max_len: int = L) -> Tuple[np.ndarray, np.ndarray]:
    train, _ = datasets.load_sentiment()
    X, y = datasets.encode_sentences(train, datasets.load_embeddings(), max_len=max_len)
    return np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)


def batches(X: np.ndarray, y: np.ndarray, batch: int, as_lists: bool) -> List[Tuple[object, object]]:
    out = []
    for i in range(0, len(X) - batch + 1, batch):
        xb, yb = X[i : i + batch], y[i : i + batch]
        out.append((xb.tolist(), yb.tolist()) if as_lists else (xb, yb))
    return out


def time_steps(step: Callable[[object, object], float], data: Sequence, warmup: int, steps: int) -> List[float]:
    for k in range(warmup):
        step(*data[k % len(data)])
    times = []
    for k in range(steps):
        xb, yb = data[(warmup + k) % len(data)]
        t0 = time.perf_counter()
        step(xb, yb)
        times.append(time.perf_counter() - t0)
    return times


def minitorch_step_fn(hw2, backend, seed: int = 0):
    """The run_sentiment.py step on `backend` (the module-level BACKEND is swapped for construction)."""
    saved = hw2.BACKEND
    hw2.BACKEND = backend
    try:
        np.random.seed(seed)
        model = hw2.Network(embedding_dim=D, hidden_dim=H, dropout_prob=P)
    finally:
        hw2.BACKEND = saved
    model.train()
    optim = minitorch.Adam(model.parameters(), LR)
    loss_fn = hw2.binary_cross_entropy_loss

    def step(xb, yb) -> float:
        x = minitorch.tensor(xb, backend=backend)
        y = minitorch.tensor(yb, backend=backend)
        optim.zero_grad()
        out = model.forward(x)
        loss = loss_fn(out, y)
        loss.backward()
        optim.step()
        return loss.item()

    return step, model


def torch_step_fn(model_mt, dtype, **adam_kwargs):
    import torch

    params = [
        torch.tensor(p.value.to_numpy(), dtype=dtype, requires_grad=True)
        for _, p in model_mt.named_parameters()
    ]
    W1, b1, W2, b2 = params
    opt = torch.optim.Adam(params, lr=LR, **adam_kwargs)

    def step(xb, yb) -> float:
        x = torch.tensor(xb, dtype=dtype)
        y = torch.tensor(yb, dtype=dtype)
        opt.zero_grad()
        h = torch.relu(x.mean(1) @ W1 + b1)
        h = torch.nn.functional.dropout(h, P, training=True)
        out = torch.sigmoid(h @ W2 + b2).view(x.shape[0])
        loss = -(y * out.log() + (1.0 - y) * (1.0 - out).log()).sum() / x.shape[0]
        loss.backward()
        opt.step()
        return loss.item()

    return step


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:8.3f} ms" if seconds < 1 else f"{seconds:8.2f} s "


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=300, help="timed steps for NumPy and torch (>= 50)")
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--slow-steps", type=int, default=7, help="timed steps for the Python and SIMT backends")
    ap.add_argument("--slow-batch", type=int, default=B, help="batch size for the Python and SIMT backends")
    ap.add_argument("--no-slow", action="store_true", help="skip the Python and SIMT backends")
    ap.add_argument("--batches", choices=["arrays", "lists"], default="arrays")
    args = ap.parse_args(argv)
    assert args.steps >= 50, "median of at least 50 steps"

    import torch

    hw2 = load_hw2()
    X, y = corpus()
    data = batches(X, y, B, as_lists=args.batches == "lists")
    print(f"python {platform.python_version()}, numpy {np.__version__}, torch {torch.__version__} "
          f"({torch.get_num_threads()} threads), {platform.machine()}")
    print(f"HW2 step: batch {B}, length {L}, dim {D}, hidden {H}, dropout {P}, Adam lr {LR}; "
          f"batches as {args.batches}; median of {args.steps} steps after {args.warmup} warm-up")

    np_step, model = minitorch_step_fn(hw2, hw2.BACKEND)
    default_threads = torch.get_num_threads()
    configs = {"minitorch numpy (float64)": (np_step, None)}
    for dtype, dname in ((torch.float64, "float64"), (torch.float32, "float32")):
        for threads in dict.fromkeys((default_threads, 1)):
            configs[f"torch eager {dname}, {threads} thr"] = (torch_step_fn(model, dtype), threads)
    # torch's fastest CPU Adam (one fused kernel for all parameters; not the default)
    configs["torch float32, 1 thr, fused"] = (torch_step_fn(model, torch.float32, fused=True), 1)
    # Interleave the configurations in rounds so that a background load hits them alike.
    results = {k: [] for k in configs}
    rounds = max(1, args.steps // 50)
    for r in range(rounds):
        for k, (step, threads) in configs.items():
            if threads is not None:
                torch.set_num_threads(threads)
            n = args.steps // rounds + (args.steps % rounds if r == rounds - 1 else 0)
            results[k] += time_steps(step, data, args.warmup if r == 0 else 3, n)
    torch.set_num_threads(default_threads)
    med = {k: statistics.median(v) for k, v in results.items()}
    base = med["minitorch numpy (float64)"]
    for k, v in results.items():
        q1, _, q3 = statistics.quantiles(v, n=4)
        print(f"  {k:28s} median {fmt(med[k])}  (IQR {fmt(q1).strip()} .. {fmt(q3).strip()})  "
              f"numpy/this = {base / med[k]:.2f}")
    best32 = min((k for k in med if "float32" in k), key=med.get)
    best64 = min((k for k in med if "float64" in k and k.startswith("torch")), key=med.get)

    if not args.no_slow:
        sb = args.slow_batch
        small = batches(X, y, sb, as_lists=args.batches == "lists")
        np_small, _ = minitorch_step_fn(hw2, minitorch.FastBackend)
        small_np = statistics.median(time_steps(np_small, small, args.warmup, max(args.steps, 50)))
        print(f"slow backends: batch {sb}, median of {args.slow_steps} steps after 1 warm-up; "
              f"numpy on batch {sb}: {fmt(small_np).strip()}")
        slow = (("python (SimpleOps)", minitorch.SimpleBackend), ("SIMT simulator", minitorch.SimtBackend))
        for name, backend in slow:
            step, _ = minitorch_step_fn(hw2, backend)
            t = statistics.median(time_steps(step, small, 1, args.slow_steps))
            print(f"  {name:28s} median {fmt(t)}  = {t / small_np:,.0f} x numpy")

    ratio = base / med[best32]
    print(f"minitorch numpy / fastest torch float32 ({best32}) = {ratio:.2f}; "
          f"/ fastest torch float64 ({best64}) = {base / med[best64]:.2f}")
    print(f"ratio_vs_torch={ratio:.2f}")


if __name__ == "__main__":
    main()
