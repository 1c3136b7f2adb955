"""micrograd.py is the chapters' product: identical to the tangle, standalone, stdlib-only."""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools.tangle import ROOT, hand_edited, tangle

ENGINE = ROOT / "micrograd.py"
PUBLIC = ["Value", "Neuron", "Layer", "MLP", "softmax_ce", "graph_dot", "dot"]

SMOKE_TEST = """
import math, micrograd
from micrograd import Value, Neuron, Layer, MLP, softmax_ce, graph_dot
assert micrograd.__file__.startswith({folder!r}), micrograd.__file__
x = Value(3.0)
a = x * x
L = 2 * a + 3 * a
L.backward()
assert x.grad == 30
model = MLP(3, [4, 4, 1], seed=0)
assert len(model.parameters()) == 41
loss = softmax_ce([Value(1000.0), Value(1001.0), Value(999.0)], 1)
loss.backward()
assert "digraph" in graph_dot(loss)
print("ok")
"""


def test_committed_engine_is_exactly_the_tangled_chapters():
    on_disk = ENGINE.read_text(encoding="utf-8")
    assert not hand_edited(on_disk), "micrograd.py was edited by hand: edit the chapter instead"
    assert on_disk == tangle(ROOT / "docs"), (
        "micrograd.py is stale: run `python tools/tangle.py` and commit the result"
    )


def test_every_marker_points_at_the_chapter_line_that_follows_it():
    lines = ENGINE.read_text(encoding="utf-8").splitlines()
    markers = [
        (i, line.strip()) for i, line in enumerate(lines) if line.strip().startswith("# ---")
    ]
    assert len(markers) >= 10
    for i, marker in markers:
        place = marker.removeprefix("# --- ").removesuffix(" ---")
        chapter, line = place.rsplit(":", 1)
        chapter_lines = (ROOT / chapter).read_text(encoding="utf-8").splitlines()
        assert chapter_lines[int(line) - 1] == lines[i + 1], marker


def test_engine_imports_only_the_standard_library():
    tree = ast.parse(ENGINE.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative import in a single-file engine"
            imported.add(node.module.split(".")[0])
    assert imported, "found no imports at all: the check is looking at the wrong file"
    assert imported <= sys.stdlib_module_names, imported - sys.stdlib_module_names


def test_engine_parses_as_python_3_10():
    ast.parse(ENGINE.read_text(encoding="utf-8"), feature_version=(3, 10))


def test_public_api_is_exported():
    import micrograd

    for name in PUBLIC:
        assert hasattr(micrograd, name), name


def _oldest_supported_pythons():
    """This interpreter, plus a working Python 3.10 (the oldest supported) where installed."""
    candidates = [
        shutil.which("python3.10"),
        *Path.home().glob(".pyenv/versions/3.10*/bin/python3"),
    ]
    for candidate in filter(None, candidates):
        probe = [candidate, "-c", "import sys; print(sys.version_info[:2] == (3, 10))"]
        if subprocess.run(probe, capture_output=True, text=True).stdout.strip() == "True":
            return [sys.executable, str(candidate)]
    return [sys.executable]


@pytest.mark.parametrize("python", _oldest_supported_pythons())
def test_engine_works_copied_alone_into_an_empty_folder(tmp_path, python):
    shutil.copy(ENGINE, tmp_path / "micrograd.py")
    script = tmp_path / "smoke.py"
    script.write_text(SMOKE_TEST.format(folder=str(tmp_path)), encoding="utf-8")
    # -S: no site-packages (so not this project's install), -E: ignore PYTHON* variables.
    result = subprocess.run(
        [python, "-S", "-E", str(script)], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
    assert sorted(p.name for p in Path(tmp_path).iterdir() if p.suffix == ".py") == [
        "micrograd.py",
        "smoke.py",
    ]
