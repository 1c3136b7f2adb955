"""Figures drawn from the reader's code: the Python the page runs for them (tools/page/live.py).

The page itself (Graphviz in WebAssembly, the figure replaced, the steps played) is tested
in Chromium by tests/site/test_live_figures.py; this file tests, in plain Python, what the
page's Python hands it, and that this Python can be loaded in the page at all.
"""

import io
import json
import zipfile
from pathlib import Path

import pytest

from tools import ROOT
from tools.chapter import Chapter
from tools.figures.from_chapters import FIGURES, namespaces, path
from tools.page import live, steps
from tools.page.svg import dot_for_graphviz
from tools.site.runtime import ENGINE_JSON, PAGE_ZIP, page_zip

GRAPHS = sorted(name for name, figure in FIGURES.items() if figure.graph)


@pytest.fixture(scope="module")
def at_figures() -> dict[str, dict]:
    """Each graph figure's chapter namespace, where the chapter shows it."""
    return {
        figure.name: dict(namespace)
        for figure, namespace in namespaces([FIGURES[name] for name in GRAPHS])
    }


def test_every_graph_figure_of_the_book_is_drawn_live_and_counted_right(at_figures):
    for name in GRAPHS:
        made = json.loads(live.figure(name, at_figures[name]))
        committed = path(name).read_text(encoding="utf-8")
        boxes = committed.count('class="node"')
        assert live.node_count(made["dot"]) == boxes, f"{name}: node_count is not the box count"
        assert made["too_big"] is None and boxes <= live.MAX_NODES
        assert made["dot"] == FIGURES[name].draw(at_figures[name])
        stepped = FIGURES[name].steps
        expected = stepped and steps.page_data(name, stepped(at_figures[name]), FIGURES[name].key)
        assert made["steps"] == (expected or None), f"{name}: not the build's step data"


def test_the_careless_walks_drawn_from_x_at_2_end_at_8_12_and_20(at_figures):
    namespace = dict(at_figures["03-careless-walk"])
    diamond = namespace["diamond"]
    namespace["diamond"] = lambda x_value=2.0: diamond(x_value)  # as a reader's edit would
    made = json.loads(live.figure("03-careless-walk", namespace))
    assert "x.grad = 20" in made["dot"] and "x.grad = 8" in made["dot"]
    last = made["steps"]["positions"][-1]["tracks"]
    assert [track["texts"][0][2] for track in last] == ["8", "12", "20"]


def test_a_figure_the_code_cannot_make_raises_and_a_plot_is_not_drawn_live(at_figures):
    namespace = dict(at_figures["03-careless-walk"])
    del namespace["diamond"]
    with pytest.raises(KeyError, match="diamond"):
        live.figure("03-careless-walk", namespace)
    with pytest.raises(ValueError, match="06-loss is not a graph"):
        live.figure("06-loss", {})


def _chain(length: int) -> str:
    from micrograd import Value, graph_dot

    total = Value(0.0)
    for k in range(length):
        total = total + Value(k)
    return graph_dot(total)


def test_a_graph_over_the_limit_says_its_size_and_one_within_it_is_drawn():
    most = (live.MAX_NODES - 1) // 2  # additions in a chain of 2 k + 1 nodes within the limit
    within = _chain(most)
    assert live.node_count(within) == 2 * most + 1 > live.MAX_NODES - 2
    assert live.too_big(within) is None
    said = live.too_big(_chain(most + 1))
    assert said.startswith(f"This graph has {2 * most + 3} nodes: the page draws graphs")
    assert f"at most {live.MAX_NODES}," in said


def test_printed_graphs_are_found_whole():
    chapter = Chapter.read(ROOT / "docs" / "08-drawing-the-graph.md")
    printed = next(
        cell.output.code for cell in chapter.cells if cell.output and "digraph" in cell.output.code
    )
    [graph] = live.printed_graphs(printed)
    assert graph == printed.strip() and live.node_count(graph) == 7
    assert live.printed_graphs(f"before\n{graph}\nbetween\n{graph}\n") == [graph, graph]
    assert live.printed_graphs(graph[:-1]) == []  # cut short: not a graph
    assert live.printed_graphs("print('digraph')") == []


def test_the_attributes_go_first_in_the_graph():
    dot = 'digraph G {\n  rankdir=LR;\n  n0 [label="x"];\n}'
    styled = dot_for_graphviz(dot)
    lines = styled.splitlines()
    assert lines[0] == "digraph G {" and lines[2:] == dot.splitlines()[1:]
    assert lines[1].strip() == (
        'graph [fontname="Helvetica", bgcolor="transparent"]; node [fontname="Helvetica"]; '
        'edge [fontname="Helvetica"];'
    )


def test_the_page_loads_the_files_the_site_ships():
    worker = (ROOT / "docs" / "assets" / "notebook" / "worker.js").read_text(encoding="utf-8")
    for name in (PAGE_ZIP, ENGINE_JSON):
        assert f'fetched("{Path(name).name}")' in worker, f"worker.js does not load {name}"


def test_the_page_gets_the_folder_of_its_python_whole_and_the_same_each_build():
    with zipfile.ZipFile(io.BytesIO(page_zip())) as archive:
        names = archive.namelist()
    folder = ROOT / "tools" / "page"
    expected = ["tools/__init__.py"]  # the package it is in
    expected += sorted(path.relative_to(ROOT).as_posix() for path in folder.rglob("*.py"))
    assert names == expected and "tools/page/live.py" in names
    assert page_zip() == page_zip()
