"""What a copy can add or move without changing what the code does, taken out before fingerprinting.

Contract: `normalise(tree)` rewrites a parsed module in place and returns it, so that a copy disguised
by any of the following fingerprints like its source:

- constant folding: unary operators on number, bool or None literals (`_SHIELD = ----1` is one constant);
- identity wrappers: `(lambda v: v)(x)` and any lambda applied to arguments that are names or literals
  (its body with them put in), `x if True else y`, `True and x`, `False or x`, `(x, y)[0]`, and calls
  of the file's own one-line identity functions (`def same(v): return v`);
- dead stores: `_z = <expression>` to a plain name nothing in the function (for the module: in the file)
  ever reads, dropped, or kept as the bare expression when it may have an effect (a call); bare literal
  and name statements;
- statement interleaving: within a block, a run of simple statements (assignments, bare expressions)
  is put in one canonical order that keeps every dependence between them (a statement that writes a
  name another reads or writes, or two statements that may have effects, keep their order): two
  orders of independent statements become one.

Every walk is iterative (a file nested thousands deep is fine); nothing here executes code.
"""

from __future__ import annotations

import ast
from collections import Counter
from typing import Callable, Container, Dict, List, Optional, Sequence, Set, Tuple
from typing import Counter as TallyCounter

#: simple statements that take part in canonical ordering
SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)
#: longest run of simple statements ordered canonically (quadratic in the run; longer runs are cut)
MAX_RUN = 40
#: node types that may have an effect beyond the names a statement writes
EFFECTS = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.Delete, ast.Global, ast.Nonlocal)


def _children(node: ast.AST) -> List[ast.AST]:
    """`node`'s child nodes in `ast.iter_child_nodes`' order but the expression context (Load/Store/Del: a shared
    marker, read through its node, never walked), read from `_fields` directly (the walks below are most of
    similarity screening's time)."""
    found: List[ast.AST] = []
    for name in node._fields:
        if name == "ctx":
            continue
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            found.append(value)
        elif type(value) is list:
            found.extend([item for item in value if isinstance(item, ast.AST)])
    return found


def _preorder(root: ast.AST) -> List[ast.AST]:
    """`root` and every node under it but the expression contexts (`_children` on a stack)."""
    order: List[ast.AST] = []
    stack = [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(_children(node))
    return order


def _map_children(node: ast.AST, fn: Callable[[ast.expr], ast.expr]) -> None:
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.expr):
            new = fn(value)
            if new is not value:
                setattr(node, name, new)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, ast.expr):
                    value[i] = fn(item)


def _constant(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant)


def _fold_unary(node: ast.UnaryOp) -> Optional[ast.expr]:
    operand = node.operand
    if not isinstance(operand, ast.Constant):
        return None
    value = operand.value
    if isinstance(node.op, ast.Not):
        try:
            return ast.copy_location(ast.Constant(not value), node)
        except Exception:  # a literal whose truth raises: leave it
            return None
    if isinstance(value, (bool, int, float, complex)) and not (isinstance(node.op, ast.Invert)
                                                              and not isinstance(value, int)):
        try:
            result = {ast.USub: lambda v: -v, ast.UAdd: lambda v: +v, ast.Invert: lambda v: ~v}[type(node.op)](value)
        except (KeyError, TypeError, OverflowError):
            return None
        return ast.copy_location(ast.Constant(result), node)
    return None


def _truth(node: ast.AST) -> Optional[bool]:
    if isinstance(node, ast.Constant):
        try:
            return bool(node.value)
        except Exception:
            return None
    return None


def _pure(node: ast.AST) -> bool:
    return not any(isinstance(n, EFFECTS) for n in _preorder(node))


def _binds(node: ast.AST) -> Set[str]:
    """Names bound inside `node` by nested lambdas, comprehensions and walrus (substitution stops there)."""
    found: Set[str] = set()
    for n in _preorder(node):
        if isinstance(n, ast.arg):
            found.add(n.arg)
        elif isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            found.add(n.id)
    return found


def _beta(call: ast.Call) -> Optional[ast.expr]:
    """`(lambda a, b: body)(x, y)` -> body with a, b replaced, when x, y are names or literals (or each
    parameter is used once)."""
    fn = call.func
    if not isinstance(fn, ast.Lambda) or call.keywords:
        return None
    args = fn.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or args.posonlyargs:
        return None
    if len(args.args) != len(call.args) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    params = [a.arg for a in args.args]
    if _binds(fn.body) & set(params):
        return None
    uses: Dict[str, int] = {}
    body_nodes = _preorder(fn.body)
    for n in body_nodes:
        if isinstance(n, ast.Name) and n.id in params:
            uses[n.id] = uses.get(n.id, 0) + 1
    values = dict(zip(params, call.args))
    for p, value in values.items():
        if uses.get(p, 0) > 1 and not isinstance(value, (ast.Name, ast.Constant)):
            return None
        if uses.get(p, 0) == 0 and not _pure(value):
            return None

    def put(node: ast.expr) -> ast.expr:
        if isinstance(node, ast.Name) and node.id in values:
            value = values[node.id]
            if isinstance(value, ast.Name):
                return ast.copy_location(ast.Name(value.id, ast.Load()), node)
            if isinstance(value, ast.Constant):
                return ast.copy_location(ast.Constant(value.value), node)
            return value
        return node

    for n in body_nodes:  # the lambda's own nodes only: an argument put in is not searched again
        _map_children(n, put)
    return put(fn.body)


def _simplifier(identities: Set[str]) -> Callable[[ast.expr], ast.expr]:
    def simplify(node: ast.expr) -> ast.expr:
        if isinstance(node, ast.UnaryOp):
            return _fold_unary(node) or node
        if isinstance(node, ast.IfExp):
            truth = _truth(node.test)
            return node if truth is None else (node.body if truth else node.orelse)
        if isinstance(node, ast.BoolOp):
            stop = isinstance(node.op, ast.Or)  # `or` stops at a true value, `and` at a false one
            values = list(node.values)
            while len(values) > 1 and _truth(values[0]) is not None:
                if _truth(values[0]) == stop:
                    return values[0]
                values.pop(0)
            return values[0] if len(values) == 1 else node
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Lambda):
                return _beta(node) or node
            if isinstance(node.func, ast.Name) and node.func.id in identities and len(node.args) == 1 \
                    and not node.keywords and not isinstance(node.args[0], ast.Starred):
                return node.args[0]
            return node
        if isinstance(node, ast.Subscript) and isinstance(node.value, (ast.Tuple, ast.List)) \
                and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int \
                and isinstance(node.ctx, ast.Load):
            elts = node.value.elts
            index = node.slice.value
            if -len(elts) <= index < len(elts) and not any(isinstance(e, ast.Starred) for e in elts) \
                    and all(_pure(e) for e in elts):
                return elts[index]
        return node
    return simplify


def _identity_functions(tree: ast.Module) -> Set[str]:
    """Module-level functions (or lambdas) that return their one argument unchanged."""
    found: Set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.decorator_list:
            body = [s for s in node.body if not (isinstance(s, ast.Expr) and _constant(s.value))]
            params = node.args.args
            if len(params) == 1 and not (node.args.vararg or node.args.kwarg or node.args.kwonlyargs) \
                    and len(body) == 1 and isinstance(body[0], ast.Return) \
                    and isinstance(body[0].value, ast.Name) and body[0].value.id == params[0].arg:
                found.add(node.name)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Lambda) and len(node.value.args.args) == 1 \
                and isinstance(node.value.body, ast.Name) and node.value.body.id == node.value.args.args[0].arg:
            found.add(node.targets[0].id)
    return found


def _fold(tree: ast.Module, identities: Set[str]) -> None:
    simplify = _simplifier(identities)
    for node in reversed(_preorder(tree)):  # children before their parents
        _map_children(node, simplify)


# ----------------------------------------------------------------------------------------- dead stores


def _load_counts(scope: ast.AST) -> TallyCounter[str]:
    """The names `scope`'s subtree reads (a Name loaded or deleted, the names of `global` and `nonlocal`), each with
    how many times it appears."""
    names: TallyCounter[str] = Counter()
    for n in _preorder(scope):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Load, ast.Del)):
            names[n.id] += 1
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            names.update(n.names)
    return names


def _forget(counts: TallyCounter[str], removed: TallyCounter[str]) -> None:
    """Take what dropped statements read out of `counts` (a name no longer read leaves it)."""
    for name, times in removed.items():
        left = counts[name] - times
        if left > 0:
            counts[name] = left
        else:
            del counts[name]


def _store_name(stmt: ast.stmt) -> Optional[str]:
    """The one plain name `stmt` stores to (`x = ...`, `x += ...`, `x: T = ...`), None otherwise."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) and isinstance(stmt.target, ast.Name) \
            and getattr(stmt, "value", None) is not None:
        return stmt.target.id
    return None


def _blocks(root: ast.AST, stop_at_functions: bool) -> List[List[ast.stmt]]:
    """Every statement list under `root` (not inside nested functions or classes when asked)."""
    found: List[List[ast.stmt]] = []
    stack: List[ast.AST] = [root]
    while stack:
        node = stack.pop()
        for name in ("body", "orelse", "finalbody"):
            value = getattr(node, name, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                found.append(value)
                for stmt in value:
                    if stop_at_functions and isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                               ast.ClassDef)):
                        continue
                    stack.append(stmt)
        for handler in getattr(node, "handlers", []) or []:
            stack.append(handler)
        for case in getattr(node, "cases", []) or []:
            stack.append(case)
    return found


def _drop_dead(blocks: Sequence[List[ast.stmt]], read: Container[str], removed: TallyCounter[str],
               dropped: Optional[Set[str]] = None) -> bool:
    """Drop the dead stores of `blocks` (a name not in `read`) and the bare literals and names; the names the
    dropped code read are added to `removed` (a store whose value may have an effect stays as that value)."""
    changed = False
    for block in blocks:
        kept: List[ast.stmt] = []
        for stmt in block:
            name = _store_name(stmt)
            if name is not None and name not in read and not name.startswith("__"):
                value = getattr(stmt, "value", None)
                changed = True
                if dropped is not None:
                    dropped.add(name)
                gone = _load_counts(stmt)
                if value is not None and not _pure(value):
                    kept.append(ast.copy_location(ast.Expr(value), stmt))
                    gone.subtract(_load_counts(value))
                removed.update(+gone)
                continue
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, (ast.Constant, ast.Name)) \
                    and not (isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)):
                changed = True
                removed.update(_load_counts(stmt))
                continue  # `1`, `None`, `x` alone do nothing (docstrings are the fingerprinter's to drop)
            kept.append(stmt)
        if len(kept) != len(block):
            block[:] = kept or [ast.Pass()]
    return changed


def _functions_and_loads(tree: ast.Module) -> Tuple[List[ast.AST], Dict[int, List[int]], Dict[int, TallyCounter[str]],
                                                     TallyCounter[str]]:
    """The functions of `tree` in preorder, each one's enclosing functions, the names each one's subtree reads
    (`_load_counts` of it) and those the whole file reads, in one walk."""
    functions: List[ast.AST] = []
    enclosing: Dict[int, List[int]] = {}
    loads: Dict[int, TallyCounter[str]] = {}
    everywhere: TallyCounter[str] = Counter()
    stack: List[Tuple[ast.AST, Tuple[int, ...]]] = [(tree, ())]
    while stack:
        node, outer = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.append(node)
            enclosing[id(node)] = list(outer)
            loads[id(node)] = Counter()
            outer = outer + (id(node),)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Load, ast.Del)):
            everywhere[node.id] += 1
            for fn in outer:
                loads[fn][node.id] += 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            everywhere.update(node.names)
            for fn in outer:
                loads[fn].update(node.names)
        stack.extend((child, outer) for child in _children(node))
    return functions, enclosing, loads, everywhere


def _remove_dead_stores(tree: ast.Module) -> Set[str]:
    """Drop the dead stores; the module-level names dropped (what the rest of the file decided).

    Each round takes the functions in preorder, then the module. A function is taken again in a later round only
    when its subtree changed in the one before (its own drops or a nested function's): with the same statements
    and the same names read, it would drop nothing new. The names each function's subtree reads, and the whole
    file's, are counted in one walk and kept as drops happen: what a dropped statement read is taken out of its
    function's count, its enclosing functions' and the file's (`_forget`), so each count is always what a walk
    of the tree as it is now would give."""
    dropped: Set[str] = set()
    functions, enclosing, loads, everywhere = _functions_and_loads(tree)
    dirty = {id(fn) for fn in functions}
    for _ in range(3):  # a store read only by a dead store is dead next round
        changed, touched = False, set()
        for fn in functions:
            if id(fn) not in dirty:
                continue
            removed: TallyCounter[str] = Counter()
            if _drop_dead(_blocks(fn, stop_at_functions=True), loads[id(fn)], removed):
                changed = True
                touched.add(id(fn))
                touched.update(enclosing[id(fn)])
                for scope in (id(fn), *enclosing[id(fn)]):
                    _forget(loads[scope], removed)
                _forget(everywhere, removed)
        removed = Counter()
        changed |= _drop_dead(_blocks(tree, stop_at_functions=True), everywhere, removed, dropped)
        _forget(everywhere, removed)
        if not changed:
            break
        dirty = touched
    return dropped


# ---------------------------------------------------------------------------------- canonical ordering


def _effects(stmt: ast.stmt) -> Tuple[Set[str], Set[str], bool]:
    """(names read, names written, may have another effect)."""
    reads: Set[str] = set()
    writes: Set[str] = set()
    other = False
    for n in _preorder(stmt):
        if isinstance(n, ast.Name):
            (reads if isinstance(n.ctx, ast.Load) else writes).add(n.id)
        elif isinstance(n, (ast.Attribute, ast.Subscript)) and not isinstance(n.ctx, ast.Load):
            other = True
        elif isinstance(n, EFFECTS):
            other = True
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        reads.add(stmt.target.id)
    return reads, writes, other


def _order_run(run: List[ast.stmt], key: Callable[[ast.stmt], tuple]) -> List[ast.stmt]:
    facts = [_effects(s) for s in run]
    n = len(run)
    before: List[Set[int]] = [set() for _ in range(n)]
    for j in range(n):
        rj, wj, oj = facts[j]
        for i in range(j):
            ri, wi, oi = facts[i]
            if wi & (rj | wj) or ri & wj or (oi and oj):
                before[j].add(i)
    keys = [key(s) for s in run]
    placed: List[int] = []
    done: Set[int] = set()
    while len(placed) < n:
        ready = [j for j in range(n) if j not in done and before[j] <= done]
        pick = min(ready, key=lambda j: (keys[j], j))
        placed.append(pick)
        done.add(pick)
    return [run[j] for j in placed]


def _canonical_order(tree: ast.Module, key: Callable[[ast.stmt], tuple]) -> None:
    for block in _blocks(tree, stop_at_functions=False):
        out: List[ast.stmt] = []
        run: List[ast.stmt] = []
        for stmt in block:
            if isinstance(stmt, SIMPLE) and len(run) < MAX_RUN:
                run.append(stmt)
                continue
            out.extend(_order_run(run, key) if len(run) > 1 else run)
            run = [stmt] if isinstance(stmt, SIMPLE) else []
            if not isinstance(stmt, SIMPLE):
                out.append(stmt)
        out.extend(_order_run(run, key) if len(run) > 1 else run)
        block[:] = out


def normalise(tree: ast.Module, key: Callable[[ast.stmt], tuple]) -> tuple:
    """Rewrite `tree` in place: constants folded, identity wrappers unwrapped, dead stores dropped and
    independent simple statements in canonical order (by `key`: a statement's normalised tokens).

    Returns what the whole file decided for its units (its identity functions, its dead module-level
    names): with a unit's own text, it determines the unit's normalised tokens (a cache key)."""
    identities = _identity_functions(tree)
    _fold(tree, identities)
    dropped = _remove_dead_stores(tree)
    _canonical_order(tree, key)
    return tuple(sorted(identities)), tuple(sorted(dropped))
