"""What runs inside the benchmark's worker processes (benchmarks/bench.py drives them): the
workload, identical for every engine, each engine behind the same small interface, and the
commands a worker answers, one JSON line in, one out. A worker runs this file as a script,
in the original micrograd's environment too, so it imports nothing of the repository but
the engine it times (and, for the appendix's variants, the book's notebook runner).

    python benchmarks/workers.py --worker ENGINE     answer commands on stdin
    python benchmarks/workers.py --variants ROUNDS   time the appendix's variants, print JSON
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import itertools
import json
import math
import os
import pstats
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
APPENDIX = ROOT / "docs" / "appendix-making-it-fast.md"
ORIGINAL_VENV = HERE / ".venv-original"  # the PyPI micrograd's environment (bench.py makes it)
SIZES = (2, 16, 16, 1)  # MLP(2, [16, 16, 1]): ReLU hidden layers, a linear output
ALPHA = 1e-4  # L2 regularisation, as in the original's demo


# --- workload data, identical for every engine ----------------------------------------


def two_moons(n: int = 100, noise: float = 0.1, seed: int = 1):
    """Two interleaved half circles with Gaussian noise; labels -1 and +1 (pure Python)."""
    rng = random.Random(seed)
    n_outer, n_inner = n // 2, n - n // 2
    outer = [math.pi * i / (n_outer - 1) for i in range(n_outer)]  # angles on each half circle
    inner = [math.pi * i / (n_inner - 1) for i in range(n_inner)]
    points = [[math.cos(t), math.sin(t)] for t in outer]
    points += [[1 - math.cos(t), 0.5 - math.sin(t)] for t in inner]
    points = [[x + rng.gauss(0, noise), y + rng.gauss(0, noise)] for x, y in points]
    return points, [-1.0] * n_outer + [1.0] * n_inner


def initial_parameters(sizes=SIZES, seed: int = 0) -> list[float]:
    """Weights uniform in [-1, 1], biases 0, in parameters() order (w's, then b, per neuron)."""
    rng = random.Random(seed)
    params = []
    for nin, nout in itertools.pairwise(sizes):
        for _ in range(nout):
            params += [rng.uniform(-1, 1) for _ in range(nin)] + [0.0]
    return params


def learning_rate(k: int, steps: int = 100) -> float:
    return 1.0 - 0.9 * k / steps  # the original demo's schedule


# --- engines (these run inside the worker processes) ----------------------------------


def hinge_loss(model, parameters, points, labels):
    """Mean max-margin loss plus L2, written as the original's demo writes it.

    It only uses operators and ``.relu()``, so it runs unchanged on both micrograds and
    on 0-d torch tensors. Returns the loss and the scores.
    """
    scores = [model(x) for x in points]
    losses = [(1 + -y * s).relu() for y, s in zip(labels, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = ALPHA * sum(p * p for p in parameters)
    return data_loss + reg_loss, scores


class Original:
    """karpathy/micrograd 0.1.0: micrograd.engine.Value and micrograd.nn.MLP."""

    def __init__(self, params):
        import micrograd.engine
        import micrograd.nn

        if str(ORIGINAL_VENV) not in micrograd.engine.__file__:
            raise RuntimeError(f"expected the PyPI micrograd, got {micrograd.engine.__file__}")
        self.Value = micrograd.engine.Value
        self.model = micrograd.nn.MLP(SIZES[0], list(SIZES[1:]))
        self.params = self.model.parameters()
        self.set_parameters(params)

    def set_parameters(self, values):
        for p, v in zip(self.params, values):
            p.data = v

    def loss(self, points, labels):
        return hinge_loss(self.model, self.params, points, labels)

    def value(self, x):
        return self.Value(x)

    @staticmethod
    def number(v) -> float:
        return float(v.data)

    def zero_grad(self):
        for p in self.params:
            p.grad = 0.0

    def gradients(self):
        return [float(p.grad) for p in self.params]

    def update(self, lr):
        for p in self.params:
            p.data -= lr * p.grad


class Ours(Original):
    """This repository's micrograd.py: MLP with one dot node per neuron."""

    def __init__(self, params):
        engine = Path(os.environ.get("BENCH_OURS", ROOT / "micrograd.py")).resolve()
        sys.path.insert(0, str(engine.parent))
        import micrograd

        if Path(micrograd.__file__).resolve() != engine:
            raise RuntimeError(f"expected {engine}, got {micrograd.__file__}")
        self.Value = micrograd.Value
        self.model = micrograd.MLP(
            SIZES[0], list(SIZES[1:]), seed=0, activation="relu", output_activation="linear"
        )
        self.params = self.model.parameters()
        self.set_parameters(params)


class TorchScalar(Original):
    """PyTorch with one 0-d float64 tensor per node: the same graph as the original's."""

    def __init__(self, params):
        import torch

        torch.set_num_threads(1)
        self.torch = torch
        self.params = [torch.tensor(0.0, dtype=torch.float64, requires_grad=True) for _ in params]
        self.set_parameters(params)
        self.layers, k = [], 0
        for nin, nout in itertools.pairwise(SIZES):
            neurons = []
            for _ in range(nout):
                neurons.append((self.params[k : k + nin], self.params[k + nin]))
                k += nin + 1
            self.layers.append(neurons)

    def model(self, x):
        for i, neurons in enumerate(self.layers):
            out = []
            for w, b in neurons:
                act = b  # b + w0*x0 + w1*x1 + ..., as the original's Neuron sums
                for wi, xi in zip(w, x):
                    act = act + wi * xi
                out.append(act.relu() if i < len(self.layers) - 1 else act)
            x = out
        return x[0]

    def set_parameters(self, values):
        with self.torch.no_grad():
            for p, v in zip(self.params, values):
                p.fill_(v)

    def value(self, x):
        return self.torch.tensor(x, dtype=self.torch.float64, requires_grad=True)

    @staticmethod
    def number(v) -> float:
        return v.item()

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def gradients(self):
        return [p.grad.item() for p in self.params]

    def update(self, lr):
        with self.torch.no_grad():
            for p in self.params:
                p -= lr * p.grad


class TorchBatched(TorchScalar):
    """PyTorch as it is meant to be used: one matrix product per layer, float64."""

    def __init__(self, params):
        import torch

        torch.set_num_threads(1)
        self.torch = torch
        self.weights, self.biases = [], []
        for nin, nout in itertools.pairwise(SIZES):
            self.weights.append(torch.zeros(nout, nin, dtype=torch.float64, requires_grad=True))
            self.biases.append(torch.zeros(nout, dtype=torch.float64, requires_grad=True))
        self.params = [t for pair in zip(self.weights, self.biases) for t in pair]
        self.set_parameters(params)

    def _flat_views(self):
        """(tensor, index) per parameter, in the scalar engines' parameters() order."""
        for w, b in zip(self.weights, self.biases):
            for j in range(w.shape[0]):
                yield from ((w, (j, i)) for i in range(w.shape[1]))
                yield b, (j,)

    def set_parameters(self, values):
        with self.torch.no_grad():
            for (t, index), v in zip(self._flat_views(), values):
                t[index] = v

    def loss(self, points, labels):
        torch = self.torch
        x = torch.tensor(points, dtype=torch.float64)
        y = torch.tensor(labels, dtype=torch.float64)
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = x @ w.T + b
            if i < len(self.weights) - 1:
                x = torch.relu(x)
        scores = x[:, 0]
        data_loss = torch.relu(1 - y * scores).mean()
        reg_loss = ALPHA * sum((p * p).sum() for p in self.params)
        return data_loss + reg_loss, scores.tolist()

    def gradients(self):
        return [t.grad[index].item() for t, index in self._flat_views()]


class OursTensor(TorchScalar):
    """This repository's tensor.py (chapter 20): one node per operation on the whole batch."""

    def __init__(self, params):
        sys.path.insert(0, str(ROOT))
        import tensor

        self.Tensor, kinds = tensor.Tensor, {"activation": "relu", "output_activation": "linear"}
        self.model = tensor.MLP(SIZES[0], list(SIZES[1:]), seed=0, **kinds)
        self.params = self.model.parameters()  # w (nin, nout), a neuron a column; b (nout,)
        self.weights = [(p, p.shape[1]) for p in self.params[::2]]  # the demo: no flat params
        self.set_parameters(params)

    def _flat(self, grad=False):  # (list, index) per parameter, in the scalar engines' order
        for (w, m), b in zip(self.weights, self.params[1::2]):
            w, b = (w.grad, b.grad) if grad else (w, b)
            for j in range(m):
                yield from ((w.data, i * m + j) for i in range(w.shape[0]))
                yield b.data, j

    def set_parameters(self, values):
        for (data, index), v in zip(self._flat(), values):
            data[index] = v

    def loss(self, points, labels):
        scores = self.model(self.Tensor(points))
        data_loss = (1 + self.Tensor([[-y] for y in labels]) * scores).relu().sum()
        reg_loss = ALPHA * sum((p * p).sum() for p in self.params)
        return data_loss * (1.0 / len(labels)) + reg_loss, scores.values()

    def gradients(self):
        return [data[index] for data, index in self._flat(grad=True)]

    def update(self, lr):
        for p in self.params:
            p.data[:] = [d - lr * g for d, g in zip(p.data, p.grad.values())]


ENGINES = {
    "original": Original,
    "ours": Ours,
    "torch scalar": TorchScalar,
    "torch batched": TorchBatched,
    "tensor": OursTensor,
}


class Worker:
    """The commands a worker process answers, one JSON line in, one JSON line out."""

    def __init__(self, engine: str):
        self.kind = ENGINES[engine]
        self.engine = None

    def setup(self, params, points, labels):
        self.initial, self.points, self.labels = params, points, labels
        self.engine = self.kind(params)
        return {}

    def reset(self):
        """Back to the initial parameters."""
        self.engine.set_parameters(self.initial)
        return {}

    def check(self):
        """Loss and gradients at the initial parameters."""
        e = self.engine
        e.set_parameters(self.initial)
        loss, _ = e.loss(self.points, self.labels)
        e.zero_grad()
        loss.backward()
        return {"loss": e.number(loss), "grads": e.gradients()}

    def step(self, collect=False):
        """Time one training step: forward, loss, zero grads, backward, SGD update.

        Back to back (``collect=False``), a step also pays for collecting what earlier
        steps left behind, as in a training loop. With ``collect=True`` a full collection
        runs first, untimed, which is the original's best case.
        """
        e = self.engine
        if collect:
            gc.collect()
        start = time.perf_counter()
        loss, _ = e.loss(self.points, self.labels)
        e.zero_grad()
        loss.backward()
        e.update(learning_rate(0))
        return {"seconds": time.perf_counter() - start}

    def demo(self, steps):
        """Time the original's demo: ``steps`` steps from the initial parameters."""
        e = self.engine
        e.set_parameters(self.initial)
        gc.collect()
        start = time.perf_counter()
        for k in range(steps):
            loss, scores = e.loss(self.points, self.labels)
            e.zero_grad()
            loss.backward()
            e.update(learning_rate(k, steps))
        seconds = time.perf_counter() - start
        numbers = [s if isinstance(s, float) else e.number(s) for s in scores]
        hits = sum((y > 0) == (s > 0) for y, s in zip(self.labels, numbers))
        return {
            "seconds": seconds,
            "loss": e.number(loss),
            "accuracy": hits / len(self.labels),
            "params": [e.number(p) for p in e.params] if not hasattr(e, "weights") else None,
        }

    def chain(self, nodes, recursion_limit=None):
        """Build y = ((x*w + x)*w + x)... with ``nodes`` operation nodes, then backward."""
        e = self.engine
        old_limit = sys.getrecursionlimit()
        if recursion_limit:
            sys.setrecursionlimit(recursion_limit)
        try:
            w, x = e.value(1.0), e.value(1e-6)
            gc.collect()
            start = time.perf_counter()
            y = build_chain(w, x, nodes)
            built = time.perf_counter()
            y.backward()
            done = time.perf_counter()
            grad = e.number(x.grad) if hasattr(x.grad, "item") else x.grad
            if grad != nodes // 2 + 1:
                raise AssertionError(f"chain gradient {grad}, expected {nodes // 2 + 1}")
            del y
            freed = time.perf_counter()
            return {
                "forward": built - start,
                "backward": done - built,
                "seconds": done - start,
                "free": freed - done,
            }
        except RecursionError as error:
            return {"error": f"RecursionError: {error}"}
        finally:
            sys.setrecursionlimit(old_limit)

    def node_bytes(self, nodes):
        """Bytes that stay allocated per operation node of the chain, before backward."""
        w, x = self.engine.value(1.0), self.engine.value(1e-6)
        return {"bytes": allocated(lambda: build_chain(w, x, nodes)) / (2 * (nodes // 2))}

    def graph_bytes(self):
        """Bytes that stay allocated for one two-moons loss graph, before backward."""
        return {"bytes": allocated(lambda: self.engine.loss(self.points, self.labels))}


def build_chain(w, x, nodes: int):
    """y = ((x*w + x)*w + x)..., with ``nodes`` operation nodes (two a link)."""
    y = x
    for _ in range(nodes // 2):
        y = y * w + x
    return y


def allocated(build) -> int:
    """Bytes that stay allocated for what ``build()`` returns (freed once tracemalloc stops)."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    built = build()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del built
    return after - before


def appendix_namespace() -> dict:
    """The appendix's code, run as the tests run it, up to the fence that reads the results."""
    sys.path.insert(0, str(ROOT))
    from tools.notebook import Notebook

    book = Notebook(APPENDIX)
    reads = [i for i, cell in enumerate(book.cells) if "RESULTS" in cell.code]
    if not reads:
        raise RuntimeError(f"{APPENDIX.name}: no fence reads RESULTS (benchmarks/results.json)")
    book.run_until(reads[0])
    if book.failure:
        raise RuntimeError(f"the appendix's code failed: {book.failure}")
    return book.namespace


def measure_variants(rounds: int) -> dict:
    """Time each variant of the appendix, taking turns; count what the appendix counts."""
    ns = appendix_namespace()
    step, models = ns["step"], {name: make() for name, make in ns["VARIANTS"].items()}
    naive = models["naive"]
    step(naive)  # warm up
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(3):
        step(naive)
    profiler.disable()
    stats = pstats.Stats(profiler).stats
    own = {key[2]: value[2] for key, value in stats.items() if key[0] == ns["CHAPTER"]}
    building = ("__init__", "_wrap", "__add__", "__mul__", "relu")
    share = sum(own.get(name, 0.0) for name in building) / sum(v[2] for v in stats.values())

    seconds = {name: [] for name in models}
    in_gc = {name: 0.0 for name in models}
    timing = {"variant": None, "since": 0.0}  # which variant's step is being timed

    def clock(phase, info):  # a gc.callbacks hook: time spent inside the collector
        if timing["variant"] is None:
            return
        if phase == "start":
            timing["since"] = time.perf_counter()
        else:
            in_gc[timing["variant"]] += time.perf_counter() - timing["since"]

    for model in models.values():
        step(model)  # warm up
    gc.callbacks.append(clock)
    try:
        for _ in range(rounds):
            for name, model in models.items():
                gc.collect()  # untimed: no variant pays for another's garbage
                timing["variant"], start = name, time.perf_counter()
                step(model)
                seconds[name].append(time.perf_counter() - start)
                timing["variant"] = None
    finally:
        gc.callbacks.remove(clock)
    variants = {}
    for name, model in models.items():
        young, middle, _ = ns["collections_per_step"](model)
        variants[name] = {
            "ms per step": round(statistics.median(seconds[name]) * 1000, 2),
            "collector share": round(in_gc[name] / sum(seconds[name]), 3),
            "nodes": ns["graph_size"](ns["loss_of"](model))[0],
            "tracked per node": round(ns["tracked_per_node"](model), 1),
            "young collections": round(young, 1),
            "middle collections": round(middle, 1),
            "bytes per node": round(ns["bytes_per_node"](model)),
            "garbage": ns["left_for_the_collector"](model),
        }
    return {"naive profile": {"node-building share": round(share, 3)}, "variants": variants}


def serve(engine: str) -> None:
    """Worker main loop: answer commands from stdin until it closes."""
    worker = Worker(engine)
    for line in sys.stdin:
        request = json.loads(line)
        command = request.pop("command")
        try:
            reply = getattr(worker, command)(**request)
        except Exception as error:  # reported to the coordinator, which decides
            reply = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(reply), flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--worker", choices=ENGINES, help="answer commands for this engine")
    which.add_argument("--variants", type=int, metavar="ROUNDS", help="time the variants")
    args = parser.parse_args(argv)
    if args.worker:
        serve(args.worker)
    else:
        print(json.dumps(measure_variants(args.variants)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
