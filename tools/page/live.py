"""Figures drawn in the page from the reader's own code: the Python side, run in the page.

The same functions that drew the committed figures (graphs.py, steps.py) draw them again
from the reader's namespace; Graphviz, in the page, lays out the DOT this module hands it
(docs/assets/notebook/worker.js), and ``finished`` gives its SVG the book's look. A graph
of more than ``MAX_NODES`` boxes is not drawn: the reader is told its size instead.
"""

import json
import re

from . import graphs, steps  # noqa: F401 (graphs registers the graph figures)
from .figures import FIGURES
from .svg import dot_for_graphviz, from_graphviz, unique_ids  # noqa: F401 (worker.js calls it)

MAX_NODES = 150  # boxes; every figure of the book has far fewer (tests/test_live.py)
_GRAPH = re.compile(r"^digraph\b[^\n{]*\{\n.*?^\}$", re.DOTALL | re.MULTILINE)
_NODE = re.compile(r"^\s*(?!(?:node|edge|graph)\b)\w+\s*\[", re.MULTILINE)  # `n3 [label=...]`


def node_count(dot: str) -> int:
    """How many boxes the DOT text declares (one ``name [...]`` statement each)."""
    return len(_NODE.findall(dot))


def too_big(dot: str) -> str | None:
    """Why the page does not draw ``dot``, or None if it does."""
    count = node_count(dot)
    if count <= MAX_NODES:
        return None
    return (
        f"This graph has {count:,} nodes: the page draws graphs of at most {MAX_NODES}, "
        "beyond which the boxes are too small to read and the layout takes seconds. "
        "Draw a smaller part of it (one neuron, say), or the whole with Graphviz on your "
        "machine (`dot -Tsvg`)."
    )


def printed_graphs(text: str) -> list[str]:
    """The DOT graphs in what a fence printed, whole (``digraph ... {`` to ``}``)."""
    return _GRAPH.findall(text)


def figure(name: str, namespace: dict) -> str:
    """What the page needs to draw figure ``name`` again from ``namespace`` (the state
    where the chapter shows it), as JSON: its DOT, and its step data or null."""
    drawn = FIGURES[name]
    if not drawn.graph:
        raise ValueError(f"figure {name} is not a graph: the page draws only graphs live")
    dot = drawn.draw(namespace)
    data = steps.page_data(name, drawn.steps(namespace), drawn.key) if drawn.steps else None
    return json.dumps({"dot": dot, "steps": data, "too_big": too_big(dot)})


def finished(svg: str, prefix: str) -> str:
    """Graphviz's SVG as the page shows a figure: the book's look, ids under ``prefix``
    (a figure's name, as in its committed file, so that its step data finds its boxes)."""
    return unique_ids(from_graphviz(svg), prefix)
