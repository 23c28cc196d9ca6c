"""The course's table of test functions: `MathTest` (plain floats, via `operators`)
and `MathTestVariable` (Scalars/Tensors, via their methods).

Both classes are tables of static methods with the SAME names, so a test can
pair the float version of a function with its differentiable version:

* a name ending in ``2`` takes two arguments (`add2`, `mul2`, ...);
* a name ending in ``red`` reduces a list / tensor (`sum_red`, `mean_red`, ...);
* every other public name takes one argument.

`cls._tests()` returns the three lists `(one_arg, two_arg, red_arg)` of
`(name, cls's function)` pairs, names in alphabetical order;
`cls._comp_testing()` returns the same three lists as triples
`(name, MathTest's function, cls's function)`. The course's tests use
``one_arg, two_arg, red_arg = MathTestVariable._comp_testing()``.
"""

from __future__ import annotations

from typing import Callable, Generic, Iterable, List, Tuple, TypeVar

from . import operators

A = TypeVar("A")

Named = Tuple[str, Callable]
Compared = Tuple[str, Callable, Callable]


class MathTest(Generic[A]):
    """The test functions on plain floats (the `operators` module)."""

    # -- one argument ------------------------------------------------------

    @staticmethod
    def neg(a: A) -> A:
        """$-a$"""
        return -a

    @staticmethod
    def addConstant(a: A) -> A:  # noqa: N802 - the course's name
        """$5 + a$"""
        return 5 + a

    @staticmethod
    def square(a: A) -> A:
        """$a \\cdot a$"""
        return a * a

    @staticmethod
    def cube(a: A) -> A:
        """$a \\cdot a \\cdot a$"""
        return a * a * a

    @staticmethod
    def subConstant(a: A) -> A:  # noqa: N802
        """$a - 5$"""
        return a - 5

    @staticmethod
    def multConstant(a: A) -> A:  # noqa: N802
        """$5 a$"""
        return 5 * a

    @staticmethod
    def div(a: A) -> A:
        """$a / 5$"""
        return a / 5

    @staticmethod
    def inv(a: A) -> A:
        """$1 / (a + 3.5)$"""
        return operators.inv(a + 3.5)

    @staticmethod
    def sig(a: A) -> A:
        """$\\sigma(a)$"""
        return operators.sigmoid(a)

    @staticmethod
    def log(a: A) -> A:
        """$\\log(a + 100000)$"""
        return operators.log(a + 100000)

    @staticmethod
    def relu(a: A) -> A:
        """$\\mathrm{relu}(a + 5.5)$"""
        return operators.relu(a + 5.5)

    @staticmethod
    def exp(a: A) -> A:
        """$e^{a - 200}$"""
        return operators.exp(a - 200)

    @staticmethod
    def explog(a: A) -> A:
        """$\\log(a + 100000) + e^{a - 200}$"""
        return operators.log(a + 100000) + operators.exp(a - 200)

    @staticmethod
    def complex(a: A) -> A:
        """$\\log \\sigma(10\\, \\mathrm{relu}(6\\, \\mathrm{relu}(10 a + 7) + 5)) / 50$"""
        inner = operators.relu(operators.relu(a * 10 + 7) * 6 + 5)
        return operators.log(operators.sigmoid(inner * 10)) / 50

    # -- two arguments -----------------------------------------------------

    @staticmethod
    def add2(a: A, b: A) -> A:
        """$a + b$"""
        return a + b

    @staticmethod
    def mul2(a: A, b: A) -> A:
        """$a b$"""
        return a * b

    @staticmethod
    def div2(a: A, b: A) -> A:
        """$a / (b + 5.5)$"""
        return a / (b + 5.5)

    @staticmethod
    def gt2(a: A, b: A) -> A:
        """$[a + 1.2 > b]$"""
        return operators.lt(b, a + 1.2)

    @staticmethod
    def lt2(a: A, b: A) -> A:
        """$[a + 1.2 < b]$"""
        return operators.lt(a + 1.2, b)

    @staticmethod
    def eq2(a: A, b: A) -> A:
        """$[a = b + 5.5]$"""
        return operators.eq(a, b + 5.5)

    # -- reductions --------------------------------------------------------

    @staticmethod
    def sum_red(a: Iterable[A]) -> A:
        """$\\sum_i a_i$"""
        return operators.sum(a)

    @staticmethod
    def mean_red(a: Iterable[A]) -> A:
        """$\\frac1n \\sum_i a_i$"""
        return operators.sum(a) / float(len(a))  # type: ignore[arg-type]

    @staticmethod
    def mean_full_red(a: Iterable[A]) -> A:
        """$\\frac1n \\sum_i a_i$ (over every element)"""
        return operators.sum(a) / float(len(a))  # type: ignore[arg-type]

    # -- the tables ----------------------------------------------------------

    @classmethod
    def _tests(cls) -> Tuple[List[Named], List[Named], List[Named]]:
        """`(one_arg, two_arg, red_arg)`: `(name, cls's function)` for every public name of
        `MathTest`, in alphabetical order, split by the name's suffix (``2``, ``red``, other)."""
        one_arg: List[Named] = []
        two_arg: List[Named] = []
        red_arg: List[Named] = []
        for name in sorted(dir(MathTest)):
            if name.startswith("_") or not callable(getattr(MathTest, name)):
                continue
            entry = (name, getattr(cls, name))
            if name.endswith("2"):
                two_arg.append(entry)
            elif name.endswith("red"):
                red_arg.append(entry)
            else:
                one_arg.append(entry)
        return one_arg, two_arg, red_arg

    @classmethod
    def _comp_testing(cls) -> Tuple[List[Compared], List[Compared], List[Compared]]:
        """`_tests()` as triples `(name, MathTest's float function, cls's function)`."""
        ours = cls._tests()
        floats = MathTest._tests()
        return tuple(  # type: ignore[return-value]
            [(name, float_fn, fn) for (name, fn), (_, float_fn) in zip(mine, base)]
            for mine, base in zip(ours, floats)
        )


class MathTestVariable(MathTest):
    """The same functions for Scalars and Tensors (their methods instead of `operators`)."""

    @staticmethod
    def inv(a):  # type: ignore[no-untyped-def]
        return 1.0 / (a + 3.5)

    @staticmethod
    def sig(x):  # type: ignore[no-untyped-def]
        return x.sigmoid()

    @staticmethod
    def log(x):  # type: ignore[no-untyped-def]
        return (x + 100000).log()

    @staticmethod
    def relu(x):  # type: ignore[no-untyped-def]
        return (x + 5.5).relu()

    @staticmethod
    def exp(a):  # type: ignore[no-untyped-def]
        return (a - 200).exp()

    @staticmethod
    def explog(a):  # type: ignore[no-untyped-def]
        return (a + 100000).log() + (a - 200).exp()

    @staticmethod
    def complex(a):  # type: ignore[no-untyped-def]
        return (((a * 10 + 7).relu() * 6 + 5).relu() * 10).sigmoid().log() / 50

    @staticmethod
    def gt2(a, b):  # type: ignore[no-untyped-def]
        return a + 1.2 > b

    @staticmethod
    def lt2(a, b):  # type: ignore[no-untyped-def]
        return a + 1.2 < b

    @staticmethod
    def eq2(a, b):  # type: ignore[no-untyped-def]
        return a == (b + 5.5)

    @staticmethod
    def sum_red(a):  # type: ignore[no-untyped-def]
        return a.sum(0)

    @staticmethod
    def mean_red(a):  # type: ignore[no-untyped-def]
        return a.mean(0)

    @staticmethod
    def mean_full_red(a):  # type: ignore[no-untyped-def]
        return a.mean()


__all__ = ["MathTest", "MathTestVariable"]
