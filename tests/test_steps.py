"""The step-throughs of backward (tools/site/steps.py) record what the engine does.

A recording runs the real ``_backward()`` of each node, one at a time; these tests check
that its steps add up to exactly what ``backward()`` gives, that every contribution it
reports is the node's local derivative times its gradient, and that the graph is left as
``backward()`` leaves it.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from micrograd import Value
from tests.helpers.graphs import evaluate, graphs, value_backend
from tools.site import steps


def diamond(x_value=3.0):
    x = Value(x_value)
    a = x * x
    b, c = 2 * a, 3 * a
    root = b + c
    return root, {x: "x", a: "a", b: "b", c: "c", root: "L"}


def random_graph(program):
    nodes = evaluate(program, [Value(v) for v in program.leaves], value_backend())
    return nodes[-1]


def assert_adds_up(recording: steps.Recording) -> None:
    """Every step sends its local derivatives times the gradient it holds, onto what its
    operands held: the chain of += that the engine's _backward() runs."""
    grads = list(recording.start)
    for k, step in enumerate(recording.steps, 1):
        assert step.grad == grads[step.node], f"step {k}: holds {step.grad}, not {grads}"
        for edge in step.edges:
            assert edge.sent == edge.local * step.grad, f"step {k}: {edge}"
            assert edge.before == grads[edge.operand], f"step {k}: {edge} after {grads}"
            assert edge.after == edge.before + edge.sent, f"step {k}: {edge}"
            grads[edge.operand] = edge.after
        assert tuple(grads) == recording.grads(k)


# --- the recording is the engine's backward --------------------------------------------


def test_the_diamond_ends_where_backward_ends():
    root, names = diamond()
    reference = steps.fresh_copy(root)
    recording = steps.record(root, names)
    reference.backward()
    assert recording.final == tuple(node.grad for node in reference.topo())
    assert recording.final == tuple(node.grad for node in root.topo())
    x = recording.names.index("x")
    assert recording.final[x] == 30.0
    assert [recording.names[s.node] for s in recording.steps] == ["L", "c", "b", "a"]
    last = recording.steps[-1]  # a = x * x: x is reached twice, and accumulates twice
    assert [(e.before, e.after) for e in last.edges] == [(0.0, 15.0), (15.0, 30.0)]
    assert_adds_up(recording)


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(graphs())
def test_every_graph_ends_where_backward_ends_and_adds_up(program):
    root = random_graph(program)
    reference = steps.fresh_copy(root)
    recording = steps.record(root)
    reference.backward()
    assert recording.final == tuple(node.grad for node in reference.topo())
    assert_adds_up(recording)
    assert all(not step.waiting for step in recording.steps)  # reverse topological order
    assert not any(edge.late for step in recording.steps for edge in step.edges)


def test_the_recording_leaves_the_graph_as_backward_leaves_it():
    root, names = diamond()
    reference = steps.fresh_copy(root)
    steps.record(root, names)
    reference.backward()
    for ours, theirs in zip(root.topo(), reference.topo(), strict=True):
        assert (ours.data, ours.grad, ours._op) == (theirs.data, theirs.grad, theirs._op)
        assert ours._local == theirs._local  # None for spent nodes, () for leaves
    with pytest.raises(RuntimeError, match="already run backward"):
        steps.record(root, names)  # spent, as after backward()
    with pytest.raises(RuntimeError, match="already spent"):
        root.backward()  # and the engine agrees


def test_an_engine_that_assigns_instead_of_adding_is_caught():
    class Assigning(Value):
        __slots__ = ()

        def _backward(self):  # = instead of +=: x * x loses one of its two edges
            for operand, local in zip(self._prev, self._local):
                operand.grad = local * self.grad

    x = Value(3.0)
    square = Assigning(9.0, (x, x), (3.0, 3.0), "*")
    with pytest.raises(AssertionError, match=r"x\.grad = 3\.0, not 6\.0"):
        steps.record(square, {x: "x", square: "x * x"})
