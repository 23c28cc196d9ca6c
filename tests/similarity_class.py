"""A class for the similarity tests: independent solutions in distinct styles, and disguised copies.

Every independent solution fills the student template's stubs (`fill`) with its own code: five
topological sorts (the reference's DFS with an explicit stack, Kahn's algorithm, a recursive DFS, a
DFS over parent iterators, a sort by longest distance from the output), five ways to hold the adjoints,
five networks and five training loops. `disguise` makes a copy a student would hope passes unnoticed:
identifiers renamed, docstrings and comments removed, functions reordered, dead code added, reformatted.
"""

from __future__ import annotations

import ast
import shutil
import textwrap
from pathlib import Path
from typing import Dict, List, Sequence

from conftest import ROOT

AUTODIFF = "minitorch/autodiff.py"
SENTIMENT = "project/run_sentiment.py"
TEMPLATE = ROOT / "student_template"
STUB = "raise NotImplementedError("

# ----------------------------------------------------------------------------- autodiff: 2 stubs

KAHN = ['''
from collections import deque

if variable.is_constant():
    return []
users = {}
seen = {variable.unique_id: variable}
todo = [variable]
while todo:
    node = todo.pop()
    if node.is_leaf():
        continue
    for p in node.parents:
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
    if node.is_leaf():
        continue
    for p in node.parents:
        if p.is_constant():
            continue
        users[p.unique_id] -= 1
        if users[p.unique_id] == 0:
            ready.append(p)
return order
''', '''
grads = {variable.unique_id: deriv}
for node in topological_sort(variable):
    g = grads.get(node.unique_id)
    if g is None:
        continue
    if node.is_leaf():
        node.accumulate_derivative(g)
    else:
        for p, d in node.chain_rule(g):
            if not p.is_constant():
                grads[p.unique_id] = grads[p.unique_id] + d if p.unique_id in grads else d
''']

RECURSIVE = ['''
visited = set()
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
''', '''
from collections import defaultdict

derivs = defaultdict(float)
derivs[variable.unique_id] = deriv
queue = topological_sort(variable)
for var in queue:
    grad = derivs[var.unique_id]
    if var.is_leaf():
        var.accumulate_derivative(grad)
        continue
    for inp, local in var.chain_rule(grad):
        if inp.is_constant():
            continue
        derivs[inp.unique_id] += local
''']

ITERATORS = ['''
done = {}
post = []
frames = []
if not variable.is_constant():
    done[variable.unique_id] = True
    frames.append((variable, iter(variable.parents)))
while frames:
    top, pending = frames[-1]
    advanced = False
    for nxt in pending:
        if nxt.is_constant() or nxt.unique_id in done:
            continue
        done[nxt.unique_id] = True
        frames.append((nxt, iter(()) if nxt.is_leaf() else iter(nxt.parents)))
        advanced = True
        break
    if not advanced:
        frames.pop()
        post.append(top)
return post[::-1]
''', '''
ordered = list(topological_sort(variable))
position = {v.unique_id: i for i, v in enumerate(ordered)}
table = [None] * len(ordered)
if variable.unique_id in position:
    table[position[variable.unique_id]] = deriv
for i, v in enumerate(ordered):
    current = table[i]
    if current is None:
        continue
    if v.is_leaf():
        v.accumulate_derivative(current)
        continue
    for u, contribution in v.chain_rule(current):
        if u.is_constant():
            continue
        j = position[u.unique_id]
        table[j] = contribution if table[j] is None else table[j] + contribution
''']

DEPTHS = ['''
if variable.is_constant():
    return []
depth = {variable.unique_id: 0}
nodes = {variable.unique_id: variable}
frontier = [variable]
while frontier:
    following = []
    for n in frontier:
        if n.is_leaf():
            continue
        for m in n.parents:
            if m.is_constant():
                continue
            proposed = depth[n.unique_id] + 1
            if depth.get(m.unique_id, -1) < proposed:
                depth[m.unique_id] = proposed
                nodes[m.unique_id] = m
                following.append(m)
    frontier = following
return sorted(nodes.values(), key=lambda n: depth[n.unique_id])
''', '''
pending = {}
pending[variable.unique_id] = deriv
for current in topological_sort(variable):
    key = current.unique_id
    if key not in pending:
        continue
    value = pending.pop(key)
    if current.is_leaf():
        current.accumulate_derivative(value)
    else:
        contributions = current.chain_rule(value)
        for target, amount in contributions:
            if target.is_constant():
                continue
            pending[target.unique_id] = pending.get(target.unique_id, 0.0) + amount
''']

# --------------------------------------------- run_sentiment: loss, Linear x2, Network x2, train x2

SENTIMENT_B = ['''
positive = y * out.log()
negative = (1.0 - y) * (1.0 - out).log()
return -(positive + negative).mean()
''', '''
self.out_size = out_size
self.weights = RParam(in_size, out_size)
self.bias = RParam(out_size)
''', '''
w = self.weights.value.view(1, in_size, self.out_size)
h = (x.view(batch, in_size, 1) * w).sum(1)
return h.view(batch, self.out_size) + self.bias.value.view(1, self.out_size)
''', '''
self.first = Linear(embedding_dim, hidden_dim)
self.second = Linear(hidden_dim, 1)
''', '''
pooled = embeddings.sum(1) / embeddings.shape[1]
pooled = pooled.view(embeddings.shape[0], self.embedding_dim)
hidden = self.first(pooled).relu()
if self.training:
    hidden = minitorch.dropout(hidden, self.dropout_prob)
logits = self.second(hidden)
return logits.sigmoid().view(embeddings.shape[0])
''', '''
end = min(example_num + batch_size, n_training_samples)
features = minitorch.tensor(X_train[example_num:end], backend=BACKEND, requires_grad=True)
y = minitorch.tensor(y_train[example_num:end], backend=BACKEND)
out = model(features)
loss = binary_cross_entropy_loss(out, y)
optim.zero_grad()
loss.backward()
optim.step()
''', '''
val_x = minitorch.tensor(X_val, backend=BACKEND)
val_out = model(val_x)
validation_predictions = get_predictions_array(y_val, val_out)
validation_accuracy.append(get_accuracy(validation_predictions))
''']

SENTIMENT_C = ['''
n = out.shape[0]
logs_p = out.log()
logs_q = (-out + 1.0).log()
total = (y * logs_p + (-y + 1.0) * logs_q).sum()
return total * (-1.0 / n)
''', '''
self.in_size, self.out_size = in_size, out_size
self.weights = RParam(in_size, out_size)
self.bias = RParam(out_size)
''', '''
result = x.view(batch, in_size) @ self.weights.value.view(in_size, self.out_size)
result = result + self.bias.value
return result
''', '''
self.hidden = hidden_dim
layers = [Linear(embedding_dim, hidden_dim), Linear(hidden_dim, 1)]
self.layer_in, self.layer_out = layers
''', '''
b, l, d = embeddings.shape
avg = embeddings.mean(dim=1).contiguous().view(b, d)
z = self.layer_in.forward(avg)
z = z.relu()
z = minitorch.dropout(z, self.dropout_prob, not self.training)
z = self.layer_out.forward(z)
return z.sigmoid().view(b)
''', '''
idx = slice(example_num, example_num + batch_size)
xb, yb = X_train[idx], y_train[idx]
y = minitorch.tensor(yb, backend=BACKEND)
out = self.model.forward(minitorch.tensor(xb, backend=BACKEND))
loss = binary_cross_entropy_loss(out, y)
loss.backward()
optim.step()
''', '''
predictions = self.model.forward(minitorch.tensor(X_val, backend=BACKEND))
for item in get_predictions_array(y_val, predictions):
    validation_predictions.append(item)
correct = sum(1 for t, p, _ in validation_predictions if t == p)
validation_accuracy.append(correct / max(1, len(validation_predictions)))
''']

SENTIMENT_D = ['''
ones = minitorch.ones(out.shape, backend=out.backend)
ce = -(y * out.log() + (ones - y) * (ones - out).log())
return ce.sum() / out.shape[0]
''', '''
weights = RParam(in_size, out_size)
bias = RParam(out_size)
self.weights, self.bias, self.out_size = weights, bias, out_size
''', '''
flat = x.contiguous()
product = flat @ self.weights.value
shifted = product + self.bias.value.view(1, self.out_size)
return shifted
''', '''
self.linear_layers = [Linear(embedding_dim, hidden_dim), Linear(hidden_dim, 1)]
self.l1 = self.linear_layers[0]
self.l2 = self.linear_layers[1]
''', '''
steps = embeddings.shape[1]
summed = embeddings.sum(1)
mean = summed * (1.0 / steps)
mean = mean.view(mean.shape[0], mean.shape[2])
act = self.l1(mean).relu()
act = minitorch.dropout(act, self.dropout_prob, ignore=not self.training)
prob = self.l2(act).sigmoid()
return prob.view(prob.shape[0])
''', '''
chunk_x = X_train[example_num : example_num + batch_size]
chunk_y = y_train[example_num : example_num + batch_size]
inputs = minitorch.tensor(chunk_x, backend=BACKEND)
y = minitorch.tensor(chunk_y, backend=BACKEND)
for p in self.model.parameters():
    p.value.grad = None
out = self.model(inputs)
loss = binary_cross_entropy_loss(out, y)
(loss * 1.0).backward()
optim.step()
''', '''
with_labels = minitorch.tensor(y_val, backend=BACKEND)
scores = model(minitorch.tensor(X_val, backend=BACKEND))
validation_predictions.extend(get_predictions_array(with_labels, scores))
validation_accuracy.append(get_accuracy(validation_predictions))
''']

SENTIMENT_E = ['''
batch = out.shape[0]
log_yes = out.log()
log_no = (out * -1.0 + 1.0).log()
weighted = log_yes * y + log_no * (y * -1.0 + 1.0)
return weighted.sum() * (-1.0 / batch)
''', '''
self.out_size = out_size
self.bias = None
self.weights = RParam(in_size, out_size)
self.bias = RParam(out_size)
''', '''
out = self.bias.value.view(1, self.out_size)
return out + x @ self.weights.value
''', '''
dims = (embedding_dim, hidden_dim, 1)
self.hidden_layer = Linear(dims[0], dims[1])
self.output_layer = Linear(dims[1], dims[2])
''', '''
n_batch, n_words, n_dim = embeddings.shape
x = embeddings.sum(dim=1) / n_words
x = x.view(n_batch, n_dim)
x = self.hidden_layer(x)
x = x.relu()
if self.training and self.dropout_prob > 0:
    x = minitorch.dropout(x, self.dropout_prob)
x = self.output_layer(x).sigmoid()
return x.view(n_batch)
''', '''
stop = example_num + batch_size
x_batch = X_train[example_num:stop]
y_batch = y_train[example_num:stop]
y = minitorch.tensor(y_batch, backend=BACKEND)
out = model.forward(minitorch.tensor(x_batch, backend=BACKEND))
loss = binary_cross_entropy_loss(out, y)
loss.backward()
optim.step()
optim.zero_grad()
''', '''
for start in range(0, len(X_val), batch_size):
    xs = minitorch.tensor(X_val[start:start + batch_size], backend=BACKEND)
    ys = y_val[start:start + batch_size]
    validation_predictions += get_predictions_array(ys, model.forward(xs))
validation_accuracy.append(get_accuracy(validation_predictions))
''']

#: name -> (autodiff blocks, run_sentiment blocks); None: the reference's own file
INDEPENDENT = {
    "ind_reference": (None, None),
    "ind_kahn": (KAHN, SENTIMENT_B),
    "ind_recursive": (RECURSIVE, SENTIMENT_C),
    "ind_iterators": (ITERATORS, SENTIMENT_D),
    "ind_depths": (DEPTHS, SENTIMENT_E),
}


def fill(template: str, blocks: Sequence[str]) -> str:
    """`template` with its i-th `raise NotImplementedError(...)` line replaced by blocks[i], indented like it."""
    lines = template.splitlines(keepends=True)
    stubs = [i for i, line in enumerate(lines) if line.strip().startswith(STUB)]
    assert len(stubs) == len(blocks), f"the template has {len(stubs)} stubs, the solution {len(blocks)} blocks"
    for index, block in reversed(list(zip(stubs, blocks))):
        indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
        lines[index] = textwrap.indent(textwrap.dedent(block).strip("\n") + "\n", indent)
    return "".join(lines)


def write_files(dest: Path, files: Dict[str, str]) -> Path:
    for rel, text in files.items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_text(text, encoding="utf-8")
    return dest


def solution(name: str) -> Dict[str, str]:
    """The two files of the independent solution `name`."""
    autodiff, sentiment = INDEPENDENT[name]
    files = {}
    for rel, blocks in ((AUTODIFF, autodiff), (SENTIMENT, sentiment)):
        if blocks is None:
            files[rel] = (ROOT / "reference" / rel).read_text(encoding="utf-8")
        else:
            files[rel] = fill((TEMPLATE / rel).read_text(encoding="utf-8"), blocks)
    return files


def template_files() -> Dict[str, str]:
    return {rel: (TEMPLATE / rel).read_text(encoding="utf-8") for rel in (AUTODIFF, SENTIMENT)}


# ------------------------------------------------------------------------------------ disguises

KEEP = {"self", "cls", "super", "minitorch", "BACKEND", "RParam", "Linear", "Network"}
DEAD_HELPER = '''
def _debug_total(values):
    total = 0
    for value in values:
        if value is not None:
            total += value * 2
    return total
'''


class _Renamer(ast.NodeTransformer):
    """Every local variable and argument of every function gets another name (the same one everywhere)."""

    def __init__(self, tree: ast.AST):
        local: List[str] = []
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.Lambda)):
                for node in ast.walk(fn):
                    if isinstance(node, ast.arg):
                        local.append(node.arg)
                    elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                        local.append(node.id)
        names = [n for n in dict.fromkeys(local) if n not in KEEP]
        self.mapping = {n: f"zq_{i}_{n[::-1].strip('_') or 'v'}" for i, n in enumerate(names)}

    def visit_Name(self, node):
        node.id = self.mapping.get(node.id, node.id)
        return node

    def visit_arg(self, node):
        node.arg = self.mapping.get(node.arg, node.arg)
        return self.generic_visit(node)


def _strip_docstrings(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            kept = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                            and isinstance(s.value.value, str))]
            node.body = kept or [ast.Pass()]


def _reorder(body: List[ast.stmt]) -> None:
    """Reverse the order of the definitions of `body` (other statements stay where they are), recursively in classes."""
    slots = [i for i, s in enumerate(body) if isinstance(s, (ast.FunctionDef, ast.ClassDef))]
    defs = [body[i] for i in slots]
    for i, d in zip(slots, reversed(defs)):
        body[i] = d
    for d in defs:
        if isinstance(d, ast.ClassDef):
            _reorder(d.body)


def _add_dead_code(tree: ast.Module) -> None:
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and len(fn.body) > 2:
            fn.body.insert(1, ast.parse("unused_steps = len([0, 1]) * 0").body[0])
            fn.body.insert(len(fn.body) - 1, ast.parse("if unused_steps > 3:\n    unused_steps -= 1").body[0])
    tree.body.extend(ast.parse(DEAD_HELPER).body)


def disguise(text: str, rename: bool = True, strip: bool = True, reorder: bool = True, dead_code: bool = True) -> str:
    """A copy of `text` with the chosen disguises, reformatted (ast.unparse drops every comment)."""
    tree = ast.parse(text)
    if strip:
        _strip_docstrings(tree)
    if rename:
        tree = _Renamer(tree).visit(tree)
    if reorder:
        _reorder(tree.body)
    if dead_code:
        _add_dead_code(tree)
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def disguised(files: Dict[str, str], **how: bool) -> Dict[str, str]:
    return {rel: disguise(text, **how) for rel, text in files.items()}


def copy_tree(source: Path, dest: Path) -> Path:
    shutil.copytree(source, dest)
    return dest
