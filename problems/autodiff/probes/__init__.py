"""Hidden probes for `autodiff` (run in the sandbox): they compute, they never judge.

Graphs are rebuilt from fixed seeds, so the reference run and the student run
see the same structure; creation indices (not unique ids) name nodes in results.
"""

import gc
import random
import time

import minitorch
import probekit
from minitorch import autodiff
from minitorch.scalar import Scalar
from probekit import (
    DEFAULT_RECURSION_LIMIT,
    PROBES,  # noqa: F401 - the harness reads the registry from this module
    WorkBudgetExceeded,
    capture,
    first_items,
    floats,
    in_student_process,
    mark,
    probe,
    watching_depth,
)

from .graphs import Counter, Graph, chain, count_graph_uses, diamond_chain, layered_dag, random_dag

# ----------------------------------------------------------------- Scalars


def slides_example(x1, x2):
    """f = x1 + exp(1.5 x1 + 2 x2): x1 has two users."""
    return x1 + (x1 * 1.5 + x2 * 2.0).exp()


@probe("slides_example")
def slides(_):
    x1, x2 = Scalar(3.0), Scalar(0.5)
    slides_example(x1, x2).backward()
    return floats([x1.derivative, x2.derivative])


@probe("sigmoid_quiz")
def sigmoid_quiz(_):
    """v3 = v1 v2, v4 = v3 + v1, v5 = sigmoid(v3), v6 = v5 * v4, v7 = sigmoid(v6)."""
    v1, v2 = Scalar(0.4), Scalar(-1.7)
    v3 = v1 * v2
    v7 = v3.sigmoid()
    v7.backward()
    simple = floats([v1.derivative, v2.derivative])
    w1, w2 = Scalar(0.4), Scalar(-1.7)
    w3 = w1 * w2
    w4 = w3 + w1
    w5 = w3.sigmoid()
    w6 = w5 * w4
    w7 = w6.sigmoid()
    w7.backward()
    return {"v7": simple, "shared": floats([w1.derivative, w2.derivative])}


def scalar_dag(seed, n_leaves=4, n_ops=40, n_constants=3):
    """A random Scalar program with fan-out, reuse and constants."""
    rng = random.Random(seed)
    leaves = [Scalar(rng.uniform(0.2, 1.5)) for _ in range(n_leaves)]
    consts = [Scalar(rng.uniform(0.5, 2.0), None) for _ in range(n_constants)]
    pool = list(leaves)
    ops = [
        lambda a, b: a + b,
        lambda a, b: a * b,
        lambda a, b: a - b,
        lambda a, b: (a * b).sigmoid(),
        lambda a, b: (a + 2.0).relu() * b,
        lambda a, b: a * 0.5 + b.sigmoid(),
        lambda a, b: (a.sigmoid() + 1.0).log() * b,
        lambda a, b: (a.sigmoid() - b.sigmoid()).exp(),
        lambda a, b: a / (b.sigmoid() + 0.5),
        lambda a, b: -a + b,
    ]
    for _ in range(n_ops):
        a = rng.choice(pool[-6:] if rng.random() < 0.6 else pool)
        b = rng.choice(pool + consts) if rng.random() < 0.8 else rng.choice(consts)
        pool.append(rng.choice(ops)(a, b))
    out = pool[-1] + pool[-2] * 0.5 + pool[-5]
    for leaf in leaves:  # every leaf reaches the output: a leaf with no derivative would be an expected None
        out = out + leaf * 0.125
    return leaves, consts, out


for _seed in range(4):

    def _make(seed):
        def random_scalar_dag(_):
            leaves, consts, out = scalar_dag(1000 + seed)
            out.backward()
            return {
                "leaves": floats([x.derivative for x in leaves]),
                "constants_with_derivative": sum(c.derivative is not None for c in consts),
            }

        return random_scalar_dag

    probe(f"random_scalar_dag_{_seed}")(_make(_seed))


@probe("double_backward")
def double_backward(_):
    x1, x2 = Scalar(3.0), Scalar(0.5)
    f = slides_example(x1, x2)
    f.backward()
    once = floats([x1.derivative, x2.derivative])
    f.backward()
    return {"once": once, "twice": floats([x1.derivative, x2.derivative])}


@probe("deep_scalar_chain")
def deep_scalar_chain(_):
    """A 3000-deep chain of Scalar operations, no constant: y = -y, and y = sigmoid(y) at five random places
    (the derivative is no constant a report could state without the pass), differentiated with `.backward()`."""
    limit = DEFAULT_RECURSION_LIMIT  # the student's process has no setter: the limit stays the default
    sigmoids = set(random.Random(3000).sample(range(3000), 5))
    x = Scalar(0.5)
    y = x
    for i in range(3000):
        y = y.sigmoid() if i in sigmoids else -y
    count_graph_uses(y, Counter())
    with watching_depth() as depth:
        y.backward()
    return {"derivative": floats([x.derivative]), **_recursion_evidence(limit, depth)}


# ----------------------------------------------------------------- Tensors


@probe("deep_tensor_chain")
def deep_tensor_chain(_):
    """A 3000-deep chain of Tensor operations, no constant inside: y = -y, and y = sigmoid(y) at five random
    places, differentiated with `.backward()`."""
    limit = DEFAULT_RECURSION_LIMIT
    sigmoids = set(random.Random(3001).sample(range(3000), 5))
    x = minitorch.tensor([0.5, -0.25], requires_grad=True)
    y = x
    for i in range(3000):
        y = y.sigmoid() if i in sigmoids else -y
    out = (y * minitorch.tensor([1.0, 2.0])).sum()
    count_graph_uses(out, Counter())
    with watching_depth() as depth:
        out.backward()
    return {"grad": _grad(x), **_recursion_evidence(limit, depth)}


def _tensor_program(seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    a = minitorch.tensor(rng.uniform(-1, 1, (3, 4)).tolist(), requires_grad=True)
    b = minitorch.tensor(rng.uniform(-1, 1, (4,)).tolist(), requires_grad=True)
    c = minitorch.tensor(rng.uniform(0.5, 1.5, (3, 1)).tolist(), requires_grad=True)
    k = minitorch.tensor(rng.uniform(-1, 1, (3, 4)).tolist())  # a constant
    h = (a * b + c).sigmoid()  # broadcasting: b over rows, c over columns
    g = h * a + k * h  # fan-out of a and h, a constant input
    u = (g.exp() + c).log() * b
    out = (u + h * g).sum()
    out.backward()
    return {
        "a": _grad(a),
        "b": _grad(b),
        "c": _grad(c),
        "constant_has_grad": k.grad is not None,
    }


#: gradient values sent per tensor (the probes' tensors have at most 12): a larger gradient is described
MAX_VALUES = 4096


def _grad(t):
    """A tensor's gradient as nested lists, or None when the backward pass gave it none; a gradient of
    more than MAX_VALUES values (none of the probes' tensors has one) as a short description."""
    if t.grad is None:
        return None
    size = int(t.grad.size)
    if size > MAX_VALUES:
        return f"a gradient of shape {tuple(t.grad.shape)[:16]} ({size} values, too many to send)"
    return t.grad.to_numpy().tolist()


for _seed in range(2):

    def _make_tensor(seed):
        def random_tensor_program(_):
            return _tensor_program(2000 + seed)

        return random_tensor_program

    probe(f"tensor_program_{_seed}")(_make_tensor(_seed))


# ---------------------------------------------- instrumented graphs (Nodes)


def first_of_order(out, nodes):
    """The first `nodes` + 1 variables `topological_sort(out)` yields: an order of a graph of `nodes` nodes
    that is longer repeats a node or lists a stranger within them (the judge fails both), so no more is
    needed, and a generator that never ends (or yields millions) cannot fill the result."""
    return first_items(autodiff.topological_sort, nodes + 1, out)


def _order_as_indices(graph, order):
    where = {id(n): i for i, n in enumerate(graph.nodes)}
    return [where.get(id(v), -1) for v in order]


#: (seed, constants) of the order probe's random DAGs: five with constants, then two with none, where the order
#: is seen on its own even when a sort that asks a constant for its parents crashes on the others
ORDER_GRAPHS = tuple((3000 + seed, 3) for seed in range(5)) + ((3100, 0), (3101, 0))


@probe("topological_order_random", trusted=True)
def topo_random(_):
    """Each graph's order, or the error its sort raised there (one graph's crash hides no other graph's order)."""
    results = []
    for seed, n_constants in ORDER_GRAPHS:
        graph, out = random_dag(random.Random(seed), n_leaves=4, n_ops=50, n_constants=n_constants)
        results.append(
            {
                "order": capture(lambda: _order_as_indices(graph, first_of_order(out, len(graph.nodes)))),
                "edges": graph.edges(),
                "constants": graph.constants(),
                "output": graph.index(out),
            }
        )
    return results


@probe("topological_order_scalars")
def topo_scalars(_):
    _leaves, _consts, out = scalar_dag(4000, n_ops=30)
    nodes, where, stack = [], {}, [out]
    while stack:  # index every Scalar reachable from out
        v = stack.pop()
        if v.unique_id in where:
            continue
        where[v.unique_id] = len(nodes)
        nodes.append(v)
        if v.history is not None and v.history.last_fn is not None:
            stack.extend(v.history.inputs)
    order = first_of_order(out, len(nodes))
    edges = [
        [where[p.unique_id] for p in v.history.inputs] if v.history is not None and v.history.last_fn else []
        for v in nodes
    ]
    return {
        "order": [where.get(v.unique_id, -1) for v in order],
        "edges": edges,
        "constants": [i for i, v in enumerate(nodes) if v.is_constant()],
        "output": 0,
    }


@probe("random_node_dag", trusted=True)
def random_node_dag(_):
    results = []
    for seed in range(4):
        graph, out = random_dag(random.Random(5000 + seed), n_leaves=5, n_ops=60, n_constants=2)
        autodiff.backpropagate(out, 1.0)
        results.append(floats([x.derivative for x in graph.leaves()]))
    return results


#: (weight of x in user i, weight of user i in the output) per fan-out graph: every single
#: contribution, and every plain count of users, differs from the sum (evidence of overwriting)
FAN_OUT = (((2.0, 1.75), (3.0, 0.25)), ((2.0, 1.75), (3.0, 0.25), (5.0, 0.5)))


@probe("fan_out", trusted=True)
def fan_out(_):
    """a -> x, and x feeds several users whose adjoints must be summed: out = 1.75 (2x) + 0.25 (3x) (+ 0.5 (5x));
    then the same graphs with the leaf itself as x (`"leaf": True` rows, after the others): a leaf used by several
    nodes, as x₁ in the slides' example, gets the sum of their contributions too.

    Besides the leaf's derivative, it records the backward pass itself: every
    `chain_rule(d)` in call order, so the judge sees when x was processed and with
    which adjoint (evidence of the order used and of summing).
    """
    results = []
    for shared_leaf in (False, True):
        for pairs in FAN_OUT:
            graph = Graph(Counter(budget=10_000, record=True))
            a = graph.leaf()
            x = a if shared_leaf else graph.op([a], [1.0])
            users = [graph.op([x], [w]) for w, _ in pairs]
            out = graph.op(users, [c for _, c in pairs])
            autodiff.backpropagate(out, 1.0)
            where = {n.unique_id: i for i, n in enumerate(graph.nodes)}
            calls = [[where.get(uid, -1), _maybe_float(d)] for uid, d in graph.counter.calls]
            results.append({"dx": a.derivative, "calls": calls, "edges": graph.edges(), "output": graph.index(out),
                            "x": graph.index(x), "contributions": [w * c for w, c in pairs],
                            "leaf_written": written_by_student(a), **({"leaf": True} if shared_leaf else {})})
    return results


def written_by_student(node):
    """{attribute: its value as a float, or None} of what the student's process set on `node` (this process's
    record of its requests, and the values it holds: a leaf given `leaf.grad = d` instead of
    `accumulate_derivative(d)`, or a mark such as `node.visited = True`); none in the reference's runs."""
    student = probekit.STUDENT
    names = sorted(student.written.get(id(node), ())) if student is not None else []
    return {name: _maybe_float(getattr(node, name, None)) for name in names[:20]}


def _maybe_float(d):
    """A recorded adjoint as a float, or None when it is not a plain number."""
    try:
        return float(d)
    except Exception:
        return None


@probe("derivative_argument", trusted=True)
def derivative_argument(_):
    graph, out = random_dag(random.Random(6000), n_leaves=3, n_ops=20)
    autodiff.backpropagate(out, 2.5)
    return floats([x.derivative for x in graph.leaves()])


@probe("constants_skipped", trusted=True)
def constants_skipped(_):
    graph, out = random_dag(random.Random(7000), n_leaves=3, n_ops=25, n_constants=4)
    error = None
    try:
        autodiff.backpropagate(out, 1.0)
    except AssertionError as exc:
        if not graph.counter.touched_constants:
            raise
        error = str(exc)
    return {
        "touched_constants": sorted(set(graph.counter.touched_constants)),
        "error": error,
        "leaves": floats([x.derivative for x in graph.leaves()]),
    }


def _recursion_evidence(limit, depth):
    """Whether the deep probe's traversal was recursive, however the limit was moved: the limit left raised,
    and whether the graph was used with more frames on the stack than the default limit allows (`depth`: a
    `watching_depth` block; a limit raised and restored, through any path, or a thread)."""
    import sys

    return {"recursion_limit_raised": sys.getrecursionlimit() > limit, "stack_beyond_limit": depth.beyond_limit}


def _deep_chain(depth):
    """The input's derivative through a chain of `depth` nodes with random signs (accumulated here, in the trusted
    process: a recursion that dies cannot be turned into a pass by what its process reports), and the evidence of
    recursion its process gives (`deep_chain_stack`: only that process can see its own stack)."""
    _graph, x, out = chain(depth, Counter(), random.Random(depth))
    autodiff.backpropagate(out, 1.0)
    return {"derivative": floats([x.derivative]), **in_student_process(deep_chain_stack)}


def deep_chain_stack():
    """(In the student's process.) Whether the last trusted call ran with more frames on the stack than the default
    recursion limit allows, and whether the limit was left raised."""
    import sys

    import remote

    return {"recursion_limit_raised": sys.getrecursionlimit() > DEFAULT_RECURSION_LIMIT,
            "stack_beyond_limit": remote.LAST_CALL["deep"]}


@probe("deep_chain_3000", trusted=True)
def deep_chain_3000(_):
    return _deep_chain(3000)


@probe("deep_chain_10000", trusted=True)
def deep_chain_10000(_):
    return _deep_chain(10000)


# ----------------------------------------------------------------- complexity


#: diamond chain sizes (layers) of the work probe, and the uses of chain_rule/parents (and nodes yielded) allowed
#: at each size (each use is a request from the student's process: the reference needs about 400 at 64 layers,
#: a traversal along every path passes 20,000 by 16 layers)
WORK_LAYERS = (2, 4, 8, 16, 32, 64)
WORK_BUDGET = 20_000


def _backpropagate_work():
    """Uses of chain_rule/parents by backpropagate on diamond chains, per size (stops over budget)."""
    rows = []
    for layers in WORK_LAYERS:
        counter = Counter(budget=WORK_BUDGET)
        graph, x, out = diamond_chain(layers, counter)
        try:
            autodiff.backpropagate(out, 1.0)
        except WorkBudgetExceeded:
            rows.append({"layers": layers, "nodes": len(graph.nodes), "exceeded": True, **counter.as_dict()})
            break
        rows.append({"layers": layers, "nodes": len(graph.nodes), "exceeded": False, "derivative": x.derivative,
                     **counter.as_dict()})
    return rows


def _sort_work():
    """Uses of parents by topological_sort ALONE on diamond chains, and the nodes it yields, per size (stops over
    budget): its own work, counted whatever backpropagate does (or whether it runs at all)."""
    rows = []
    for layers in WORK_LAYERS:
        counter = Counter(budget=WORK_BUDGET)
        graph, _x, out = diamond_chain(layers, counter)
        yielded = 0
        try:
            for _ in autodiff.topological_sort(out):
                yielded += 1
                if yielded + counter.chain_rule + counter.parents > WORK_BUDGET:
                    raise WorkBudgetExceeded(f"more than {WORK_BUDGET} nodes yielded and uses of parents")
        except WorkBudgetExceeded:
            rows.append({"layers": layers, "nodes": len(graph.nodes), "exceeded": True, "yielded": yielded,
                         **counter.as_dict()})
            break
        rows.append({"layers": layers, "nodes": len(graph.nodes), "exceeded": False, "yielded": yielded,
                     **counter.as_dict()})
    return rows


@probe("work_on_diamonds", trusted=True)
def work_on_diamonds(_):
    """Uses of chain_rule/parents on diamond chains whose path count doubles per layer: by backpropagate, and by
    topological_sort alone (each family, or the error it raised: a backward pass that crashes hides no sort)."""
    return {"backpropagate": capture(_backpropagate_work), "topological_sort": capture(_sort_work)}


#: CPU seconds after which a timed run stops its size (and the probe its sizes): the reference needs about 0.035 s
#: at 16000 nodes, so this is over 20 times that (the next size, twice as big, would take longer still: a verdict
#: the judge gives on the sizes measured, "the timing stopped early"). CPU time of the student's process as the
#: trusted process reads it (`student_cpu`), not the wall clock: a busy machine must not stop a valid solution
#: early. Above the 0.5 s a padded quadratic spends per run (autodiff/buggy/quadratic_padded), which is judged on
#: every size.
SLOW_RUN = 0.75
#: the largest pair is measured again, in up to MORE_ROUNDS more rounds, while its ratio is in NEAR_BOUND (a
#: clear verdict needs no more runs) and the probe has spent less than MORE_BUDGET CPU seconds
NEAR_BOUND = (2.5, 4.5)
#: a size's runs stop at two when the second took within AGREE of the first (either way): the
#: machine slowed neither, or both alike, and a third on the same machine would not change the best much; runs
#: that disagree get their third. A run padded to match the other gains nothing: fewer runs give a best no lower
AGREE = 0.1
#: passes of the grader's own linear pass per row (its best is kept: one pass is a few milliseconds, and a single
#: one can be slowed by the machine as much as a run)
SWEEPS = 3
#: ... unless the time grew no faster than LINEAR_GROWTH times as fast as the grader's linear pass, or faster than
#: QUADRATIC_GROWTH times: then the verdict is clear (problem.toml's max_growth, 1.45, is the judge's bound). Linear
#: work reads about 1.0 (0.94-1.12 beside CPU and memory hogs, but up to 1.81 on a busy 2-core machine under the
#: suite, 1.74 of it with a pass that doubled: a cutoff of 1.7 ended the measuring there and the reference lost its
#: points); quadratic work about 2.0 (1.72-2.18). So a growth up to QUADRATIC_GROWTH is measured again: it costs a
#: quadratic submission at most MORE_BUDGET CPU seconds of timing, and a false loss is the worse error
LINEAR_GROWTH = 1.25
QUADRATIC_GROWTH = 2.3
#: a grader's linear pass that grew less than this when the graph doubled was disturbed (the judge's
#: DISTURBED_SWEEP_RATIO): a quadratic-looking growth over it is measured again
DISTURBED_PASS = 1.7
MORE_ROUNDS = 4
MORE_BUDGET = 6.0


def _sweep(graph):
    """The grader's own linear pass over a graph: each node's `parents` and `chain_rule` (a leaf: one
    `accumulate_derivative`) once, in creation order. The per-node work every linear traversal does, without a
    traversal's bookkeeping: timed beside each run of the student's, on the same graph, so that the run's time is
    compared with what linear work costs in this process at this size, at this moment."""
    for node in graph.nodes:
        if node.is_constant():
            continue
        if node.is_leaf():
            node.accumulate_derivative(1.0)
        else:
            for _ in node.parents:
                pass
            node.chain_rule(1.0)


#: the graph of the timed run being made (in the process where the student's code runs)
_TIMED = {}


def timed_graph(n, seed, budget):
    """Build the layered DAG of about n nodes a timed run uses, where the student's code runs (a graph of
    thousands of nodes is too big to cross the pipe node by node), the previous one collected first; its node
    count."""
    _TIMED.clear()
    gc.collect()
    graph, out = layered_dag(n, random.Random(seed), counter=Counter(budget=budget))
    _TIMED.update(graph=graph, out=out)
    return len(graph.nodes)


def student_cpu():
    """CPU seconds of the process the student's code runs in, read here: the student's process's CPU clock read by
    the trusted process (graded code cannot change what this process reads; it decides when the timing stops and
    whether it measures more), or this thread's when everything runs in one process (the reference's runs)."""
    if probekit.STUDENT is None:
        return time.thread_time()
    try:
        return time.clock_gettime(((~probekit.STUDENT.pid) << 3) | 2)  # its CPU clock (clock_getcpuclockid)
    except OSError:  # a kernel that will not say: no run looks slow, every size is measured (the parent times them)
        return 0.0


def timed_backpropagate():
    """backpropagate on the graph `timed_graph` built, and the leaf derivatives read as floats (a derivative
    whose `__float__` does the work later is timed too): {"derivatives"}, or {"exceeded": True} over the work
    budget. Timed from the trusted process (`student_cpu`) and by the parent's marks, never by what this process
    says."""
    graph, out = _TIMED["graph"], _TIMED["out"]
    try:
        autodiff.backpropagate(out, 1.0)
        derivatives = floats([x.derivative for x in graph.leaves()])
    except WorkBudgetExceeded:
        return {"exceeded": True}
    return {"derivatives": derivatives}


def _agree(runs):
    """Whether two runs' times are both known and within AGREE of each other."""
    low, high = min(runs), max(runs)
    return low > 0 and high <= (1 + AGREE) * low


def _best_time(n, seed, limit, tag):
    """Up to 3 runs of backpropagate on a layered DAG of about n nodes (work capped; stops past `limit` CPU s,
    and, a student's, after two runs that agree: `_agree`).

    The graph is built and the run made in the student's process (`timed_graph`, `timed_backpropagate`); this
    process brackets each run with marks the parent stamps with the CPU clock of the whole sandbox, as the
    kernel reports it (`{tag}:{run}:start/end`); graph construction stays outside, so that its linear cost does
    not dilute a superlinear backward pass. `runs` are the student's process's CPU time over each run as this
    process reads it (`student_cpu`: they only decide when to stop or to measure more). After the first run, the
    grader's own linear pass (`_sweep`) over the same graph, built HERE, is timed SWEEPS times by this thread's
    own CPU clock (`sweep`: the best, the trusted process's time alone, which no thread or process of the
    student's can add to). `derivatives` are each run's leaf derivatives: time is only worth points for runs that
    computed the right derivatives. The garbage collector stays as the harness leaves it for every probe
    (enabled).
    """
    runs, derivatives, nodes, sweep = [], [], 0, None
    for repeat in range(3):
        budget = 30 * n
        nodes = in_student_process(timed_graph, n, seed + repeat, budget)
        mark(f"{tag}:{repeat}:start")
        started = student_cpu()
        run = in_student_process(timed_backpropagate)
        spent = student_cpu() - started
        mark(f"{tag}:{repeat}:end")
        if run.get("exceeded"):
            return {"nodes": nodes, "exceeded": True, "budget": budget, "tag": tag}
        runs.append(spent)
        derivatives.append(run["derivatives"])
        if repeat == 0:  # one pass per row: the judge pools the best pass per size over every row of it
            gc.collect()
            graph, _out = layered_dag(n, random.Random(seed + repeat), counter=Counter(budget=budget))
            sweeps = []
            for _ in range(SWEEPS):
                started = time.thread_time()  # the process's clock moves by scheduler ticks under an RLIMIT_CPU
                _sweep(graph)
                sweeps.append(time.thread_time() - started)
            sweep = min(sweeps)
            graph = _out = None
        if runs[-1] > limit or (len(runs) == 2 and _agree(runs) and probekit.STUDENT is not None):
            break  # the reference's runs make all three: their derivatives are every run's expected ones
    return {"nodes": nodes, "seconds": min(runs), "runs": runs, "tag": tag, "derivatives": derivatives,
            "sweep": sweep}


def _spent(timed):
    """CPU seconds the timed runs took (in the student's process)."""
    return sum(sum(row.get("runs") or ()) for row in timed)


def _sweep_ratio(timed):
    """The ratio of the grader's best linear passes over the largest pair of sizes in `timed` (None without both):
    about 2 when the graph doubles, less when the machine slowed the smaller size's passes."""
    sweeps = {}
    for row in timed:
        if isinstance(row.get("sweep"), float) and row["sweep"] > 0:
            sweeps[row["nodes"]] = min(sweeps.get(row["nodes"], float("inf")), row["sweep"])
    sizes = sorted(sweeps)
    return sweeps[sizes[-1]] / sweeps[sizes[-2]] if len(sizes) >= 2 else None


def _growth_over_sweep(timed, ratio):
    """How much faster than the grader's linear pass the time grew over the largest pair: the pooled ratio over
    the ratio of the best passes at those sizes (None without both)."""
    linear = _sweep_ratio(timed)
    if ratio is None or linear is None:
        return None
    return ratio / min(linear, 2.4)  # the judge's MAX_SWEEP_RATIO


def _pooled_ratio(timed):
    """The best time at the largest size over the best at the one before, over every row of those sizes."""
    best = {}
    for row in timed:
        if not row.get("exceeded") and row.get("runs"):
            best[row["nodes"]] = min(best.get(row["nodes"], float("inf")), min(row["runs"]))
    sizes = sorted(best)
    return best[sizes[-1]] / max(best[sizes[-2]], 1e-9) if len(sizes) >= 2 else None


def _clearly_linear(timed):
    """Whether the largest pair already tells linear work, far from the judge's bounds: a ratio under
    NEAR_BOUND's low end (the judge passes up to 3.3) and a growth over the grader's linear pass under
    LINEAR_GROWTH (the judge passes up to 1.45). Measuring that pair again on other graphs would not change the
    verdict; a pair near a bound, or looking quadratic, is always measured again (a false loss is the worse one)."""
    if not all(row.get("runs") and min(row["runs"]) > 0 for row in timed):  # a clock that did not say: measure
        return False
    ratio = _pooled_ratio(timed)
    growth = _growth_over_sweep(timed, ratio)
    return ratio is not None and growth is not None and ratio < NEAR_BOUND[0] and growth < LINEAR_GROWTH


def _pair_is_clear(timed):
    """Whether the largest pair's runs so far already give the judge's verdict: a pooled ratio outside NEAR_BOUND,
    or a growth over the grader's linear pass under LINEAR_GROWTH or over QUADRATIC_GROWTH. A quadratic-looking
    growth beside a pass that grew less than DISTURBED_PASS is not clear: the machine slowed the smaller size's
    passes, which inflates the growth (a false loss is the worse one), so the pair is measured again."""
    ratio = _pooled_ratio(timed)
    if ratio is None or not NEAR_BOUND[0] < ratio < NEAR_BOUND[1]:
        return True
    growth = _growth_over_sweep(timed, ratio)
    linear = _sweep_ratio(timed)
    disturbed = linear is not None and linear < DISTURBED_PASS
    return growth is not None and (growth < LINEAR_GROWTH or (growth > QUADRATIC_GROWTH and not disturbed))


@probe("time_doubling", trusted=True)
def time_doubling(_):
    """Best times (of 2 or 3 runs: `_best_time`) on shallow DAGs of n, 2n, 4n nodes, then (unless that pair is
    clearly linear, a student's run: `_clearly_linear`; the reference's runs always measure it, for the
    derivatives) the largest pair measured again on other graphs;
    while that pair's ratio is near the bound (NEAR_BOUND) and its growth over the grader's linear pass's does
    not already tell linear from quadratic work (LINEAR_GROWTH, QUADRATIC_GROWTH), up to MORE_ROUNDS more rounds
    of it (the same graphs built anew: round r repeats the first rows' graphs when r is even, the again rows'
    when odd), so that a verdict near the bound rests on many runs (the judge pools the best time per size).

    Stops at the first size slower than SLOW_RUN CPU seconds (the reference needs about 0.05 s at 16000 nodes).
    Nothing in the process differs from the other probes: no gc switch, the same recursion limit.
    """
    started = time.process_time()
    rows, again, more = [], [], []
    for n in (4000, 8000, 16000):
        rows.append(_best_time(n, n, SLOW_RUN, f"n{n}"))
        if rows[-1].get("exceeded") or rows[-1]["seconds"] > SLOW_RUN:
            break
    else:
        if probekit.STUDENT is not None and _clearly_linear(rows[-2:]):
            return {"rows": rows, "again": [], "more": [], "again_skipped": True}
        again = [_best_time(n, 7 * n, SLOW_RUN, f"again{n}") for n in (8000, 16000)]
        for round_ in range(MORE_ROUNDS):
            if _pair_is_clear(rows[-2:] + again + more) \
                    or _spent(rows + again + more) + time.process_time() - started > MORE_BUDGET:
                break
            # the same graphs again (new objects): round r repeats the first rows' graphs (r even) or the again rows'
            more += [_best_time(n, n if round_ % 2 == 0 else 7 * n, SLOW_RUN, f"more{round_}n{n}")
                     for n in (8000, 16000)]
            if any(r.get("exceeded") for r in more):
                break
    return {"rows": rows, "again": again, "more": more}


# ------------------------------------------- the framework's own Scalars and Tensors


def _scalar_diamonds(layers):
    """A diamond chain of Scalars, no constants: each layer v -> (-v, sigmoid(v)) -> their sum.

    The path count doubles with every layer; the derivative is a product of
    (-1 + s(1 - s)) factors.
    """
    x = Scalar(0.75)
    v = x
    for _ in range(layers):
        v = -v + v.sigmoid()
    return x, v


def _tensor_diamonds(layers):
    """The same diamond chain on 2-element Tensors, summed at the end."""
    x = minitorch.tensor([0.75, -0.5], requires_grad=True)
    v = x
    for _ in range(layers):
        v = -v + v.sigmoid()
    return x, v.sum()


def _framework_rows(build, sizes, budget, read):
    """Uses of the graph (every read of `history.inputs`, which `parents` and `chain_rule` make too)
    by `backward()` on diamond chains of framework variables, per size; stops when over budget."""
    rows = []
    for layers in sizes:
        counter = Counter(budget=budget)
        x, out = build(layers)
        nodes = count_graph_uses(out, counter)
        try:
            out.backward()
        except WorkBudgetExceeded:
            rows.append({"layers": layers, "nodes": len(nodes), "exceeded": True, **counter.as_dict()})
            break
        rows.append({"layers": layers, "nodes": len(nodes), "exceeded": False, "derivative": read(x),
                     **counter.as_dict()})
    return rows


@probe("work_on_framework")
def work_on_framework(_):
    """Work on diamond chains of real Scalars and Tensors (code that walks `history` is measured too)."""
    return {
        "scalars": _framework_rows(_scalar_diamonds, (4, 8, 16, 32, 64), 100_000, lambda x: x.derivative),
        "tensors": _framework_rows(_tensor_diamonds, (4, 8, 16, 32), 10_000, _grad),
    }
