"""Random expression graphs for property tests: hypothesis strategies and interpreters.

A graph is a small program. It starts from a few leaves and then appends one node per
step, each an operation of the engine applied to earlier nodes or to plain numbers:

    Graph(leaves=(1.5, -0.7), steps=(Step("*", (0, 0)), Step("c-a", ...), ...))

The same program is run by several *backends*: plain floats (the reference for
finite differences), the engine's ``Value``, and PyTorch in the parity tests. The last
node is the root. Steps refer to earlier nodes by index, so a node can have several
consumers and an operation can take the same node twice (``x * x``).

The strategy ``graphs()`` draws only programs that stay where every operation is
differentiable and central differences can be trusted:

* domains: ``log`` of at least ``MARGIN``; division by at least ``MARGIN`` in size; a
  negative base only with an integer exponent; a negative exponent only with a base of at
  least ``MARGIN`` in size; a fractional exponent only with a base of at least ``MARGIN``;
* kinks: ``relu`` only of inputs at least ``MARGIN`` away from 0;
* size: every node within ``MAX_ABS``; ``exp`` of at most ``log(MAX_ABS)``;
* sensitivity: a running upper bound on |d node / d leaf| (the sum over paths of the
  products of |local derivative|) stays below ``MAX_SLOPE``. A leaf perturbation of
  ``H`` then moves any node by less than ``MAX_SLOPE * H``, far less than ``MARGIN``,
  so no perturbed evaluation crosses a kink or leaves a domain.

When a drawn operation would break a rule, the step becomes ``tanh`` of its first
operand, which is always safe (bounded, slope at most 1). So drawing never rejects.
"""

import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hypothesis import strategies as st

MARGIN = 0.25  # distance from every kink and every domain edge
MAX_ABS = 20.0  # bound on every node's value
MAX_SLOPE = 100.0  # bound on |d node / d leaf|, summed over paths
H = 1e-5  # central-difference step

EXPONENTS = (0, 1, 2, 3, -1, -2, 2.0, -3.0, 0.5, 1.5, 2.5, -0.5)
ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
BINARY = tuple(ARITHMETIC)
UNARY = ("neg", "tanh", "exp", "log", "relu")
OPS = (*BINARY, "**", *UNARY, "dot")


@dataclass(frozen=True)
class Const:
    """A plain number written into the program: an operand that is not a node."""

    value: float


Ref = int | Const  # an earlier node (by index) or a constant


@dataclass(frozen=True)
class Step:
    """One operation. Binary ops take (left, right) in the order they are written,
    so ``Step("-", (Const(2.0), 0))`` is ``2.0 - node0``, the reflected form.
    ``dot`` takes (bias, w0, x0, w1, x1, ...)."""

    op: str
    refs: tuple[Ref, ...]
    exponent: int | float | None = None

    def __str__(self):
        args = ", ".join(f"n{r}" if isinstance(r, int) else repr(r.value) for r in self.refs)
        exponent = "" if self.exponent is None else f" ** {self.exponent!r}"
        return f"{self.op}({args}){exponent}"


@dataclass(frozen=True)
class Graph:
    leaves: tuple[float, ...]
    steps: tuple[Step, ...]

    def __str__(self):  # what hypothesis prints for a failing example
        lines = [f"n{i} = leaf {v!r}" for i, v in enumerate(self.leaves)]
        first = len(self.leaves)
        lines += [f"n{first + i} = {s}" for i, s in enumerate(self.steps)]
        return "\n".join(lines)

    __repr__ = __str__


@dataclass(frozen=True)
class Backend:
    """How one engine spells the operations that are not Python operators."""

    tanh: Callable
    exp: Callable
    log: Callable
    relu: Callable
    dot: Callable  # dot(weights, inputs, bias), computed as bias + w0*x0 + w1*x1 + ...


def chained_dot(weights, inputs, bias):
    """bias + w0*x0 + w1*x1 + ..., left to right, for any numbers with + and *."""
    total = bias
    for w, x in zip(weights, inputs):
        total = total + w * x
    return total


FLOATS = Backend(
    tanh=math.tanh, exp=math.exp, log=math.log, relu=lambda a: a if a > 0 else 0.0, dot=chained_dot
)


def value_backend():
    """The engine under test, imported late so this module imports without it."""
    import micrograd

    tanh, exp, log, relu = map(operator.methodcaller, ("tanh", "exp", "log", "relu"))
    return Backend(tanh=tanh, exp=exp, log=log, relu=relu, dot=micrograd.dot)


def apply(step: Step, nodes: Sequence, backend: Backend):
    """The node that ``step`` computes from the earlier ``nodes``."""
    args = [nodes[r] if isinstance(r, int) else r.value for r in step.refs]
    op = step.op
    if op in ARITHMETIC:
        return ARITHMETIC[op](*args)
    if op == "**":
        return args[0] ** step.exponent
    if op == "neg":
        return -args[0]
    if op == "dot":
        return backend.dot(args[1::2], args[2::2], args[0])
    return getattr(backend, op)(args[0])


def evaluate(graph: Graph, leaves: Sequence, backend: Backend) -> list:
    """Every node of ``graph`` computed from ``leaves``; the root is the last."""
    nodes = list(leaves)
    for step in graph.steps:
        nodes.append(apply(step, nodes, backend))
    return nodes


def central_differences(graph: Graph, h: float = H) -> list[float]:
    """d root / d leaf for every leaf, by central differences in plain floats."""
    slopes = []
    for i in range(len(graph.leaves)):
        up, down = list(graph.leaves), list(graph.leaves)
        up[i] += h
        down[i] -= h
        slopes.append(
            (evaluate(graph, up, FLOATS)[-1] - evaluate(graph, down, FLOATS)[-1]) / (2 * h)
        )
    return slopes


# --- drawing graphs -------------------------------------------------------------------


def _local_slopes(step: Step, values: Sequence[float]) -> list[tuple[int, float]]:
    """(operand index, |d step / d operand|) for each node operand, one entry per edge."""
    args = [values[r] if isinstance(r, int) else r.value for r in step.refs]
    op, a = step.op, args[0]
    if op in ("+", "-"):
        slopes = [1.0, 1.0]
    elif op == "*":
        slopes = [abs(args[1]), abs(a)]
    elif op == "/":
        slopes = [1 / abs(args[1]), abs(a) / args[1] ** 2]
    elif op == "**":
        n = step.exponent
        slopes = [0.0 if n == 0 else abs(n * a ** (n - 1))]
    elif op == "neg":
        slopes = [1.0]
    elif op == "tanh":
        slopes = [1 - math.tanh(a) ** 2]
    elif op == "exp":
        slopes = [math.exp(a)]
    elif op == "log":
        slopes = [1 / a]
    elif op == "relu":
        slopes = [1.0 if a > 0 else 0.0]
    elif op == "dot":
        slopes = [1.0]
        for w, x in zip(args[1::2], args[2::2]):
            slopes += [abs(x), abs(w)]
    else:
        raise ValueError(op)
    return [(r, s) for r, s in zip(step.refs, slopes) if isinstance(r, int)]


def _in_domain(step: Step, values: Sequence[float]) -> bool:
    """Is ``step`` differentiable, with room to spare, at ``values``?"""
    args = [values[r] if isinstance(r, int) else r.value for r in step.refs]
    op, a = step.op, args[0]
    if op == "/":
        return abs(args[1]) >= MARGIN
    if op == "**":
        n = step.exponent
        if not float(n).is_integer():
            return a >= MARGIN
        return n >= 0 or abs(a) >= MARGIN
    if op == "exp":
        return a <= math.log(MAX_ABS)
    if op == "log":
        return a >= MARGIN
    if op == "relu":
        return abs(a) >= MARGIN
    return True


constants = st.floats(-3.0, 3.0, allow_nan=False).map(lambda c: Const(round(c, 3)))
leaf_values = st.floats(-2.5, 2.5, allow_nan=False, allow_infinity=False)


@st.composite
def _draw_step(draw, op: str, n_nodes: int) -> Step:
    node = st.integers(0, n_nodes - 1)
    first = draw(node)
    if op in UNARY:
        return Step(op, (first,))
    if op == "**":
        return Step(op, (first,), exponent=draw(st.sampled_from(EXPONENTS)))
    if op in BINARY:
        # node op node (sometimes the same node twice), node op number, number op node
        form = draw(st.sampled_from(("nodes", "same", "number right", "number left")))
        if form == "nodes":
            return Step(op, (first, draw(node)))
        if form == "same":
            return Step(op, (first, first))
        if form == "number right":
            return Step(op, (first, draw(constants)))
        return Step(op, (draw(constants), first))
    if op == "dot":
        refs: list[Ref] = [first]  # the bias
        for _ in range(draw(st.integers(1, 4))):
            refs.append(draw(node))  # a weight
            refs.append(draw(node | constants))  # an input: a node or a number
        return Step(op, tuple(refs))
    raise ValueError(op)


@st.composite
def graphs(draw, ops: Sequence[str] = OPS, max_leaves: int = 4, max_steps: int = 12) -> Graph:
    """A random expression DAG over ``ops`` that is safe to check by central differences."""
    leaves = draw(st.lists(leaf_values, min_size=1, max_size=max_leaves))
    values = list(leaves)
    slope_bound = [1.0] * len(leaves)  # upper bound on |d node / d leaf|
    used = [False] * len(leaves)
    steps = []
    for _ in range(draw(st.integers(1, max_steps))):
        step = draw(_draw_step(draw(st.sampled_from(ops)), len(values)))
        value = slope = None
        if _in_domain(step, values):
            value = apply(step, values, FLOATS)
            slope = sum(s * slope_bound[r] for r, s in _local_slopes(step, values))
        if value is None or not abs(value) <= MAX_ABS or not slope <= MAX_SLOPE:
            first = next(r for r in step.refs if isinstance(r, int))
            step = Step("tanh", (first,))  # always safe: bounded, slope at most 1
            value = apply(step, values, FLOATS)
            slope = sum(s * slope_bound[r] for r, s in _local_slopes(step, values))
        for r in step.refs:
            if isinstance(r, int):
                used[r] = True
        steps.append(step)
        values.append(value)
        slope_bound.append(slope)
        used.append(False)
    # Nodes nobody consumed are added into the root, so every node feeds the result.
    unused = [i for i, u in enumerate(used) if not u and i >= len(leaves)]
    root = unused[0]
    for i in unused[1:]:
        steps.append(Step("+", (root, i)))
        root = len(leaves) + len(steps) - 1
    return Graph(tuple(leaves), tuple(steps))
