"""The benchmark still runs: benchmarks/bench.py end to end, at its smallest sizes.

The appendix quotes benchmarks/results.json, which only a full run of bench.py writes (minutes,
on a quiet machine, by hand). So that bench.py cannot rot unseen between two such runs (an
engine API it calls changes, the appendix's code it runs moves), this runs all of it with
`--smoke`: every engine this machine has, every workload, the appendix's variants, the
agreement check, the saved file. It asserts what is the same on every run: the exit status,
the file's structure, which engines ran, the sizes, the counts, the agreement. Never a time.

It never needs the network: `--offline` leaves the original micrograd out unless
benchmarks/.venv-original is already set up (any earlier run of bench.py without
`--offline` sets it up); the test of the original's part then says so in its skip reason.
"""

import importlib.util
import json
import os
import platform
import re
import sys
from dataclasses import dataclass

import pytest

from tests.helpers import run_text
from tools import ROOT

pytestmark = pytest.mark.heavy  # the benchmark, at smoke sizes: `dev.py check` leaves it out

BENCH = ROOT / "benchmarks" / "bench.py"
_spec = importlib.util.spec_from_file_location("bench", BENCH)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

HAS_ORIGINAL = bench.original_ready()
HAS_TORCH = importlib.util.find_spec("torch") is not None
ORIGINAL_REASON = (
    f"{bench.ORIGINAL_VENV.relative_to(ROOT)} is not set up, so bench.py --offline left the "
    f"original out; one run that may use the package index sets it up "
    f"(python3 tools/dev.py bench --smoke)"
)
WORKLOADS = {"step", "step after collect", "demo", "chain"}
MEMORY = {"bytes", "graph"}  # tracemalloc sees only the two micrograds


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    results: dict


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Run:
    """One smoke run of bench.py, in the interpreter running the tests."""
    output = tmp_path_factory.mktemp("bench") / "r.json"
    env = {k: v for k, v in os.environ.items() if k != "BENCH_OURS"}  # this repository's engine
    command = [sys.executable, str(BENCH), "--smoke", "--offline", "--output", str(output)]
    done = run_text(command, cwd=ROOT, env=env, timeout=300)
    results = json.loads(output.read_text(encoding="utf-8")) if output.exists() else {}
    return Run(done.returncode, done.stdout, done.stderr, results)


@pytest.fixture
def results(run) -> dict:
    """What the run saved; the tests of its contents skip when the run itself failed."""
    if run.returncode != 0 or not run.results:
        pytest.skip("bench.py failed: test_bench_runs_end_to_end_and_saves_its_results says why")
    return run.results


def test_bench_runs_end_to_end_and_saves_its_results(run):
    assert run.returncode == 0, f"bench.py --smoke failed:\n{run.stdout}\n{run.stderr}"
    assert run.results, f"bench.py saved nothing:\n{run.stderr}"
    assert set(run.results) == {
        "measured_on", "engines", "agreement", "notes", "sizes", "naive profile", "variants",
        "earlier runs",
    }  # fmt: skip
    assert "| workload " in run.stdout and "Targets" in run.stdout
    targets = run.stdout[run.stdout.index("Targets") :]
    assert targets.startswith("Targets: not judged at smoke sizes"), targets
    assert " met" not in targets and "NOT MET" not in targets, "times at smoke sizes mean nothing"


def test_the_results_say_where_when_and_how(results):
    where = results["measured_on"]
    assert where["python"] == platform.python_version()
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", where["date"]), where["date"]
    assert where["machine"].endswith(f"{os.cpu_count()} cores") and where["cpu"]
    assert where["command"].startswith("python3 tools/dev.py bench --smoke --offline --output ")
    assert where["original"] == bench.ORIGINAL_PACKAGE
    assert (where["torch"] is not None) == HAS_TORCH
    assert set(where["load average"]) == {"before", "after"}


def test_every_workload_ran_on_every_engine_at_smoke_sizes(results):
    engines = results["engines"]
    expected = {"ours", "tensor"} | ({"original"} if HAS_ORIGINAL else set())
    expected |= {"torch scalar", "torch batched"} if HAS_TORCH else set()
    assert set(engines) == expected
    for name, measured in engines.items():
        micrograd = name in ("original", "ours")
        assert set(measured) == WORKLOADS | (MEMORY if micrograd else set()), name
        for key, value in measured.items():
            if not (name in bench.BATCHED and key == "chain"):  # nothing to batch in a chain
                assert isinstance(value, float), (name, key, value)
    assert [engines.get(name, {}).get("chain") for name in bench.BATCHED] == [None, None]
    assert results["sizes"] == {"mode": "smoke", **bench.MODES["smoke"]}
    failed = [note for note in results["notes"] if "failed" in note]
    assert not failed, failed  # the chain's gradient is checked inside each worker


def test_the_appendix_variants_were_measured(results):
    recorded = json.loads(bench.RESULTS.read_text(encoding="utf-8"))  # the full run's names
    variants = results["variants"]
    assert list(variants) == list(recorded["variants"])
    for name, v in variants.items():
        assert set(v) == set(recorded["variants"][name]), name
        assert all(isinstance(v[k], int) for k in ("nodes", "garbage")), (name, v)
    assert variants["naive"]["nodes"] > variants["+ one node per neuron"]["nodes"]
    assert variants["naive"]["garbage"] > 0 and variants["+ no cycle"]["garbage"] == 0
    assert set(results["naive profile"]) == {"node-building share"}  # a share of times


def test_ours_agrees_with_the_reference_within_the_stated_tolerance(run, results):
    agreement = results["agreement"]
    reference = "original" if HAS_ORIGINAL else "torch scalar" if HAS_TORCH else None
    assert agreement["reference"] == reference
    if reference is None:
        pytest.skip(
            f"no engine to check ours against: torch is not installed, and {ORIGINAL_REASON}"
        )
    tolerance = agreement["tolerance"]
    assert tolerance == 1e-12
    assert agreement["ours agrees"] is True
    assert agreement["max loss difference"] <= tolerance
    assert agreement["max gradient difference"] <= tolerance
    assert agreement["demo max parameter difference"] <= tolerance
    demo = agreement["demo"]
    assert set(demo) == set(results["engines"])
    for engine in ("ours", "tensor"):  # both of this repository's engines train alike
        assert abs(demo[engine]["loss"] - demo[reference]["loss"]) <= tolerance, engine
        assert demo[engine]["accuracy"] == demo[reference]["accuracy"], engine
    assert f"ours equals {reference} within 1e-12: yes" in run.stdout


@pytest.mark.skipif(not HAS_ORIGINAL, reason=ORIGINAL_REASON)
def test_the_original_took_part_and_is_the_reference(results):
    assert "original" in results["engines"]
    assert results["agreement"]["reference"] == "original"
    assert results["agreement"]["ours agrees"] is True
    assert any("recursive topological sort fails" in n for n in results["notes"])


def test_a_new_run_keeps_the_runs_before_it_newest_first(tmp_path):
    saved = tmp_path / "results.json"
    assert bench.earlier_runs(saved) == []  # nothing saved yet
    engines = {
        "original": {"step": 2.0, "step after collect": 1.0},
        "ours": {"step": 0.5, "step after collect": 0.25},
    }
    older = [{"date": "2026-01-01", "load average": None, "ratios": {"step": 3.0}}]
    where = {"date": "2026-02-02", "load average": {"before": [7.5, 1, 1], "after": None}}
    saved.write_text(json.dumps({"measured_on": where, "engines": engines, "earlier runs": older}))
    assert bench.earlier_runs(saved) == [
        {
            "date": "2026-02-02",
            "load average": 7.5,
            "ratios": {"step": 4.0, "step after collect": 4.0},
        },
        *older,
    ]
