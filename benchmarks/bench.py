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
import datetime
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import venv
from pathlib import Path
from subprocess import PIPE

if __package__ in (None, ""):  # run as a script: the repository's packages importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.workers import ENGINES, HERE, ORIGINAL_VENV, ROOT, initial_parameters, two_moons

ORIGINAL_PACKAGE = "micrograd==0.1.0"
RESULTS = HERE / "results.json"
WORKERS = HERE / "workers.py"  # what a worker process runs
TOLERANCE = 1e-12  # ours must compute the reference's loss and gradients within this
BATCHED = ("torch batched", "tensor")  # a chain of scalars has nothing to batch
# The workload sizes of each kind of run. Only a full run is quoted (by the appendix);
# --quick checks that everything works, --smoke does every workload in seconds, so that a
# test (tests/test_bench.py) can run the whole script on every run of the suite.
SIZES = ("rounds", "points", "demo steps", "chain nodes", "bytes nodes")
MODES = {
    "full": dict(zip(SIZES, (9, 100, 100, 1_000_000, 100_000))),
    "quick": dict(zip(SIZES, (3, 100, 10, 100_000, 20_000))),
    "smoke": dict(zip(SIZES, (1, 20, 2, 4_000, 2_000))),
}


# --- the coordinator -------------------------------------------------------------------


ORIGINAL_PYTHON = ORIGINAL_VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
ORIGINAL_MARKER = ORIGINAL_VENV / "installed.txt"


def original_ready() -> bool:
    """Is benchmarks/.venv-original there, with micrograd 0.1.0 installed?"""
    installed = ORIGINAL_MARKER.read_text() if ORIGINAL_MARKER.exists() else None
    return installed == ORIGINAL_PACKAGE and ORIGINAL_PYTHON.exists()


def original_python() -> Path:
    """The interpreter of benchmarks/.venv-original, created with micrograd 0.1.0 if needed."""
    if not original_ready():
        log(f"installing {ORIGINAL_PACKAGE} into {ORIGINAL_VENV}")
        venv.create(ORIGINAL_VENV, with_pip=True, clear=True)
        pip = [ORIGINAL_PYTHON, "-m", "pip", "install", "--quiet", ORIGINAL_PACKAGE]
        subprocess.run(pip, check=True)
        ORIGINAL_MARKER.write_text(ORIGINAL_PACKAGE)
    return ORIGINAL_PYTHON


class Process:
    """A worker process running one engine."""

    def __init__(self, engine: str, python: Path | str):
        self.engine = engine
        command = [str(python), str(WORKERS), "--worker", engine]
        self.proc = subprocess.Popen(command, stdin=PIPE, stdout=PIPE, text=True, cwd=HERE)

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


def torch_version() -> str | None:
    """PyTorch's version, or None where it is not installed."""
    try:
        import torch
    except ImportError:
        return None
    return torch.__version__


def fmt_time(seconds: float) -> str:
    return f"{seconds * 1000:.3g} ms" if seconds < 1 else f"{seconds:.3g} s"


def cell(value, reference, unit="time"):
    """A table cell: the value, and in brackets how many times better than the original."""
    if value is None:
        return "n/a"
    if unit == "MB":
        return f"{value / 1e6:.2f} MB"  # a size of its own: no ratio
    text = fmt_time(value) if unit == "time" else f"{value:.0f} B"
    if reference and value and reference != value:
        text += f" ({reference / value:.3g}x)"
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--quick", action="store_true", help="small sizes, a check that it works")
    kind.add_argument(
        "--smoke", action="store_true", help="smallest sizes: every workload in seconds"
    )
    parser.add_argument("--rounds", type=int, help="timed steps per engine")
    parser.add_argument(
        "--offline",
        action="store_true",
        help=f"never install {ORIGINAL_PACKAGE}: without {ORIGINAL_VENV.relative_to(ROOT)} "
        "ready, leave the original out (the agreement check then uses torch scalar)",
    )
    parser.add_argument(
        "--output",
        type=Path,
        help=f"where to save the results (default: {RESULTS.relative_to(ROOT)}, only for "
        "a full run of all four engines with our own micrograd.py)",
    )
    args = parser.parse_args(argv)

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
    engines["ours"] = engines["tensor"] = sys.executable
    if torch_version():
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
    log("the appendix's variants")  # its errors, if any, go to stderr as they happen
    command = [sys.executable, str(WORKERS), "--variants", str(3 * sizes["rounds"])]
    variants = subprocess.run(command, stdout=PIPE, text=True, check=True, cwd=ROOT)
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
    return {
        "date": datetime.date.today().isoformat(),
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores",
        "cpu": cpu,
        "torch": torch_version(),
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
        if n in BATCHED:
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
        results[n]["chain"] = reply.get("seconds")  # None if it failed
        if "error" in reply:
            notes.append(f"{n}: chain of {chain_nodes:,} nodes failed: {reply['error']}")
        else:
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

    def row(label, key, unit="time"):
        return [label, *(cell(results[n].get(key), orig.get(key), unit) for n in names)]

    rows = [
        row("two-moons training step, back to back", "step"),
        row("the same, after an untimed gc.collect()", "step after collect"),
        row(f"{demo_steps}-step demo training", "demo"),
        row(f"chain of {chain_nodes:,} nodes, forward + backward", "chain"),
        row("bytes per chain node (tracemalloc)", "bytes", "B"),
        row("two-moons loss graph (tracemalloc)", "graph", "MB"),
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
        for slow, fast, what in (("torch scalar", "ours", ""), ("ours", "tensor", "tensor.py ")):
            if slow in results:
                vs = [results[slow][k] / results[fast][k] for k in ("step", "step after collect")]
                shown = " / ".join(f"{r:.3g}x" for r in vs)
                said = f"{what}>= 10x faster than {'ours' if what else slow}:"
                print(f"  {said:<36}{shown}  {_ok(min(vs) >= 10)}")
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
