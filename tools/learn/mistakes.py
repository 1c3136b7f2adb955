"""Which mistake a learner made in the function to fix, told apart by experiment: small
programs run against the learner's engine and the book's, each built to show one typical
mistake, and the first whose numbers show it names it (``seen``). What is run, what the
learner's engine gave and what the book's gives is the worked example of the last hint
(tools/learn/hints.py). The programs only call the engine as the chapters' checks do
(``Value``, ``+``, ``*``, ``backward()``, ``.grad``): they read no field of the learner's
own making.

Where the book works the same mistake through is found by a piece of code the book shows
it with (``Mistake.shown_by``; tools/learn/places.py ``section_showing``), not by a
heading's name, so that a renamed or moved section needs no change here.
"""

import functools
import math
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tools import DOCS, ENGINE
from tools.learn.places import one_at_a_time
from tools.page.kernel import describe
from tools.tangle import tangle_book

DIAMOND = (
    "x = Value(3.0)\na = x * x\nb = a * Value(2.0)\nc = a * Value(3.0)\nL = b + c\nL.backward()"
)
DIAMOND_READ = ("x.grad", "a.grad", "b.grad", "c.grad")
SQUARE = "x = Value(3.0)\ny = x * x\ny.backward()"
SQUARE_OF_A_SQUARE = "x = Value(3.0)\na = x * x\ny = a * a\ny.backward()"
DEEP = (
    "x, factor = Value(1.0), Value(1.000001)\ny = x\nfor _ in range(5_000):\n    y = y * factor\n"
    "y.backward()"
)


@dataclass(frozen=True)
class Run:
    """What a program gave: the values read after it, or the error it raised."""

    values: tuple[tuple[str, float], ...] = ()
    error: str = ""  # "RecursionError: maximum recursion depth exceeded", if it raised
    kind: str = ""  # the error's type name

    def get(self, name: str) -> float | None:
        return dict(self.values).get(name)

    def said(self) -> str:
        if self.error:
            return f"raises {self.error.splitlines()[0]}"
        return ", ".join(f"{name} = {value:.6g}" for name, value in self.values)


def run(module: types.ModuleType, code: str, read: tuple[str, ...]) -> Run:
    """``code`` run with ``Value`` of ``module``, then each expression of ``read``."""
    space = {"Value": getattr(module, "Value", None)}
    try:
        exec(compile(code, "<worked example>", "exec"), space)
        return Run(tuple((name, float(eval(name, space))) for name in read))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # a learner's engine may raise anything
        return Run(error=describe(error), kind=type(error).__name__)


@dataclass(frozen=True)
class Mistake:
    """A typical mistake, the functions it is made in, and how to see it."""

    key: str
    functions: tuple[str, ...]  # the functions the diagnosis may name for it
    what: str  # what the learner's code does, as the hint says it
    compare: str  # what the first hint asks to compare, without naming the mistake
    code: str  # the program that shows it
    read: tuple[str, ...]  # what is read after it
    shows: Callable[[Run, Run], bool]  # on (yours, the book's): the mistake, not another
    why: str  # how the mistake makes those numbers
    shown_by: str  # a piece of a fence of the book that shows or explains it


def _all_zero_but_the_root_operands(yours: Run, book: Run) -> bool:
    return not yours.error and yours.get("b.grad") == 1.0 and yours.get("a.grad") == 0.0


def _doubled(yours: Run, book: Run) -> bool:
    if yours.kind == "RuntimeError":  # a node pushed twice: spent, then asked again
        return True
    x, right = yours.get("x.grad"), book.get("x.grad")
    return x is not None and right is not None and x > right


def _one_path_kept(yours: Run, book: Run) -> bool:
    x, right = yours.get("x.grad"), book.get("x.grad")
    return x is not None and right is not None and math.isclose(x, right / 2)


MISTAKES = (
    Mistake(
        "recursed",
        ("Value.backward", "Value.topo"),
        "walks the graph by recursion, one Python call per level, so a deep graph raises "
        "RecursionError",
        "how deep your walk's Python calls go on a long chain with how deep the section's go",
        DEEP,
        ("x.grad",),
        lambda yours, book: yours.kind == "RecursionError",
        "a chain of 5,000 multiplications is 5,000 nested calls, past CPython's limit of "
        "1,000; keep the stack of nodes still to visit in a list of your own",
        "except RecursionError",
    ),
    Mistake(
        "no seed",
        ("Value.backward",),
        "never seeds the root's gradient with 1",
        "what your backward sets before the first push with what the section sets",
        "x = Value(2.0)\ny = x * Value(3.0)\ny.backward()",
        ("y.grad", "x.grad"),
        lambda yours, book: not yours.error and yours.get("y.grad") == 0.0,
        "every push multiplies by the gradient of the node that pushes, and the root's "
        "stayed 0, so every product is 0; dL/dL is 1",
        "self.grad = 1.0",
    ),
    Mistake(
        "unreversed",
        ("Value.backward",),
        "walks topo()'s order as it is, without reversing it",
        "the order in which your backward lets nodes push with the order the section uses",
        DIAMOND,
        DIAMOND_READ,
        _all_zero_but_the_root_operands,
        "topo() lists each node after its operands, so each node pushed before its "
        "consumers had sent it anything: only L's push, last, arrived",
        "def backward_unreversed",
    ),
    Mistake(
        "visited twice",
        ("Value.backward", "Value.topo"),
        "reaches a node used twice twice, and lets it push twice (no set of nodes visited)",
        "how many times your walk reaches a node used twice with how many times the section's does",
        SQUARE_OF_A_SQUARE,
        ("x.grad", "a.grad"),
        _doubled,
        "a is both operands of y; listed once for each, it pushed its gradient to x twice "
        "(or, its graph spent after the first push, was refused the second)",
        "def topo_recursive",
    ),
    Mistake(
        "assigned",
        ("Value.backward", "Value._backward"),
        "assigns each gradient it pushes (=) instead of adding it (+=)",
        "what your push does to an operand's gradient with what the section's does",
        SQUARE,
        ("x.grad",),
        _one_path_kept,
        "both edges of x * x lead to x, each carrying 3; assigning kept the last and lost "
        "the other, where the derivative 2x = 6 is their sum",
        "operand.grad = local * product.grad",
    ),
)


@one_at_a_time
@functools.lru_cache(maxsize=2)
def book_engine(docs: Path = DOCS, engine: str = ENGINE) -> types.ModuleType:
    """The book's engine file ``engine``, whole, as a module of its own (the learner's is
    ``micrograd``, or ``tensor``)."""
    module = types.ModuleType(f"{engine.removesuffix('.py')}_of_the_book")
    text = tangle_book(docs, root=docs.resolve().parent, engine=engine).text
    exec(compile(text, f"<the book's {engine}>", "exec"), module.__dict__)
    return module


def seen(fix: str, module: types.ModuleType, docs: Path = DOCS) -> dict | None:
    """The first mistake of ``MISTAKES`` made in function ``fix`` that the learner's engine
    (``module``) shows, as JSON for the page and the child's report: {"mistake": key,
    "code": the program, "yours": what it gave, "book": what the book's gives}; None if
    none shows (or ``fix`` has no such mistakes)."""
    for mistake in MISTAKES:
        if fix not in mistake.functions:
            continue
        book = run(book_engine(docs), mistake.code, mistake.read)
        yours = run(module, mistake.code, mistake.read)
        if mistake.shows(yours, book):
            return {
                "mistake": mistake.key,
                "code": mistake.code,
                "yours": yours.said(),
                "book": book.said(),
            }
    return None


def mistake(key: str) -> Mistake | None:
    return next((m for m in MISTAKES if m.key == key), None)
