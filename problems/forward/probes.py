r"""Hidden probes for `forward` (run in the sandbox): dual-number rules, `jvp` and `gradient`.

They compute, they never judge: the parent compares the student's data with the
same probe run on the reference. The student's class and functions are looked up
on the module when a probe runs (`F.Dual`, `F.jvp`, `F.gradient`): after the swap
they are the student's. Every call of student code goes through `capture` (an
exception becomes an error record), and a student value counts only if it is a
real number (a `Dual` where a float belongs is an error, never read through its
`__float__`).

Data shapes (plain JSON):

* rule probes (`product`, `quotient`, `exp`, ...): a list of cases
  ``{"inputs": "x = 1.5 + 0.3ε", "a": .., "b": .., "results": {label: [primal, tangent]},
  "slopes": {label: central difference of the student's own primal along the tangent}}``;
* `slides`, `programs`, `jvp_linear`, `jvp_contract`: ``{label: [value, tangent]}``;
* `gradient_values`: ``{label: {"gradient": [∂f/∂x_1, ...], "calls": calls of f}}``;
  `gradient_passes`: one row per input count n;
* `jacobian`: ``{"point": [...], "columns": [[∂y1/∂x_i, ∂y2/∂x_i] or error, ...], "values": ...}``.
"""

import numbers
import random

from minitorch import forward as F
from probekit import PROBES, capture, probe  # noqa: F401 - the harness reads the registry from this module

#: step of the central differences of the student's own primal (a second opinion on a tangent)
H = 1e-6


# ----------------------------------------------------------------- reading student values


def num(x, what="value"):
    """A student's number as a plain float; anything else (a Dual, None, a string) is an error."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{what} is {type(x).__name__} {_short(x)}, expected a float")
    return float(x)


def _short(x):
    try:
        text = repr(x)
    except Exception:
        return ""
    return f"({text[:60]})"


def pair(d):
    """[primal, tangent] of a student's dual number."""
    if not (hasattr(d, "primal") and hasattr(d, "tangent")):
        raise TypeError(f"the result is {type(d).__name__} {_short(d)}, expected a Dual (with .primal and .tangent)")
    return [num(d.primal, "its .primal"), num(d.tangent, "its .tangent")]


def result_pair(r):
    """[value, tangent] of what `jvp` returned: a pair of floats."""
    if not isinstance(r, (tuple, list)) or len(r) != 2:
        raise TypeError(f"jvp returned {type(r).__name__} {_short(r)}, expected a pair (f(x), ∇f(x)·t) of floats")
    return [num(r[0], "jvp's value f(x)"), num(r[1], "jvp's tangent ∇f(x)·t")]


def floats(values, n):
    """A list of n floats from what `gradient` returns: a list, a tuple or a 1-d NumPy array of n numbers."""
    if type(values).__name__ == "ndarray" and getattr(values, "ndim", None) == 1:
        values = values.tolist()
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"gradient returned {type(values).__name__} {_short(values)}, expected a list of {n} floats")
    if len(values) != n:
        raise TypeError(f"gradient returned {len(values)} values for {n} inputs")
    return [num(v, f"entry {i} of the gradient") for i, v in enumerate(values)]


def dual_text(a, b):
    """'1.5 + 0.3ε' for a dual number's parts."""
    sign = "-" if b < 0 else "+"
    return f"{a:.6g} {sign} {abs(b):.6g}ε"


def primal_of(fn, *values):
    """The primal of fn on constants (tangent 0): the student's own value of the primitive."""
    return num(fn(*(F.Dual(v, 0.0) for v in values)).primal, "the primal")


def slope(fn, point, direction):
    """Central difference of the student's primal of `fn` at `point` along `direction`."""
    up = primal_of(fn, *(p + H * d for p, d in zip(point, direction)))
    down = primal_of(fn, *(p - H * d for p, d in zip(point, direction)))
    return (up - down) / (2 * H)


def away(rng, lo, hi):
    """A number with |x| in [lo, hi] and a random sign (away from zero, kinks and poles)."""
    return rng.choice((-1.0, 1.0)) * rng.uniform(lo, hi)


# ----------------------------------------------------------------- the rules of the primitives


@probe("product")
def product(_):
    """(a + bε)(c + dε) = ac + (ad + bc)ε, along each input, squares and constants on either side."""
    rng = random.Random(11)
    cases = []
    for _ in range(6):
        a, c = away(rng, 0.4, 3.0), away(rng, 0.4, 3.0)
        b, d = away(rng, 0.3, 2.0), away(rng, 0.3, 2.0)

        def square(x):
            return x * x  # the same object twice

        results = {
            "x * y": capture(lambda: pair(F.Dual(a, b) * F.Dual(c, d))),
            "x * y along x (b = 1, d = 0)": capture(lambda: pair(F.Dual(a, 1.0) * F.Dual(c, 0.0))),
            "x * y along y (b = 0, d = 1)": capture(lambda: pair(F.Dual(a, 0.0) * F.Dual(c, 1.0))),
            "x * x": capture(lambda: pair(square(F.Dual(a, b)))),
            "x * c (c a plain number)": capture(lambda: pair(F.Dual(a, b) * c)),
            "c * x (c a plain number)": capture(lambda: pair(c * F.Dual(a, b))),
        }
        slopes = {"x * y": capture(lambda: slope(lambda x, y: x * y, (a, c), (b, d)))}
        cases.append({"inputs": f"x = {dual_text(a, b)}, y = {dual_text(c, d)}, c = {c:.6g}",
                      "a": a, "b": b, "c": c, "d": d, "results": results, "slopes": slopes})
    return cases


@probe("quotient")
def quotient(_):
    """1/(a + bε) = 1/a - (b/a²)ε and (a + bε)/(c + dε) = a/c + ((bc - ad)/c²)ε."""
    rng = random.Random(13)
    cases = []
    for _ in range(6):
        a, c = away(rng, 0.5, 3.0), away(rng, 0.5, 3.0)
        b, d = away(rng, 0.3, 2.0), away(rng, 0.3, 2.0)
        results = {
            "x.inv()": capture(lambda: pair(F.Dual(a, b).inv())),
            "x / y": capture(lambda: pair(F.Dual(a, b) / F.Dual(c, d))),
            "x / y along x (b = 1, d = 0)": capture(lambda: pair(F.Dual(a, 1.0) / F.Dual(c, 0.0))),
            "x / y along y (b = 0, d = 1)": capture(lambda: pair(F.Dual(a, 0.0) / F.Dual(c, 1.0))),
            "x / c (c a plain number)": capture(lambda: pair(F.Dual(a, b) / c)),
            "c / x (c a plain number)": capture(lambda: pair(c / F.Dual(a, b))),
        }
        slopes = {
            "x.inv()": capture(lambda: slope(lambda x: x.inv(), (a,), (b,))),
            "x / y": capture(lambda: slope(lambda x, y: x / y, (a, c), (b, d))),
        }
        cases.append({"inputs": f"x = {dual_text(a, b)}, y = {dual_text(c, d)}, c = {c:.6g}",
                      "a": a, "b": b, "c": c, "d": d, "results": results, "slopes": slopes})
    return cases


#: the unary primitives: where their random points are drawn (away from poles and from relu's kink, which is
#: probed exactly: `KINKS`)
UNARY = {
    "exp": lambda rng: rng.uniform(-2.0, 2.0),
    "log": lambda rng: rng.uniform(0.2, 4.0),
    "sigmoid": lambda rng: rng.uniform(-4.0, 4.0),
    "relu": lambda rng: away(rng, 0.1, 2.0),
}


#: points where a primitive has a kink, probed exactly there (the rule's convention, not a derivative): relu's
#: tangent at a = 0 is 0, like reverse mode's `operators.relu_back` (d if x > 0 else 0); -0.0 too (-0.0 >= 0)
KINKS = {
    "relu": [(0.0, 0.7), (-0.0, -1.3)],
}


#: points far from 0 where a primitive is finite but a textbook formula overflows (1 / (1 + exp(-a)) at a = -800
#: asks for exp(800)), probed exactly, marked `"extreme": True`, with no central difference
EXTREMES = {
    "sigmoid": [(-800.0, 0.5), (800.0, -0.7)],
}


def unary_probe(name, seed):
    """g(a + bε), g(a + 2bε) and g(a + 0ε) at a few points: the tangent must be g'(a)·b, linear in b.
    Then the same at the primitive's kinks (`KINKS`), marked `"kink": True` and with no central difference
    (there is no derivative there to estimate)."""

    def run(_):
        rng = random.Random(seed)
        apply = lambda x: getattr(x, name)()  # noqa: E731

        def results_at(a, b):
            return {
                f"x.{name}()": capture(lambda: pair(apply(F.Dual(a, b)))),
                f"x.{name}() with the tangent doubled (a + 2bε)": capture(lambda: pair(apply(F.Dual(a, 2 * b)))),
                f"x.{name}() of a constant (a + 0ε)": capture(lambda: pair(apply(F.Dual(a, 0.0)))),
            }

        cases = []
        for _ in range(6):
            a, b = UNARY[name](rng), away(rng, 0.3, 2.0)
            results = results_at(a, b)
            slopes = {f"x.{name}()": capture(lambda: slope(apply, (a,), (b,)))}
            cases.append({"inputs": f"x = {dual_text(a, b)}", "a": a, "b": b, "results": results, "slopes": slopes})
        for a, b in KINKS.get(name, ()):
            cases.append({"inputs": f"x = {dual_text(a, b)} (a = {a:g}, the kink)", "a": a, "b": b,
                          "results": results_at(a, b), "slopes": {}, "kink": True})
        for a, b in EXTREMES.get(name, ()):
            cases.append({"inputs": f"x = {dual_text(a, b)} (a = {a:g}, far from 0)", "a": a, "b": b,
                          "results": results_at(a, b), "slopes": {}, "extreme": True})
        return cases

    return run


for _seed, _name in enumerate(UNARY):
    probe(_name)(unary_probe(_name, 17 + _seed))


# ----------------------------------------------------------------- jvp


def slides_f(x1, x2):
    """The lecture's f = x1 + exp(1.5 x1 + 2 x2) (x1 has two users)."""
    return x1 + (x1 * 1.5 + x2 * 2.0).exp()


def jvp_pair(f, primals, tangents):
    return capture(lambda: result_pair(F.jvp(f, list(primals), list(tangents))))


@probe("slides")
def slides(_):
    """Two passes at (3, 0.5): t = e1 gives ∂f/∂x1, t = e2 gives ∂f/∂x2."""
    return {
        "jvp(f, (3, 0.5), (1, 0))": jvp_pair(slides_f, [3.0, 0.5], [1.0, 0.0]),
        "jvp(f, (3, 0.5), (0, 1))": jvp_pair(slides_f, [3.0, 0.5], [0.0, 1.0]),
    }


UNARY_OPS = ["neg", "exp", "log", "sigmoid", "relu"]
BINARY_OPS = ["add", "sub", "mul", "div", "radd", "rmul", "rsub", "rdiv"]


def random_program(rng, length):
    """Instructions (op, i, j, constant) over a pool of values that starts with the inputs."""
    return [(rng.choice(UNARY_OPS + BINARY_OPS), rng.randrange(50), rng.randrange(50), rng.uniform(-2, 2))
            for _ in range(length)]


def run_program(program, inputs):
    """Every operation of Dual, domain-restricted ops kept defined: log(v·v + 0.5), a / (b·b + 1)."""
    pool = list(inputs)
    for op, i, j, c in program:
        a, b = pool[i % len(pool)], pool[j % len(pool)]
        if op == "neg":
            v = -a
        elif op == "exp":
            v = (a / (a * a + 1.0)).exp()
        elif op == "log":
            v = (a * a + 0.5).log()
        elif op == "sigmoid":
            v = a.sigmoid()
        elif op == "relu":
            v = (a + 0.1).relu()
        elif op == "add":
            v = a + b
        elif op == "sub":
            v = a - b
        elif op == "mul":
            v = a * b
        elif op == "div":
            v = a / (b * b + 1.0)
        elif op == "radd":
            v = c + a
        elif op == "rmul":
            v = c * a
        elif op == "rsub":
            v = c - a
        else:
            v = c / (a * a + 1.0)
        pool.append(v)
    out = pool[-1]
    for k in range(len(inputs)):  # every input takes part
        out = out + pool[k] * 0.25
    return out


def sigmoid_quiz(v1, v2):
    """The lecture's quiz graph: v3 = v1 v2, v4 = v3 + v1, v5 = σ(v3), v6 = v5 v4, v7 = σ(v6)."""
    v3 = v1 * v2
    v4 = v3 + v1
    v5 = v3.sigmoid()
    v6 = v5 * v4
    return v6.sigmoid()


@probe("programs")
def programs(_):
    """jvp of random programs along random tangents, and of the sigmoid quiz graph along e1 and e2."""
    rng = random.Random(23)
    found = {}
    for k in range(8):
        n = rng.randint(1, 4)
        program = random_program(rng, rng.randint(4, 12))
        x = [round(rng.uniform(-2, 2), 3) for _ in range(n)]
        t = [round(rng.uniform(-1.5, 1.5), 3) for _ in range(n)]
        label = f"random program #{k + 1} ({len(program)} operations) at x = {x}, t = {t}"
        found[label] = jvp_pair(lambda *xs, p=program: run_program(p, xs), x, t)
    found["sigmoid quiz graph at (0.4, -1.7), t = (1, 0)"] = jvp_pair(sigmoid_quiz, [0.4, -1.7], [1.0, 0.0])
    found["sigmoid quiz graph at (0.4, -1.7), t = (0, 1)"] = jvp_pair(sigmoid_quiz, [0.4, -1.7], [0.0, 1.0])
    return found


def three_inputs(x, y, z):
    """A function of three inputs using every primitive."""
    return (x * y).sigmoid() + (z * z + 1.0).log() * x - (y / (x * x + 2.0)).exp() + (z + 0.5).relu() * y


LINEAR_POINT = [0.7, -1.2, 0.9]
T = [1.0, 0.5, -2.0]
S = [-0.3, 2.0, 0.4]
#: jvp(f, x, ALPHA t + BETA s) must equal ALPHA jvp(f, x, t) + BETA jvp(f, x, s)
ALPHA, BETA = 2.0, -0.5


@probe("jvp_linear")
def jvp_linear(_):
    combined = [ALPHA * t + BETA * s for t, s in zip(T, S)]
    return {
        "t": jvp_pair(three_inputs, LINEAR_POINT, T),
        "s": jvp_pair(three_inputs, LINEAR_POINT, S),
        "combined": jvp_pair(three_inputs, LINEAR_POINT, combined),
        "zero": jvp_pair(three_inputs, LINEAR_POINT, [0.0, 0.0, 0.0]),
        "alpha": ALPHA,
        "beta": BETA,
    }


@probe("jvp_contract")
def jvp_contract(_):
    """Outputs that are no computation: a plain number (a constant, tangent 0) and an input itself."""
    return {
        "jvp(lambda x, y: 2.5, (1, 2), (1, -1))": jvp_pair(lambda x, y: 2.5, [1.0, 2.0], [1.0, -1.0]),
        "jvp(lambda x, y: y, (1, 2), (0.3, 0.7))": jvp_pair(lambda x, y: y, [1.0, 2.0], [0.3, 0.7]),
        "jvp(lambda x: x * x, (3,), (1,)) with int arguments": jvp_pair(lambda x: x * x, [3], [1]),
    }


# ----------------------------------------------------------------- gradient


def five_inputs(a, b, c, d, e):
    return a * b + (c * d).sigmoid() * e - (a / (e * e + 1.0)).exp() + (b * b + 0.5).log() * c


def one_input(x):
    return (x * x + 1.0).log() * x


GRADIENT_CASES = {
    "gradient(f, 3, 0.5) of the slides' f": (slides_f, [3.0, 0.5]),
    "gradient(f, 0.3, -0.7, 1.1, 0.5, -1.4) of a function of 5 inputs": (five_inputs, [0.3, -0.7, 1.1, 0.5, -1.4]),
    "gradient(f, 0.7) of a function of 1 input": (one_input, [0.7]),
}


def gradient_case(f, x):
    """`gradient(f, *x)` as floats (or an error record) and how many times it called f."""
    calls = [0]

    def counted(*args):
        calls[0] += 1
        return f(*args)

    value = capture(lambda: floats(F.gradient(counted, *x), len(x)))
    return {"gradient": value, "calls": calls[0]}


@probe("gradient_values")
def gradient_values(_):
    return {label: gradient_case(f, x) for label, (f, x) in GRADIENT_CASES.items()}


class TooManyCalls(BaseException):
    """Raised by the counted function once `gradient` has called it far more often than any need;
    a BaseException, so that a student's `except Exception` does not swallow it."""


def counted_function(n):
    """A polynomial of n inputs (works on floats and Duals) and its call counts."""
    calls = {"all": 0, "dual": 0}
    budget = 4 * n + 8

    def f(*xs):
        calls["all"] += 1
        if calls["all"] > budget:
            raise TooManyCalls()
        if len(xs) != n:
            raise TypeError(f"f takes {n} inputs, gradient passed {len(xs)}")
        if any(isinstance(x, F.Dual) for x in xs):
            calls["dual"] += 1
        out = xs[0] * 0.5
        for i in range(n):
            out = out + xs[i] * xs[(i + 1) % n] * (1.0 + 0.1 * i)
        return out

    return f, calls


@probe("gradient_passes")
def gradient_passes(_):
    """For n = 1..8 inputs: how many times `gradient` evaluates f (forward mode: n passes)."""
    rows = []
    for n in range(1, 9):
        f, calls = counted_function(n)
        x = [0.2 * (i + 1) - 0.7 for i in range(n)]
        exceeded = False
        try:
            value = capture(lambda: floats(F.gradient(f, *x), n))
        except TooManyCalls:
            exceeded, value = True, None
        rows.append({"inputs": n, "calls": calls["all"], "dual_calls": calls["dual"],
                     "exceeded": exceeded, "gradient": value})
    return rows


# ----------------------------------------------------------------- a Jacobian, column by column


def two_outputs(x1, x2, x3):
    """f: R^3 -> R^2."""
    y1 = x1 * x2 * x3 + x1.exp()
    y2 = (x2 * x2 + 1.0).log() / (x3 + 2.0) + (x1 - x3).sigmoid() + x2.relu()
    return y1, y2


JACOBIAN_POINT = [0.6, 0.8, -1.3]


def column(i):
    """One forward pass with the tangent e_i: the tangents of both outputs are column i of J."""
    duals = [F.Dual(v, 1.0 if j == i else 0.0) for j, v in enumerate(JACOBIAN_POINT)]
    outputs = two_outputs(*duals)
    return [pair(y) for y in outputs]


@probe("jacobian")
def jacobian(_):
    return {"point": JACOBIAN_POINT, "passes": [capture(lambda i=i: column(i)) for i in range(3)]}
