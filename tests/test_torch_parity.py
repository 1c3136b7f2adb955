"""PyTorch parity: the engine and PyTorch (float64) agree on values and gradients to 1e-9.

Two kinds of computation are compared:

* the random expression graphs of the property tests (graphs.py), with PyTorch building
  the same graph out of 0-d tensors, every node's value and gradient compared;
* one training step of an MLP (forward, loss, zero grads, backward, SGD update), with
  PyTorch computing the same network as matrix products from the same weights.

torch is optional: without it these tests are skipped, unless it was asked for
(MICROGRAD_EXTRAS=torch, as .ci/run does for its main run): then a missing torch is a
failure, not a skip.
"""

import math
import os

import pytest
from hypothesis import given, settings

from micrograd import MLP, Value, softmax_ce
from tests.helpers.graphs import Backend, chained_dot, evaluate, graphs, value_backend
from tests.helpers.parity import torch_or_skip

torch = torch_or_skip()

TOL = 1e-9
LONG = os.environ.get("MICROGRAD_LONG") == "1"


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=TOL, abs_tol=TOL)


def scalar(x: float, requires_grad: bool = False):
    return torch.tensor(x, dtype=torch.float64, requires_grad=requires_grad)


TORCH = Backend(tanh=torch.tanh, exp=torch.exp, log=torch.log, relu=torch.relu, dot=chained_dot)


@settings(max_examples=2000 if LONG else 60, deadline=None)
@given(graphs())
def test_graphs_match_torch(graph):
    leaves = [Value(x) for x in graph.leaves]
    nodes = evaluate(graph, leaves, value_backend())
    nodes[-1].backward()

    t_leaves = [scalar(x, requires_grad=True) for x in graph.leaves]
    t_nodes = evaluate(graph, t_leaves, TORCH)
    for t in t_nodes[len(t_leaves) :]:
        t.retain_grad()  # keep the gradients of inner nodes too, to compare them all
    t_nodes[-1].backward()

    for i, (ours, theirs) in enumerate(zip(nodes, t_nodes)):
        assert close(ours.data, theirs.item()), f"n{i}: value {ours.data!r} vs {theirs.item()!r}"
        grad = 0.0 if theirs.grad is None else theirs.grad.item()  # unused leaf: None
        assert close(ours.grad, grad), f"n{i}: grad {ours.grad!r} vs torch {grad!r}"


# --- one training step of an MLP ----------------------------------------------------

ACTIVATIONS = {"tanh": torch.tanh, "relu": torch.relu, "linear": lambda x: x}


def torch_mlp(model):
    """Weight matrices and bias vectors holding ``model``'s parameters, layer by layer."""
    layers = []
    for layer in model.layers:
        w = [[p.data for p in neuron.w] for neuron in layer.neurons]
        b = [neuron.b.data for neuron in layer.neurons]
        layers.append(
            (
                torch.tensor(w, dtype=torch.float64, requires_grad=True),
                torch.tensor(b, dtype=torch.float64, requires_grad=True),
            )
        )
    return layers


def torch_parameters(layers):
    """The same order as MLP.parameters(): each neuron's weights, then its bias."""
    out = []
    for w, b in layers:
        for j in range(w.shape[0]):
            out += [(w, (j, i)) for i in range(w.shape[1])] + [(b, (j,))]
    return out


def torch_forward(layers, x, activation, output_activation):
    for k, (w, b) in enumerate(layers):
        x = x @ w.T + b
        last = k == len(layers) - 1
        x = ACTIVATIONS[output_activation if last else activation](x)
    return x


def small_batch(n, seed=0):
    """Points in [-1.5, 1.5]^2 with labels in {-1, 1} and classes in {0, 1, 2}."""
    import random

    rng = random.Random(seed)
    xs = [[rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5)] for _ in range(n)]
    ys = [1.0 if x0 * x0 - x1 > 0 else -1.0 for x0, x1 in xs]
    classes = [int(x0 > x1) + int(x0 + x1 > 1) for x0, x1 in xs]
    return xs, ys, classes


CASES = [  # activation, output activation, outputs, loss
    ("relu", "linear", 1, "hinge"),  # the original micrograd demo
    ("tanh", "tanh", 1, "mse"), ("tanh", "linear", 3, "cross-entropy"), ("relu", "relu", 2, "mse"),
]  # fmt: skip


@pytest.mark.parametrize(("activation", "output_activation", "nout", "loss_kind"), CASES)
def test_mlp_training_step_matches_torch(activation, output_activation, nout, loss_kind):
    xs, ys, classes = small_batch(12)
    model = MLP(2, [6, 5, nout], seed=3, activation=activation, output_activation=output_activation)
    layers = torch_mlp(model)
    params, t_params = model.parameters(), torch_parameters(layers)
    assert len(params) == len(t_params)
    lr = 0.1

    # ours
    outs = [model(x) for x in xs]
    if loss_kind == "hinge":
        data_loss = sum((1 + -y * out).relu() for y, out in zip(ys, outs)) * (1.0 / len(xs))
    elif loss_kind == "mse":
        rows = [out if isinstance(out, list) else [out] for out in outs]
        data_loss = sum((o - y) ** 2 for row, y in zip(rows, ys) for o in row) / len(xs)
    else:
        data_loss = sum(softmax_ce(out, c) for out, c in zip(outs, classes)) / len(xs)
    loss = data_loss + 1e-4 * sum(p * p for p in params)
    for p in params:
        p.grad = 0.0
    loss.backward()
    grads = [p.grad for p in params]
    for p in params:
        p.data -= lr * p.grad

    # torch, batched
    x = torch.tensor(xs, dtype=torch.float64)
    scores = torch_forward(layers, x, activation, output_activation)
    y = torch.tensor(ys, dtype=torch.float64)
    if loss_kind == "hinge":
        t_data_loss = torch.relu(1 - y * scores[:, 0]).mean()
    elif loss_kind == "mse":
        t_data_loss = ((scores - y[:, None]) ** 2).sum() / len(xs)
    else:
        t_data_loss = torch.nn.functional.cross_entropy(scores, torch.tensor(classes))
    t_loss = t_data_loss + 1e-4 * sum((p**2).sum() for p in (t for pair in layers for t in pair))
    t_loss.backward()
    with torch.no_grad():
        for t in (t for pair in layers for t in pair):
            t -= lr * t.grad

    assert close(loss.data, t_loss.item()), (loss.data, t_loss.item())
    for k, (p, grad, (t, index)) in enumerate(zip(params, grads, t_params)):
        assert close(grad, t.grad[index].item()), f"parameter {k}: grad {grad} vs {t.grad[index]}"
        assert close(p.data, t[index].item()), f"parameter {k}: updated {p.data} vs {t[index]}"


# What chapter 11 says PyTorch does, checked against the PyTorch installed here (the book
# names the version these tests pin: the `torch` extra in pyproject.toml).


def test_pytorch_version_is_the_one_the_book_names():
    from tools import ROOT

    version = torch.__version__.split("+")[0]
    chapter = (ROOT / "docs" / "11-how-it-differs-from-pytorch.md").read_text(encoding="utf-8")
    assert f"PyTorch {version}" in chapter, f"chapter 11 should name PyTorch {version}"


def test_pytorch_refuses_a_saved_tensor_changed_in_place():
    a = scalar(2.0, requires_grad=True)
    b = a * 1.0  # not a leaf, so it may be changed in place
    product = b * scalar(5.0, requires_grad=True)  # saves b for the backward pass
    b.add_(1.0)  # bumps b's version counter
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        product.backward()


def test_pytorch_frees_the_graph_unless_asked_to_retain_it():
    x = scalar(3.0, requires_grad=True)
    y = (x * x).tanh()
    y.backward(retain_graph=True)
    y.backward()  # the second time works because the first retained the graph
    z = (x * x).tanh()
    z.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        z.backward()


def test_pytorch_can_differentiate_a_gradient_with_create_graph():
    x = scalar(3.0, requires_grad=True)
    (grad,) = torch.autograd.grad(x**3, x, create_graph=True)
    assert grad.grad_fn is not None and float(grad.detach()) == 27.0  # 3x^2, a graph node
    (second,) = torch.autograd.grad(grad, x)
    assert float(second) == 18.0  # 6x


def test_pytorch_views_share_memory_with_their_base():
    base = torch.zeros(4, dtype=torch.float64)
    view = base[1:3]
    view.add_(1.0)
    assert base.tolist() == [0.0, 1.0, 1.0, 0.0] and view._base is base


def test_pytorch_reduces_a_broadcast_gradient_to_the_input_shape():
    bias = torch.tensor([0.1, -0.2], dtype=torch.float64, requires_grad=True)
    batch = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=torch.float64)
    upstream = torch.tensor([[1.0, -1.0], [2.0, 0.5], [-4.0, 3.0]], dtype=torch.float64)
    ((batch + bias) * upstream).sum().backward()
    assert bias.grad.shape == bias.shape and bias.grad.tolist() == [-1.0, 2.5]
