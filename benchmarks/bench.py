"""Benchmark our engine against the original micrograd and PyTorch, side by side.

    python3 tools/dev.py bench            the full run (a few minutes); writes results.json
    python3 tools/dev.py bench --quick    smaller sizes, for a check that it all works
    python3 tools/dev.py bench --smoke    the smallest sizes, seconds (tests/test_bench.py)

Run it with the project's environment (.venv, plus the `torch` extra for the PyTorch
columns). See benchmarks/README.md for what is measured and how to read the table.

Each engine runs in a worker process of its own, driven over a pipe: the original
micrograd (PyPI `micrograd==0.1.0`) in benchmarks/.venv-original, created on first use,
because its package name is the name of our module; ours, PyTorch with one 0-d tensor
per graph node ("torch scalar") and PyTorch with matrices ("torch batched") in the
current interpreter's environment. Timed runs are interleaved, one engine after the
other, round after round, so that whatever else the machine is doing slows every engine
alike; the table shows medians. The garbage collector stays on everywhere.

A last worker runs the code of the appendix "Making it fast" (docs/appendix-making-it-fast.md),
exactly as the tests run it, and times each of its engine variants. The full run saves
everything, with the machine, Python version and date, in benchmarks/results.json, which
the appendix reads: the book quotes measured times from that file, never from a run of
its own.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import gc
import itertools
import json
import math
import os
import platform
import pstats
import random
import shlex
import statistics
import subprocess
import sys
import time
import tracemalloc
import venv
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ORIGINAL_VENV = HERE / ".venv-original"
ORIGINAL_PACKAGE = "micrograd==0.1.0"
APPENDIX = ROOT / "docs" / "appendix-making-it-fast.md"
RESULTS = HERE / "results.json"
SIZES = (2, 16, 16, 1)  # MLP(2, [16, 16, 1]): ReLU hidden layers, a linear output
TOLERANCE = 1e-12  # ours must compute the reference's loss and gradients within this
# The workload sizes of each kind of run. Only a full run is quoted (by the appendix);
# --quick checks that everything works, --smoke does every workload in seconds, so that a
# test (tests/test_bench.py) can run the whole script on every run of the suite.
MODES = {
    "full": {
        "rounds": 9,
        "points": 100,
        "demo steps": 100,
        "chain nodes": 1_000_000,
        "bytes nodes": 100_000,
    },
    "quick": {
        "rounds": 3,
        "points": 100,
        "demo steps": 10,
        "chain nodes": 100_000,
        "bytes nodes": 20_000,
    },
    "smoke": {
        "rounds": 1,
        "points": 20,
        "demo steps": 2,
        "chain nodes": 4_000,
        "bytes nodes": 2_000,
    },
}
ALPHA = 1e-4  # L2 regularisation, as in the original's demo


# --- workload data, identical for every engine ----------------------------------------


def two_moons(n: int = 100, noise: float = 0.1, seed: int = 1):
    """Two interleaved half circles with Gaussian noise; labels -1 and +1 (pure Python)."""
    rng = random.Random(seed)
    n_outer = n // 2
    n_inner = n - n_outer
    points, labels = [], []
    for i in range(n_outer):
        t = math.pi * i / (n_outer - 1)
        points.append([math.cos(t), math.sin(t)])
        labels.append(-1.0)
    for i in range(n_inner):
        t = math.pi * i / (n_inner - 1)
        points.append([1 - math.cos(t), 0.5 - math.sin(t)])
        labels.append(1.0)
    points = [[x + rng.gauss(0, noise), y + rng.gauss(0, noise)] for x, y in points]
    return points, labels


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


ENGINES = {
    "original": Original,
    "ours": Ours,
    "torch scalar": TorchScalar,
    "torch batched": TorchBatched,
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
            y = x
            for _ in range(nodes // 2):
                y = y * w + x
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
        e = self.engine
        w, x = e.value(1.0), e.value(1e-6)
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        y = x
        for _ in range(nodes // 2):
            y = y * w + x
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        del y
        return {"bytes": (after - before) / (2 * (nodes // 2))}

    def graph_bytes(self):
        """Bytes that stay allocated for one two-moons loss graph, before backward."""
        e = self.engine
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        loss, _ = e.loss(self.points, self.labels)
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        del loss
        return {"bytes": after - before}


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


# --- the coordinator -------------------------------------------------------------------


ORIGINAL_PYTHON = ORIGINAL_VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
ORIGINAL_MARKER = ORIGINAL_VENV / "installed.txt"


def original_ready() -> bool:
    """Is benchmarks/.venv-original there, with micrograd 0.1.0 installed?"""
    return (
        ORIGINAL_MARKER.exists()
        and ORIGINAL_MARKER.read_text() == ORIGINAL_PACKAGE
        and ORIGINAL_PYTHON.exists()
    )


def original_python() -> Path:
    """The interpreter of benchmarks/.venv-original, created with micrograd 0.1.0 if needed."""
    python, marker = ORIGINAL_PYTHON, ORIGINAL_MARKER
    if not original_ready():
        print(f"bench: installing {ORIGINAL_PACKAGE} into {ORIGINAL_VENV}", file=sys.stderr)
        venv.create(ORIGINAL_VENV, with_pip=True, clear=True)
        subprocess.run(
            [python, "-m", "pip", "install", "--quiet", ORIGINAL_PACKAGE],
            check=True,
        )
        marker.write_text(ORIGINAL_PACKAGE)
    return python


class Process:
    """A worker process running one engine."""

    def __init__(self, engine: str, python: Path | str):
        self.engine = engine
        self.proc = subprocess.Popen(
            [str(python), str(Path(__file__).resolve()), "--worker", engine],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=HERE,
        )

    def send(self, command: str, **arguments):
        self.proc.stdin.write(json.dumps({"command": command, **arguments}) + "\n")
        self.proc.stdin.flush()

    def receive(self, command: str):
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.engine} worker died during {command}")
        return json.loads(line)

    def call(self, command: str, **arguments):
        self.send(command, **arguments)
        return self.receive(command)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def has_torch() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def fmt_time(seconds: float | None) -> str:
    if seconds is None:
        return "n/a"
    if seconds < 1:
        return f"{seconds * 1000:.3g} ms"
    return f"{seconds:.3g} s"


def cell(value, reference, kind="time"):
    """A table cell: the value, and in brackets how many times better than the original."""
    if value is None:
        return "n/a"
    text = fmt_time(value) if kind == "time" else f"{value:.0f} B"
    if reference and value and reference != value:
        text += f" ({reference / value:.3g}x)"
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", choices=ENGINES, help=argparse.SUPPRESS)
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--quick", action="store_true", help="small sizes, a check that it works")
    kind.add_argument(
        "--smoke", action="store_true", help="the smallest sizes: every workload in seconds"
    )
    parser.add_argument("--rounds", type=int, default=None, help="timed steps per engine")
    parser.add_argument(
        "--offline",
        action="store_true",
        help=f"never install {ORIGINAL_PACKAGE}: without {ORIGINAL_VENV.relative_to(ROOT)} "
        "ready, leave the original out (the agreement check then uses torch scalar)",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help=f"where to save the results (default: {RESULTS.relative_to(ROOT)}, only for "
        "a full run of all four engines with our own micrograd.py)",
    )
    parser.add_argument("--variants-worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        serve(args.worker)
        return 0
    if args.variants_worker:
        print(json.dumps(measure_variants(args.variants_worker)))
        return 0

    load_before = load_average()
    mode = "smoke" if args.smoke else "quick" if args.quick else "full"
    sizes = {"mode": mode, **MODES[mode]}
    if args.rounds:
        sizes["rounds"] = args.rounds

    engines = {}
    if not args.offline or original_ready():  # original_python() installs it if need be
        engines["original"] = original_python()
    else:
        log(f"--offline, and {ORIGINAL_VENV.relative_to(ROOT)} is not ready: no original column")
    engines["ours"] = sys.executable
    if has_torch():
        engines |= {"torch scalar": sys.executable, "torch batched": sys.executable}
    else:
        log("torch is not installed: its columns are n/a (MICROGRAD_EXTRAS=torch adds it)")
    points, labels = two_moons(sizes["points"])
    params = initial_parameters()
    workers = {name: Process(name, python) for name, python in engines.items()}
    try:
        for w in workers.values():  # all at once: each worker imports its engine meanwhile
            w.send("setup", params=params, points=points, labels=labels)
        for w in workers.values():
            reply = w.receive("setup")
            if "error" in reply:
                raise RuntimeError(f"{w.engine}: {reply['error']}")
        status, results = report(workers, sizes, len(params))
    finally:
        for w in workers.values():
            w.close()
    log("the appendix's variants")
    variants = subprocess.run(
        [
            sys.executable,
            str(Path(__file__).resolve()),
            "--variants-worker",
            str(3 * sizes["rounds"]),
        ],
        stdout=subprocess.PIPE,  # its errors, if any, go to stderr as they happen
        text=True,
        check=True,
        cwd=ROOT,
    )
    results |= json.loads(variants.stdout)
    output = args.output
    if output is None and mode == "full":
        if set(engines) == set(ENGINES) and "BENCH_OURS" not in os.environ:
            output = RESULTS
        elif "BENCH_OURS" in os.environ:
            log(f"BENCH_OURS is set: not saved in {RESULTS.relative_to(ROOT)} (--output PATH)")
        else:
            missing = ", ".join(sorted(set(ENGINES) - set(engines)))
            log(
                f"not saved in {RESULTS.relative_to(ROOT)}: the appendix needs every engine, "
                f"and this run had no {missing} (--output PATH saves it elsewhere)"
            )
    if output:
        where = measured_on(argv if argv is not None else sys.argv[1:])
        where["load average"] = {"before": load_before, "after": load_average()}
        saved = {"measured_on": where, **results, "earlier runs": earlier_runs(output)}
        output.write_text(json.dumps(saved, indent=2) + "\n", encoding="utf-8", newline="\n")
        log(f"saved the results in {output}")
    return status


def earlier_runs(path: Path) -> list[dict]:
    """The runs saved in ``path`` so far, newest first, each as its date, its load average
    at the start and the two step ratios of ours against the original: a busy machine's
    run is then read beside the others, never alone."""
    if not path.exists():
        return []
    old = json.loads(path.read_text(encoding="utf-8"))
    engines, where = old["engines"], old["measured_on"]
    if not {"original", "ours"} <= set(engines):  # not a run the appendix can quote
        return old.get("earlier runs", [])
    ratio = {
        key: round(engines["original"][key] / engines["ours"][key], 1)
        for key in ("step", "step after collect")
    }
    load = (where.get("load average") or {}).get("before")
    run = {"date": where["date"], "load average": load and load[0], "ratios": ratio}
    return [run, *old.get("earlier runs", [])]


def load_average() -> list[float] | None:
    """The machine's 1, 5 and 15-minute load averages (None where the OS has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):  # Windows
        return None


def measured_on(arguments: list[str]) -> dict:
    """Where and when the results were measured, and with what."""
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [line for line in cpuinfo.read_text().splitlines() if line.startswith("model name")]
        cpu = names[0].split(":", 1)[1].strip() if names else cpu
    try:
        import torch

        torch_version = torch.__version__
    except ImportError:
        torch_version = None
    return {
        "date": datetime.date.today().isoformat(),
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores",
        "cpu": cpu,
        "torch": torch_version,
        "original": ORIGINAL_PACKAGE,
        "command": shlex.join(["python3", "tools/dev.py", "bench", *arguments]),
    }


def log(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def report(workers, sizes, n_params) -> tuple[int, dict]:
    """Run every workload on every worker; print the table and return (status, results)."""
    rounds, demo_steps = sizes["rounds"], sizes["demo steps"]
    chain_nodes, n_points = sizes["chain nodes"], sizes["points"]
    names = list(workers)
    results: dict[str, dict[str, float | None]] = {n: {} for n in names}
    notes = []

    # Do the engines compute the same thing? Loss and gradients at the initial weights,
    # against the original; in a run without it, against the same graph in PyTorch.
    reference = next((n for n in ("original", "torch scalar") if n in workers), None)
    checks = {n: w.call("check") for n, w in workers.items()}
    lines = []
    if reference:
        ref = checks[reference]
        for n in names:
            c = checks[n]
            loss_diff = abs(c["loss"] - ref["loss"])
            grad_diff = max(abs(a - b) for a, b in zip(c["grads"], ref["grads"]))
            lines.append((n, c["loss"], loss_diff, grad_diff))

    # (a) one training step, interleaved round by round
    log(f"two-moons step: {rounds} rounds")
    for n in names:
        workers[n].call("step")  # warm-up, untimed
        workers[n].call("reset")
    for key, collect in (("step", False), ("step after collect", True)):
        times = {n: [] for n in names}
        for _ in range(rounds):
            for n in names:
                times[n].append(workers[n].call("step", collect=collect)["seconds"])
        for n in names:
            results[n][key] = statistics.median(times[n])

    # (b) the demo: demo_steps steps from the initial weights, once per engine
    log(f"{demo_steps}-step demo")
    demos = {n: workers[n].call("demo", steps=demo_steps) for n in names}
    for n in names:
        results[n]["demo"] = demos[n]["seconds"]

    # (c) a deep chain: forward and backward through chain_nodes operation nodes
    log(f"chain of {chain_nodes:,} nodes")
    for n in names:
        if n == "torch batched":
            results[n]["chain"] = None  # a chain of scalars has nothing to batch
            continue
        limit = None
        if n == "original":  # its topological sort is recursive: probe a short chain first
            probe = workers[n].call("chain", nodes=2_000)
            if "error" in probe:
                limit = 10 * chain_nodes
                notes.append(
                    f"original: at Python's default recursion limit "
                    f"({sys.getrecursionlimit()}) its recursive topological sort fails "
                    f"already on a 2,000-node chain ({probe['error'].split(':')[0]}); its "
                    f"chain time in the table is with sys.setrecursionlimit({limit:,})"
                )
        reply = workers[n].call("chain", nodes=chain_nodes, recursion_limit=limit)
        if "error" in reply:
            notes.append(f"{n}: chain of {chain_nodes:,} nodes failed: {reply['error']}")
            results[n]["chain"] = None
        else:
            results[n]["chain"] = reply["seconds"]
            notes.append(
                f"{n}: chain forward {fmt_time(reply['forward'])}, backward "
                f"{fmt_time(reply['backward'])}; freeing it afterwards {fmt_time(reply['free'])}"
            )

    # (d) memory
    log("memory")
    for n in ("original", "ours"):
        if n in workers:
            results[n]["bytes"] = workers[n].call("node_bytes", nodes=sizes["bytes nodes"])["bytes"]
            results[n]["graph"] = workers[n].call("graph_bytes")["bytes"]

    # the table
    orig = results.get("original", {})
    header = ["workload", *names]
    rows = [
        ["two-moons training step, back to back"]
        + [cell(results[n]["step"], orig.get("step")) for n in names],
        ["the same, after an untimed gc.collect()"]
        + [cell(results[n]["step after collect"], orig.get("step after collect")) for n in names],
        [f"{demo_steps}-step demo training"]
        + [cell(results[n]["demo"], orig.get("demo")) for n in names],
        [f"chain of {chain_nodes:,} nodes, forward + backward"]
        + [cell(results[n].get("chain"), orig.get("chain")) for n in names],
        ["bytes per chain node (tracemalloc)"]
        + [cell(results[n].get("bytes"), orig.get("bytes"), "bytes") for n in names],
        ["two-moons loss graph (tracemalloc)"]
        + [
            "n/a" if results[n].get("graph") is None else f"{results[n]['graph'] / 1e6:.2f} MB"
            for n in names
        ],
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells):
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"

    print(f"Python {sys.version.split()[0]}, garbage collector on, {os.cpu_count()} cores.")
    print(f"MLP(2, [16, 16, 1]) ({n_params} parameters) on {n_points} two-moons points; step")
    print(f"times interleaved over {rounds} rounds.", end="")
    if orig:
        print(" (Nx): the original's time or memory divided by")
        print("this engine's, so higher is better.")
    else:
        print(" The original did not run: no (Nx) ratios.")
    print()
    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))
    print()
    for note in notes:
        print(f"- {note}")
    print("- torch has its own allocator, which tracemalloc does not see: no memory figures.")
    print()
    ours = results["ours"]
    if reference:
        print(f"Same model, same data, initial weights: loss and gradients against {reference}")
        for n, loss, loss_diff, grad_diff in lines:
            print(f"  {n:14} loss {loss:.17g}  |loss diff| {loss_diff:.1e}", end="")
            print(f"  max |grad diff| {grad_diff:.1e}")
        _, _, ours_loss_diff, ours_grad_diff = lines[names.index("ours")]
        ours_ok = ours_loss_diff <= TOLERANCE and ours_grad_diff <= TOLERANCE
        print(f"  ours equals {reference} within {TOLERANCE:g}: {'yes' if ours_ok else 'NO'}")
        d0, d1 = demos[reference], demos["ours"]
        params_diff = (
            max(abs(a - b) for a, b in zip(d0["params"], d1["params"])) if d0["params"] else None
        )
        print(
            f"  after the {demo_steps}-step demo: {reference} loss {d0['loss']:.6g}, accuracy "
            f"{d0['accuracy']:.0%}; ours loss {d1['loss']:.6g}, accuracy {d1['accuracy']:.0%}; "
            f"max |parameter diff| {params_diff:.1e}"
        )
    else:
        ours_ok = ours_loss_diff = ours_grad_diff = params_diff = None
        print("Neither the original nor torch ran: nothing to check ours against.")
    print()
    if sizes["mode"] == "smoke":  # timings of a few steps and a small chain mean nothing
        print(
            f"Targets: not judged at smoke sizes ({n_points} points, {rounds} round(s), a "
            f"{chain_nodes:,}-node chain): a full run judges them (python3 tools/dev.py bench)"
        )
    else:
        print("Targets (each step ratio: back to back / after gc.collect())")
        if orig:
            ratios = [orig[k] / ours[k] for k in ("step", "step after collect")]
            shown = " / ".join(f"1/{r:.3g}" for r in ratios)
            print(f"  two-moons step <= 1/20 of original: {shown}  {_ok(min(ratios) >= 20)}")
            print(f"  stretch, <= 1/50:                   {shown}  {_ok(min(ratios) >= 50)}")
        else:
            print("  two-moons step <= 1/20 of original: n/a (the original did not run)")
        if "torch scalar" in results:
            vs = [results["torch scalar"][k] / ours[k] for k in ("step", "step after collect")]
            shown = " / ".join(f"{r:.3g}x" for r in vs)
            print(f"  >= 10x faster than torch scalar:    {shown}  {_ok(min(vs) >= 10)}")
        small = _ok(ours["bytes"] <= 250)
        print(f"  <= 250 bytes per node:              {ours['bytes']:.0f}  {small}")
        chain_ok = ours.get("chain") is not None
        print(f"  {chain_nodes:,}-node chain works:         {_ok(chain_ok)}")
    saved = {
        "engines": {n: {k: _rounded(v) for k, v in results[n].items()} for n in names},
        "agreement": {
            "reference": reference,
            "tolerance": TOLERANCE,
            "max loss difference": ours_loss_diff,
            "max gradient difference": ours_grad_diff,
            "ours agrees": ours_ok,
            "demo": {
                n: {"loss": demos[n]["loss"], "accuracy": demos[n]["accuracy"]} for n in names
            },
            "demo max parameter difference": params_diff,
        },
        "notes": notes,
        "sizes": sizes,
    }
    return (1 if ours_ok is False else 0), saved


def _rounded(value):
    return None if value is None else float(f"{value:.4g}")


def _ok(flag: bool) -> str:
    return "met" if flag else "NOT MET"


if __name__ == "__main__":
    sys.exit(main())
