"""tensor.py against micrograd.py: every operation, built element by element with Value.

Hypothesis draws shapes (broadcasts among them) and numbers; the computation is built on
tensors and, element by element, on the scalar engine (written here from NumPy's rules, not
from tensor.py's helpers), both reduced by one weighted sum and run backward: the numbers and
every leaf's gradient agree within 1e-12, relative (absolute below 1). Last, chapter 10's
network trained on tensors gives the scalar engine's 100 losses within 1e-9."""

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import micrograd
import tensor
from micrograd import Value
from tensor import ShapeError, Tensor
from tools import ROOT
from tools.notebook import Notebook

TOL = 1e-12
EXAMPLES = settings(max_examples=25, deadline=None)


def close(a: float, b: float, tol: float = TOL) -> bool:
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def indexes(shape):
    return list(itertools.product(*map(range, shape)))


def at(nested, index):
    for i in index:
        nested = nested[i]
    return nested


def nest(flat, shape):  # row-major ``flat`` as nested lists of ``shape``
    for size in reversed(shape[1:]):
        flat = [flat[i : i + size] for i in range(0, len(flat), size)]
    return flat if shape else flat[0]


class Case:
    """Leaves made twice, as tensors and as nested lists of Values, from the same numbers."""

    def __init__(self, *arrays):
        self.tensors = [Tensor(a) for a in arrays]
        self.values = [nest([Value(x) for x in flat(a)], shape(a)) for a in arrays]

    def check(self, tensor_out, value_out, out_shape):
        """Compare the forward numbers, reduce both by one weighted sum, run backward, and
        compare every leaf's gradient."""
        assert tensor_out.shape == tuple(out_shape)
        got, want = tensor_out.values(), [at(value_out, i).data for i in indexes(out_shape)]
        assert all(close(g, w) for g, w in zip(got, want)), (got, want)
        weights = [0.5 + 0.25 * (k % 5) for k in range(len(want))]
        (tensor_out * Tensor(nest(weights, tuple(out_shape)))).sum().backward()
        sum(w * at(value_out, i) for w, i in zip(weights, indexes(out_shape))).backward()
        for t, v in zip(self.tensors, self.values):
            scalar = [at(v, i).grad for i in indexes(t.shape)]
            assert t.grad.shape == t.shape, (t.grad, t.shape)
            assert all(close(g, s) for g, s in zip(t.grad.values(), scalar)), (t.grad, scalar)


def flat(a):
    return [x for item in a for x in flat(item)] if isinstance(a, list) else [a]


def shape(a):
    return (len(a), *shape(a[0])) if isinstance(a, list) else ()


def arrays(dims, low=-2.0, high=2.0, away=0.0):
    """Nested lists of shape ``dims``, numbers in [low, high] at least ``away`` from 0."""
    number = st.floats(low, high).filter(lambda x: abs(x) >= away)
    return st.lists(number, min_size=math.prod(dims), max_size=math.prod(dims)).map(
        lambda xs: nest(xs, tuple(dims))
    )


shapes = st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple)


@st.composite
def broadcast_pair(draw):  # two operand shapes that broadcast (to at most ``out``)
    out = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))

    def operand():
        dims = [n if draw(st.booleans()) else 1 for n in out]
        return tuple(dims[draw(st.integers(0, len(dims))) :])  # leading axes may go

    return tuple(out), operand(), operand()


def picked(index, operand_shape):
    """The operand's element that ``index`` of the result reads, by NumPy's rules."""
    tail = index[len(index) - len(operand_shape) :] if operand_shape else ()
    return tuple(0 if n == 1 else i for i, n in zip(tail, operand_shape))


BINARY = {
    "+": (lambda a, b: a + b, 0.0),
    "-": (lambda a, b: a - b, 0.0),
    "*": (lambda a, b: a * b, 0.0),
    "/": (lambda a, b: a / b, 0.25),  # a divisor at least 0.25 from 0
}


@pytest.mark.parametrize("op", BINARY)
@EXAMPLES
@given(data=st.data())
def test_elementwise_binary_with_broadcasting(op, data):
    _, a_shape, b_shape = data.draw(broadcast_pair())
    f, away = BINARY[op]
    case = Case(data.draw(arrays(a_shape)), data.draw(arrays(b_shape, away=away)))
    (ta, tb), (va, vb) = case.tensors, case.values
    ndim = max(len(a_shape), len(b_shape))  # both padded with 1s on the left, then the larger
    padded = [(1,) * (ndim - len(s)) + s for s in (a_shape, b_shape)]
    out_shape = tuple(max(x, y) for x, y in zip(*padded))
    rows = [f(at(va, picked(i, a_shape)), at(vb, picked(i, b_shape))) for i in indexes(out_shape)]
    case.check(f(ta, tb), nest(rows, out_shape), out_shape)


@pytest.mark.parametrize("op", ["+", "-", "*", "/"])
@EXAMPLES
@given(dims=shapes, number=st.floats(0.5, 3.0), data=st.data())
def test_numbers_on_either_side(op, dims, number, data):
    f, _ = BINARY[op]
    case = Case(data.draw(arrays(dims, away=0.25)))
    (t,), (v,) = case.tensors, case.values
    left = [f(number, at(v, i)) for i in indexes(dims)]  # the reflected form: number op t
    case.check(f(number, t), nest(left, dims), dims)
    again = Case(data.draw(arrays(dims)))
    (t,), (v,) = again.tensors, again.values
    again.check(f(t, number), nest([f(at(v, i), number) for i in indexes(dims)], dims), dims)


UNARY = {
    "tanh": (lambda x: x.tanh(), -2.0),
    "exp": (lambda x: x.exp(), -2.0),
    "log": (lambda x: x.log(), 0.1),  # positive inputs
    "relu": (lambda x: x.relu(), -2.0),
    "neg": (lambda x: -x, -2.0),
    "**2": (lambda x: x**2, -2.0),
    "**3": (lambda x: x**3, -2.0),
    "**0.5": (lambda x: x**0.5, 0.1),
    "**-1": (lambda x: x**-1, 0.25),
}


@pytest.mark.parametrize("op", UNARY)
@EXAMPLES
@given(dims=shapes, data=st.data())
def test_elementwise_functions(op, dims, data):
    f, low = UNARY[op]
    case = Case(data.draw(arrays(dims, low=low, away=0.1 if low > 0 else 0.0)))
    (t,), (v,) = case.tensors, case.values
    case.check(f(t), nest([f(at(v, i)) for i in indexes(dims)], dims), dims)


@st.composite
def reductions(draw):
    dims = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple))
    axes = sorted(draw(st.sets(st.integers(0, len(dims) - 1), min_size=1)))
    axis = draw(st.sampled_from([None, axes[0], axes[0] - len(dims), tuple(axes)]))  # all forms
    named = range(len(dims)) if axis is None else [axis] if isinstance(axis, int) else axis
    return dims, axis, {a % len(dims) for a in named}


@pytest.mark.parametrize("op", ["sum", "mean", "max"])
@EXAMPLES
@given(case=reductions(), keepdims=st.booleans(), data=st.data())
def test_reductions_over_any_axes(op, case, keepdims, data):
    dims, axis, axes = case
    made = Case(data.draw(arrays(dims)))
    (t,), (v,) = made.tensors, made.values
    kept = tuple(1 if a in axes else n for a, n in enumerate(dims))
    groups = {i: [] for i in indexes(kept)}
    for i in indexes(dims):  # each input element, to the result it reduces into
        groups[tuple(0 if a in axes else x for a, x in enumerate(i))].append(at(v, i))
    reduce = {
        "sum": sum,
        "mean": lambda g: sum(g) / len(g),
        "max": lambda g: max(g, key=lambda x: x.data),  # the first largest, as tensor.py
    }[op]
    out_shape = kept if keepdims else tuple(n for a, n in enumerate(dims) if a not in axes)
    results = [reduce(groups[i]) for i in indexes(kept)]
    made.check(getattr(t, op)(axis=axis, keepdims=keepdims), nest(results, out_shape), out_shape)


@EXAMPLES
@given(sizes=st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4)), data=st.data())
def test_matrix_product(sizes, data):
    n, k, m = sizes
    case = Case(data.draw(arrays((n, k))), data.draw(arrays((k, m))))
    (ta, tb), (va, vb) = case.tensors, case.values
    rows = [[sum(va[i][t] * vb[t][j] for t in range(k)) for j in range(m)] for i in range(n)]
    case.check(ta @ tb, rows, (n, m))


@EXAMPLES
@given(dims=st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple), data=st.data())
def test_views_hand_each_gradient_back_to_its_element(dims, data):
    """permute, .T, and reshape of the result (a copy, as the permuted view is not
    contiguous unless its moved axes have size 1)."""
    order = data.draw(st.permutations(range(len(dims))))
    case = Case(data.draw(arrays(dims)))
    (t,), (v,) = case.tensors, case.values
    moved = tuple(dims[a] for a in order)
    elements = [at(v, tuple(i[order.index(a)] for a in range(len(dims)))) for i in indexes(moved)]
    flat_shape = (math.prod(dims),)
    case.check(t.permute(*order).reshape(flat_shape), elements, flat_shape)
    again = Case(data.draw(arrays(dims)))
    (t,), (v,) = again.tensors, again.values
    reversed_shape = tuple(reversed(dims))
    rows = [at(v, tuple(reversed(i))) for i in indexes(reversed_shape)]
    again.check(t.T, nest(rows, reversed_shape), reversed_shape)


@EXAMPLES
@given(sizes=st.tuples(st.integers(1, 4), st.integers(1, 4)), data=st.data())
def test_cross_entropy_is_the_mean_of_softmax_ce(sizes, data):
    n, c = sizes
    targets = data.draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n))
    case = Case(data.draw(arrays((n, c), low=-5.0, high=5.0)))
    loss = tensor.cross_entropy(case.tensors[0], targets)
    scalar = sum(micrograd.softmax_ce(row, t) for row, t in zip(case.values[0], targets)) / n
    case.check(loss, scalar, ())


def test_bad_shapes_get_typed_errors_that_name_them():
    with pytest.raises(ShapeError, match=r"items of shapes \(2,\) and \(1,\)"):
        Tensor([[1, 2], [3]])
    with pytest.raises(ShapeError, match=r"shapes \(2, 3\) and \(2,\) do not broadcast"):
        Tensor([[1, 2, 3]] * 2) + Tensor([1, 2])
    with pytest.raises(ShapeError, match=r"matmul of \(2, 3\) @ \(2, 3\)"):
        Tensor([[1, 2, 3]] * 2) @ Tensor([[1, 2, 3]] * 2)
    with pytest.raises(ShapeError, match=r"not from shape \(3,\)"):
        Tensor([1, 2, 3]).exp().backward()
    with pytest.raises(ShapeError, match=r"axis 2 is out of range for shape \(2, 2\)"):
        Tensor([[1, 2], [3, 4]]).sum(axis=2)
    loss = (Tensor([1.0, 2.0]) * 3).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="already spent"):
        loss.backward()
    with pytest.raises(TypeError, match="real numbers, not str"):
        Tensor([1, "2"])


@pytest.mark.heavy  # 100 steps of the scalar engine; `check` runs chapter 20's own check of 3
def test_chapter_20s_training_on_tensors_gives_chapter_10s_losses():
    """Chapter 20's 100 steps on tensors against chapter 10's training on the scalar
    engine, from the same seed, on the same data (chapter 20's, made as chapter 10 makes it)."""
    book = Notebook(ROOT / "docs" / "20-a-network-on-tensors.md")
    book.run_until(len(book.cells))
    assert book.failure is None, book.failure
    xs, ys, losses = (book.namespace[name] for name in ("X_train", "Y_train", "losses"))
    assert len(xs) == len(losses) == 100
    sizes = dict(activation="relu", output_activation="linear")
    scalar_model = micrograd.MLP(2, [16, 16, 1], seed=0, **sizes)
    for step in range(100):
        rate = 1.0 - 0.9 * step / 100
        scores = [scalar_model(x) for x in xs]
        margins = [(1 - y * s).relu() for y, s in zip(ys, scores)]
        penalty = 1e-4 * sum(p * p for p in scalar_model.parameters())
        scalar_loss = sum(margins) / len(margins) + penalty
        for p in scalar_model.parameters():
            p.grad = 0.0
        scalar_loss.backward()
        for p in scalar_model.parameters():
            p.data -= rate * p.grad
        assert close(losses[step], scalar_loss.data, 1e-9), step
