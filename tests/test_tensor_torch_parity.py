"""tensor.py against PyTorch (float64): a batch through a layer, every operation of the
engine on the way, values and every leaf's gradient within 1e-9, over shapes Hypothesis
draws. torch is optional, as in tests/test_torch_parity.py: skipped without it, unless
MICROGRAD_EXTRAS asks for it (then a missing torch is a failure)."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from tensor import Tensor, cross_entropy
from tests.helpers.parity import torch_or_skip

torch = torch_or_skip()

TOL = 1e-9


def same(ours: Tensor, theirs) -> bool:
    flat = zip(ours.values(), theirs.detach().reshape(-1).tolist())
    close = all(math.isclose(a, b, rel_tol=TOL, abs_tol=TOL) for a, b in flat)
    return tuple(theirs.shape) == ours.shape and close


def matrix(rows, cols):
    row = st.lists(st.floats(-2.0, 2.0), min_size=cols, max_size=cols)
    return st.lists(row, min_size=rows, max_size=rows)


@settings(max_examples=20, deadline=None)
@given(sizes=st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(2, 4)), data=st.data())
def test_a_layer_and_every_operation_agree_with_pytorch(sizes, data):
    n, k, m = sizes
    x, w = data.draw(matrix(n, k)), data.draw(matrix(k, m))
    b, scale = data.draw(matrix(1, m))[0], data.draw(matrix(n, 1))
    targets = data.draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
    ours = [Tensor(v) for v in (x, w, b, scale)]
    theirs = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (x, w, b, scale)]

    loss, z = _forward(ours, targets, m, n)
    torch_loss, torch_z = _torch_forward(theirs, targets, m, n)
    assert same(z, torch_z) and same(loss, torch_loss)
    loss.backward()
    torch_loss.backward()
    for mine, theirs_leaf in zip(ours, theirs):
        assert same(mine.grad, theirs_leaf.grad), (mine.grad, theirs_leaf.grad)


def spread(n, m):
    """Distinct constants added before a max: PyTorch does not say which tied element wins."""
    return [[(i * m + j) / 128 for j in range(m)] for i in range(n)]


def _forward(leaves, targets, m, n):
    """Every operation: @, broadcast + - * / (numbers on both sides), tanh relu exp log **,
    max mean sum over axes with keepdims, .T, reshape of a non-contiguous view, cross_entropy."""
    x, w, b, scale = leaves
    z = (x @ w + b).tanh() * scale - (x @ w).relu() / 2.0  # (n, m): b, scale broadcast
    peak = (z + Tensor(spread(n, m))).T.max(axis=0, keepdims=True)  # each row's largest
    soft = (z - peak.T).exp() + 1.0
    logits = soft.log() ** 2 + z.T.reshape(m, n).T.exp().mean(axis=0, keepdims=True)
    extra = (1.0 / (1.5 + z * z)).sum(axis=1).mean()
    ce = cross_entropy(logits, targets)
    return ce + extra - 3.0 * z.sum(axis=(0, 1)) ** 2 / 100.0, z


def _torch_forward(leaves, targets, m, n):
    """The same computation as the test's ``forward``, in PyTorch's spelling."""
    x, w, b, scale = leaves
    z = torch.tanh(x @ w + b) * scale - torch.relu(x @ w) / 2.0
    peak = (z + torch.tensor(spread(n, m), dtype=torch.float64)).T.max(dim=0, keepdim=True).values
    soft = torch.exp(z - peak.T) + 1.0
    logits = torch.log(soft) ** 2 + torch.exp(z.T.reshape(m, n).T).mean(dim=0, keepdim=True)
    extra = (1.0 / (1.5 + z * z)).sum(dim=1).mean()
    ce = torch.nn.functional.cross_entropy(logits, torch.tensor(targets))
    return ce + extra - 3.0 * z.sum(dim=(0, 1)) ** 2 / 100.0, z
