"""micrograd.py and tensor.py are the chapters' product: identical to the tangle, standalone,
stdlib-only."""

import ast
import re
import shutil
import sys
from pathlib import Path

import pytest

from tests.helpers import run_text
from tools import ENGINES, ROOT
from tools.chapter import Chapter, chapters
from tools.tangle import hand_edited, tangle, what_sync_does

ENGINE = ROOT / "micrograd.py"
FILES = [ROOT / name for name in ENGINES]  # every engine file: micrograd.py, tensor.py
MARK = "# --- "
MARKER = re.compile(
    r"# --- (?P<chapter>docs/[^#]+\.md)#(?P<anchor>\S+?)(, engine fence (?P<part>\d+))? ---"
)

SMOKE_TEST = """
import math, micrograd
from micrograd import Value, Neuron, Layer, MLP, dot, softmax_ce, graph_dot
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
assert dot([Value(2.0)], [3.0], Value(1.0)).data == 7.0 and Neuron and Layer
print("ok")
"""
TENSOR_SMOKE_TEST = """
import tensor
assert tensor.__file__.startswith({folder!r}), tensor.__file__
x = tensor.Tensor([[1.0, 2.0], [3.0, 4.0]])
tensor.cross_entropy(tensor.MLP(2, [3, 2], seed=0)(x @ x.T), [0, 1]).backward()
assert (x * x).sum().item() == 30 and x.grad.shape == (2, 2)
print("ok")
"""


@pytest.mark.parametrize("engine", FILES, ids=lambda path: path.name)
def test_committed_engine_is_exactly_the_tangled_chapters(engine):
    on_disk = engine.read_text(encoding="utf-8")
    tangled = tangle(ROOT / "docs", engine=engine.name)
    assert not hand_edited(on_disk), (  # the advice tangle gives: sync only if it will do it
        f"{engine.name} was edited since it was generated: "
        f"{what_sync_does(on_disk, tangled, engine.name)}"
    )
    assert on_disk == tangled, (
        f"{engine.name} is stale: run `python3 tools/dev.py tangle` and commit the result"
    )


@pytest.mark.parametrize("engine", FILES, ids=lambda path: path.name)
def test_every_marker_leads_to_the_one_chunk_whose_code_follows_it(engine):
    """A reader at a marker finds the chapter, the heading, then the Nth engine fence below it."""
    lines = engine.read_text(encoding="utf-8").splitlines()
    markers = [(i, line.strip()) for i, line in enumerate(lines) if line.strip().startswith(MARK)]
    assert len(markers) == len({m for _, m in markers}) >= 10, "markers should be distinct"
    found = []
    for i, marker in markers:
        match = MARKER.fullmatch(marker)
        assert match, f"micrograd.py:{i + 1}: {marker!r} is not `# --- chapter#anchor ---`"
        chapter = ROOT / match["chapter"]
        headings = Chapter.read(chapter).headings
        section = [h for h in headings if h.anchor == match["anchor"]]
        assert len(section) == 1, f"micrograd.py:{i + 1}: {marker}: no single such heading"
        below = [h.line for h in headings if h.line > section[0].line]
        end = below[0] if below else float("inf")
        fences = [
            f
            for f in Chapter.read(chapter).fences
            if f.engine == engine.name and section[0].line < f.line < end
        ]
        assert (match["part"] is None) == (len(fences) == 1), f"{marker}: {len(fences)} fences"
        fence = fences[int(match["part"] or 1) - 1]
        code = fence.code.rstrip("\n").split("\n")
        assert lines[i + 1 : i + 1 + len(code)] == code, f"micrograd.py:{i + 1}: {marker}"
        found.append(fence)
    engine_fences = [
        f
        for c in chapters(ROOT / "docs")
        for f in Chapter.read(c).fences
        if f.engine == engine.name
    ]
    assert found == engine_fences, "each engine fence should have exactly one marker, in order"


@pytest.mark.parametrize("engine", FILES, ids=lambda path: path.name)
def test_engine_imports_only_the_standard_library(engine):
    tree = ast.parse(engine.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative import in a single-file engine"
            imported.add(node.module.split(".")[0])
    assert imported, "found no imports at all: the check is looking at the wrong file"
    assert imported <= sys.stdlib_module_names, imported - sys.stdlib_module_names


def _oldest_supported_pythons():
    """This interpreter, plus a working Python 3.10 (the oldest supported) where installed."""
    candidates = [
        shutil.which("python3.10"),
        *Path.home().glob(".pyenv/versions/3.10*/bin/python3"),
    ]
    for candidate in filter(None, candidates):
        probe = [candidate, "-c", "import sys; print(sys.version_info[:2] == (3, 10))"]
        if run_text(probe).stdout.strip() == "True":
            return [sys.executable, str(candidate)]
    return [sys.executable]


@pytest.mark.parametrize("python", _oldest_supported_pythons())
@pytest.mark.parametrize("engine", FILES, ids=lambda path: path.name)
def test_engine_works_copied_alone_into_an_empty_folder(tmp_path, python, engine):
    shutil.copy(engine, tmp_path / engine.name)
    script = tmp_path / "smoke.py"
    smoke = SMOKE_TEST if engine == ENGINE else TENSOR_SMOKE_TEST
    script.write_text(smoke.format(folder=str(tmp_path)), encoding="utf-8")
    # -S: no site-packages (so not this project's install), -E: ignore PYTHON* variables.
    result = run_text([python, "-S", "-E", str(script)], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
    found = sorted(p.name for p in Path(tmp_path).iterdir() if p.suffix == ".py")
    assert found == sorted([engine.name, "smoke.py"])
