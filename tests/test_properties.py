"""Property tests: on random expression graphs, backward() agrees with central differences.

The graphs (see graphs.py) use every operation of the engine, with numbers on either
side, shared intermediates and repeated operands, and stay inside each operation's
domain. The default run checks a few hundred small graphs in about a second. The long run:

    MICROGRAD_LONG=1 python -m pytest tests/test_properties.py -m slow -s

checks 10,000 more graphs (MICROGRAD_GRAPHS=N to change that) and prints how many it
checked and how long it took.
"""

import math
import os
import time

import pytest
from hypothesis import given, settings

from micrograd import Value
from tests.helpers.graphs import (
    FLOATS,
    OPS,
    Graph,
    central_differences,
    evaluate,
    graphs,
    value_backend,
)

LONG = os.environ.get("MICROGRAD_LONG") == "1"
LONG_GRAPHS = int(os.environ.get("MICROGRAD_GRAPHS", "10000"))
REL, ABS = 1e-6, 1e-6  # asked of an exact gradient against its central difference (h = 1e-5)


def gradient_errors(graph: Graph) -> list[str]:
    """Every way the engine disagrees with plain floats on ``graph``; empty if none."""
    leaves = [Value(x) for x in graph.leaves]
    nodes = evaluate(graph, leaves, value_backend())
    expected = evaluate(graph, graph.leaves, FLOATS)
    errors = [
        f"n{i}: forward {node.data!r}, floats give {want!r}"
        for i, (node, want) in enumerate(zip(nodes, expected))
        if not math.isclose(node.data, want, rel_tol=1e-12, abs_tol=1e-12)
    ]
    nodes[-1].backward()
    for i, (leaf, slope) in enumerate(zip(leaves, central_differences(graph))):
        if not math.isclose(leaf.grad, slope, rel_tol=REL, abs_tol=ABS):
            errors.append(f"n{i}: grad {leaf.grad!r}, central difference {slope!r}")
    return errors


@settings(max_examples=60, deadline=None)
@given(graphs())
def test_gradients_match_central_differences(graph):
    assert not gradient_errors(graph), gradient_errors(graph)


def _graphs_with(op):
    """Graphs built from ``op`` and the always-safe ``tanh`` fallback only."""
    return graphs(ops=(op,), max_steps=6)


@pytest.mark.parametrize("op", OPS)
def test_each_operation_alone(op):
    @settings(max_examples=15, deadline=None)
    @given(_graphs_with(op))
    def check(graph):
        assert not gradient_errors(graph), gradient_errors(graph)

    check()


def test_the_strategy_covers_what_it_promises():
    """Shared nodes, repeated operands, both reflected and forward forms, every op."""
    from hypothesis import Phase, find

    # Only that each kind of graph exists matters, not the smallest one: no shrinking
    # (find's own budget of 2,000 draws; NoSuchExample if none is drawn, as before).
    exists = settings(max_examples=2000, phases=[Phase.explicit, Phase.generate], database=None)
    for kind in [
        lambda g: any(s.refs[0] == s.refs[1] for s in g.steps if s.op == "*"),
        lambda g: any(s.op == "/" and not isinstance(s.refs[0], int) for s in g.steps),
        lambda g: any(s.op == "-" and not isinstance(s.refs[0], int) for s in g.steps),
        lambda g: _max_consumers(g) >= 3,
        *(lambda g, op=op: any(s.op == op for s in g.steps) for op in OPS),
    ]:
        find(graphs(), kind, settings=exists)


def _max_consumers(graph: Graph) -> int:
    counts: dict[int, int] = {}
    for step in graph.steps:
        for r in set(step.refs):
            if isinstance(r, int):
                counts[r] = counts.get(r, 0) + 1
    return max(counts.values(), default=0)


@pytest.mark.slow
@pytest.mark.skipif(not LONG, reason="long run: set MICROGRAD_LONG=1")
def test_long_run():
    checked, started = 0, time.perf_counter()

    @settings(max_examples=LONG_GRAPHS, deadline=None, database=None)
    @given(graphs())
    def check(graph):
        nonlocal checked
        checked += 1
        assert not gradient_errors(graph), gradient_errors(graph)

    check()
    seconds = time.perf_counter() - started
    print(f"\nlong run: {checked} graphs checked in {seconds:.1f} s, 0 mismatches")
    assert checked >= LONG_GRAPHS
