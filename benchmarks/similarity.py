"""Similarity screening of a synthetic class: time and peak memory of `autograde similarity`.

    python benchmarks/similarity.py [--size 500] [--seed 0] [--keep DIR]

Builds a class of `--size` submissions (the offering's two student files) from the reference
solutions, mutated per student: statements of the student's own inserted at random places in every
solution block, an alternative topological sort (Kahn's algorithm or a recursive DFS) for some, local
names renamed and the file reformatted for half of them; 15 % work in study groups of 2 to 4 (shared
mutations), 2 % hand in a disguised copy of someone else's work, one in ten submits a .zip. Then runs
`autograde similarity` on it in a child process and prints the wall time, the child's peak resident
memory, and what it found. The goal on the 2-core machine: under a minute for 500 (124,750 pairs).
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parent.parent
FILES = ("minitorch/autodiff.py", "project/run_sentiment.py")
BLOCK = re.compile(r"^[ \t]*# (BEGIN|END) SOLUTION\s*$")

#: Alternatives to the reference's topological sort (the body of the solution block).
TOPOLOGICAL = [
    """from collections import deque
users = {}
seen = {variable.unique_id: variable}
todo = [variable]
while todo:
    node = todo.pop()
    for p in ([] if node.is_leaf() else node.parents):
        if p.is_constant():
            continue
        users[p.unique_id] = users.get(p.unique_id, 0) + 1
        if p.unique_id not in seen:
            seen[p.unique_id] = p
            todo.append(p)
ready = deque([variable])
order = []
while ready:
    node = ready.popleft()
    order.append(node)
    for p in ([] if node.is_leaf() else node.parents):
        if not p.is_constant():
            users[p.unique_id] -= 1
            if users[p.unique_id] == 0:
                ready.append(p)
return order
""",
    """visited = set()
result = []

def visit(var):
    if var.unique_id in visited or var.is_constant():
        return
    if not var.is_leaf():
        for parent in var.parents:
            visit(parent)
    visited.add(var.unique_id)
    result.insert(0, var)

visit(variable)
return result
""",
]


def random_statement(rng: random.Random, depth: int = 2) -> str:
    """A statement of the student's own: an assignment of a random expression."""

    def expr(level: int) -> str:
        if level == 0 or rng.random() < 0.3:
            return rng.choice([str(rng.randint(0, 99)), f"len([{rng.randint(0, 9)}])", "0.5", "True"])
        op = rng.choice(["+", "-", "*", "//", "%", "and", "or"])
        if rng.random() < 0.3:
            return f"max({expr(level - 1)}, {expr(level - 1)})"
        return f"({expr(level - 1)} {op} {expr(level - 1)})"

    return f"note_{rng.randint(0, 999)} = {expr(depth + rng.randint(0, 2))}"


def mutate_blocks(text: str, rng: random.Random, alternative: int) -> str:
    """`text` (a reference file) with statements inserted in its solution blocks, markers removed,
    and the topological sort replaced by TOPOLOGICAL[alternative] when alternative >= 0."""
    lines = text.splitlines()
    out: List[str] = []
    inside = False
    block: List[str] = []
    for line in lines:
        if BLOCK.match(line):
            if inside:
                out.extend(_mutated(block, rng, alternative))
                block = []
            inside = not inside
            continue
        (block if inside else out).append(line)
    return "\n".join(out) + "\n"


def _mutated(block: List[str], rng: random.Random, alternative: int) -> List[str]:
    code = [line for line in block if line.strip() and not line.strip().startswith("#")]
    if not code:
        return block
    indent = code[0][: len(code[0]) - len(code[0].lstrip())]
    if alternative >= 0 and any("visited" in line for line in code) and any("stack" in line for line in code):
        block = [indent + line if line else "" for line in TOPOLOGICAL[alternative].splitlines()]
    for _ in range(rng.randint(1, 3)):
        candidates = [i for i, line in enumerate(block) if line.strip() and not line.strip().startswith("#")]
        at = rng.choice(candidates)
        target = block[at]
        if target.lstrip().startswith(("else", "elif", "except", "finally")):
            continue
        here = target[: len(target) - len(target.lstrip())]
        block.insert(at, here + random_statement(rng))
    return block


class Renamer(ast.NodeTransformer):
    """Local names and arguments of every function renamed the same way everywhere."""

    def __init__(self, tree: ast.AST, rng: random.Random):
        names = set()
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef):
                for node in ast.walk(fn):
                    if isinstance(node, ast.arg) and node.arg != "self":
                        names.add(node.arg)
                    elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                        names.add(node.id)
        self.mapping = {n: f"{n}_{rng.randint(0, 99)}" for n in sorted(names)}

    def visit_Name(self, node):
        node.id = self.mapping.get(node.id, node.id)
        return node

    def visit_arg(self, node):
        node.arg = self.mapping.get(node.arg, node.arg)
        return node


def renamed(text: str, rng: random.Random, reorder: bool = False) -> str:
    tree = ast.parse(text)
    tree = Renamer(tree, rng).visit(tree)
    if reorder:
        defs = [i for i, s in enumerate(tree.body) if isinstance(s, ast.FunctionDef)]
        moved = [tree.body[i] for i in defs]
        rng.shuffle(moved)
        for i, s in zip(defs, moved):
            tree.body[i] = s
    return ast.unparse(tree) + "\n"


def make_class(dest: Path, size: int, seed: int) -> Dict[str, str]:
    """Write the class under `dest`; return student -> what they are (independent, group-N, copy-of-X)."""
    rng = random.Random(seed)
    references = {rel: (ROOT / "reference" / rel).read_text(encoding="utf-8") for rel in FILES}
    kinds: Dict[str, str] = {}
    written: Dict[str, Dict[str, str]] = {}
    group_seed = None
    group_left = 0
    for number in range(size):
        name = f"student{number:04d}"
        if written and rng.random() < 0.02:
            source = rng.choice(sorted(written))
            files = {rel: renamed(text, rng, reorder=True) for rel, text in written[source].items()}
            kinds[name] = f"copy-of-{source}"
        else:
            if group_left == 0 and rng.random() < 0.06:
                group_seed, group_left = rng.randrange(1 << 30), rng.randint(2, 4)
            own = rng.randrange(1 << 30)
            base = random.Random(group_seed if group_left else own)
            alternative = base.choice([-1, -1, 0, 1])
            files = {rel: mutate_blocks(text, base, alternative) for rel, text in references.items()}
            if group_left:
                files = {rel: mutate_blocks(text, random.Random(own), -1) for rel, text in files.items()}
                kinds[name] = f"group-{group_seed}"
                group_left -= 1
            else:
                kinds[name] = "independent"
            if rng.random() < 0.5:
                files = {rel: renamed(text, rng) for rel, text in files.items()}
        written[name] = files
        folder = dest / name
        for rel, text in files.items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_text(text, encoding="utf-8")
        if rng.random() < 0.1:
            with zipfile.ZipFile(dest / f"{name}.zip", "w", zipfile.ZIP_DEFLATED) as archive:
                for rel in FILES:
                    archive.write(folder / rel, f"{name}/{rel}")
            shutil.rmtree(folder)
    return kinds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, default=None, help="build the class and the output here (kept)")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="similarity-bench-"))
    try:
        subs, out = work / "class", work / "out"
        shutil.rmtree(subs, ignore_errors=True)
        subs.mkdir(parents=True)
        started = time.monotonic()
        kinds = make_class(subs, args.size, args.seed)
        copies = sum(1 for k in kinds.values() if k.startswith("copy-of"))
        grouped = sum(1 for k in kinds.values() if k.startswith("group"))
        print(f"built {args.size} submissions in {time.monotonic() - started:.1f} s "
              f"({grouped} in study groups, {copies} disguised copies)")
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "graders", "similarity", str(subs), "--out", str(out)],
                              cwd=ROOT, capture_output=True, text=True)
        seconds = time.monotonic() - started
        peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(done.stdout.strip())
        if done.returncode != 0:
            print(done.stderr[-3000:], file=sys.stderr)
            return done.returncode
        pairs = args.size * (args.size - 1) // 2
        sizes = {p.name: p.stat().st_size for p in out.iterdir()}
        print(f"similarity of {args.size} submissions ({pairs} pairs): {seconds:.1f} s wall, "
              f"peak memory {peak_mib:.0f} MiB; "
              + ", ".join(f"{name} {size / 1e6:.1f} MB" for name, size in sorted(sizes.items())))
        found, copies, unrelated = flagged_pairs(out, kinds)
        print(f"disguised copies flagged with their source: {found} of {copies}; "
              f"flagged pairs of unrelated students: {unrelated}")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def family(name: str, kinds: Dict[str, str]) -> str:
    """Who `name`'s work comes from: its study group, the source of a copy, else itself."""
    kind = kinds[name]
    if kind.startswith("copy-of-"):
        return family(kind[len("copy-of-"):], kinds)
    return kind if kind.startswith("group-") else name


def flagged_pairs(out: Path, kinds: Dict[str, str]) -> Tuple[int, int, int]:
    """(copies whose pair with their source is flagged, copies, flagged pairs of unrelated students)."""
    summary = json.loads((out / "similarity.json").read_text(encoding="utf-8"))
    flagged = set()
    with open(out / "similarity.csv", newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if float(row["score"]) < summary["threshold"]:
                break
            flagged.add(frozenset((row["a"], row["b"])))
    copies = {n: k[len("copy-of-"):] for n, k in kinds.items() if k.startswith("copy-of-")}
    found = sum(1 for n, src in copies.items() if frozenset((n, src)) in flagged)
    unrelated = sum(1 for pair in flagged if len({family(n, kinds) for n in pair}) == 2)
    return found, len(copies), unrelated


if __name__ == "__main__":
    sys.exit(main())
