#!/usr/bin/env python3
"""Generate the grader's hidden held-out split: problems/training/hidden/heldout.tsv.

Same generator and mixture as the bundled corpus (scripts/make_corpus.py), another
seed, with every sentence of the public train/validation files removed. It is
never copied into the student template or a sandbox: the labels stay with the
grader, which scores the predictions a submission returns.

Usage: python scripts/make_heldout.py [--seed N] [--size N]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import make_corpus  # noqa: E402

PUBLIC = ROOT / "reference" / "data" / "sentiment"
OUT = ROOT / "problems" / "training" / "hidden" / "heldout.tsv"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--size", type=int, default=600)
    args = parser.parse_args()
    public = set()
    for name in ("train.tsv", "validation.tsv"):
        for line in (PUBLIC / name).read_text(encoding="utf-8").splitlines()[1:]:
            public.add(line.split("\t")[0])
    splits = make_corpus.generate(args.seed)
    rows = [r for r in splits["validation"] + splits["train"] if r[0] not in public]
    # keep the mixture: take the first rows of each kind in proportion, labels balanced
    by_kind = {}
    for sentence, label, kind in rows:
        by_kind.setdefault((kind, label), []).append((sentence, label, kind))
    total = sum(n for _, _, n in make_corpus.MIXTURE)
    chosen = []
    for kind, _, n_val in make_corpus.MIXTURE:
        per_label = round(args.size * n_val / total) // 2
        for label in (0, 1):
            chosen.extend(by_kind[(kind, label)][:per_label])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with open(OUT, "w", encoding="utf-8", newline="\n") as handle:
        handle.write("sentence\tlabel\tkind\n")
        for sentence, label, kind in chosen:
            handle.write(f"{sentence}\t{label}\t{kind}\n")
    print(f"wrote {len(chosen)} examples to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
