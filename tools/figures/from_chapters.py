"""Each figure drawn from its chapter's namespace where the chapter shows it, so it cannot
drift from what the chapter computes: the files in docs/figures/, recordings and nudges.
"""

import re
import shutil
import subprocess
import sysconfig
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

from tools import DOCS
from tools.chapter import Chapter
from tools.notebook import Notebook
from tools.page import steps
from tools.page.figures import FIGURES, Figure
from tools.page.svg import dot_for_graphviz, from_graphviz, unique_ids

FOLDER = DOCS / "figures"
NARROW = ".narrow"  # <name>.narrow.svg: the figure drawn again for a phone (narrow)
PHONE_COLUMN = 358  # px: the text column of a 390 px screen
# As a standalone file (GitHub, VS Code), the drawing's "current colour" is this, or the
# other in a dark scheme; inside a page, the page's text colour.
STANDALONE_STYLE = (
    "<style>svg.picture{color:#1f2328}"
    "@media (prefers-color-scheme: dark){svg.picture{color:#e6edf3}}</style>"
)


def path(name: str) -> Path:
    """The file of figure ``name``."""
    return FOLDER / f"{name}.svg"


def svg_from_dot(dot_text: str) -> str:
    """The DOT graph ``dot_text`` laid out by Graphviz, as inline SVG."""
    beside = Path(sysconfig.get_path("scripts")) / "graphviz-pure"  # this Python's, else PATH's
    graphviz = str(beside) if beside.exists() else shutil.which("graphviz-pure")
    if not graphviz:
        raise RuntimeError("graphviz-pure is not installed: pip install graphviz-pure")
    dot = dot_for_graphviz(dot_text)
    result = subprocess.run([graphviz, "-Tsvg"], input=dot, capture_output=True, text=True)
    if result.returncode != 0:
        raise ValueError(f"graphviz-pure could not draw this graph:\n{result.stderr}")
    return from_graphviz(result.stdout)


def standalone(svg: str, name: str) -> str:
    """The SVG as a file: with an XML namespace, ids of its own, and its own colours."""
    svg = unique_ids(svg, name)
    root = svg[: svg.index(">")]
    if 'xmlns="http://www.w3.org/2000/svg"' not in root:  # matplotlib and graphviz have it
        svg = svg.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1)
    head_end = svg.index(">") + 1
    return svg[:head_end] + STANDALONE_STYLE + svg[head_end:] + "\n"


def shown_at(figure: Figure) -> int:
    """The line of the figure's chapter that shows it: ![...](figures/<name>.svg)."""
    found = Chapter.read(DOCS / figure.chapter).figure_line(figure.name)
    if found is None:
        raise RuntimeError(f"docs/{figure.chapter} does not show figures/{figure.name}.svg")
    return found


def namespaces(figures: list[Figure]) -> Iterator[tuple[Figure, dict]]:
    """Each figure with its chapter's namespace as it stands where the chapter shows the
    figure: the fences above it have run, the ones below (exercises that reuse a name,
    say) have not. One run of each chapter serves all of its figures. Fences that need an
    optional module (PyTorch) do not run: a figure is the same with or without it."""
    for chapter in sorted({f.chapter for f in figures}):
        book = Notebook(DOCS / chapter, optional=False)
        for figure in sorted((f for f in figures if f.chapter == chapter), key=shown_at):
            line = shown_at(figure)
            book.run_until(sum(1 for cell in book.cells if cell.line < line))
            if book.failure:
                raise RuntimeError(f"cannot draw {figure.name}: {book.failure}")
            yield figure, book.namespace


def width(svg: str) -> float:
    """The drawn width of an SVG, in px."""
    found = re.search(r'<svg [^>]*?\bwidth="([\d.]+)(pt|px)?"', svg)
    return float(found[1]) * (4 / 3 if found[2] == "pt" else 1)


def narrow(dot_text: str, svg: str) -> str | None:
    """The graph drawn again for a phone, if the drawing ``svg`` of ``dot_text`` is wider
    than its column and another is much narrower: turned (left to right made top down, and
    back: Graphviz then stacks titled boxes that stood side by side), or, for boxes side by
    side, stacked (each box's last nodes tied to the next one's first by unseen arrows).
    The page shows it in place of the drawing on narrow screens (book.css)."""
    if width(svg) <= PHONE_COLUMN:
        return None
    turned = {"rankdir=LR": "rankdir=TB", "rankdir=TB": "rankdir=LR"}
    turn = re.sub(r"rankdir=(LR|TB)", lambda m: turned[m[0]], dot_text, count=1)
    boxes = re.findall(r"^  subgraph cluster_\d+ \{\n(.*?)^  \}$", dot_text, re.M | re.S)
    if "rankdir=LR" in turn and len(boxes) > 1:  # Graphviz stacks them bottom up: first on top
        whole = re.findall(r"^  subgraph cluster_\d+ \{\n.*?^  \}\n", turn, re.M | re.S)
        start, end = turn.index(whole[0]), turn.index(whole[-1]) + len(whole[-1])
        turn = turn[:start] + "".join(reversed(whole)) + turn[end:]
    dots = [turn]
    if "rankdir=TB" in dot_text and len(boxes) > 1:
        ends = []
        for box in boxes:
            nodes = re.findall(r"^\s*(\w+) \[", box, re.M)
            arrows = re.findall(r"(\w+) -> (\w+)", box)
            heads, tails = {b for _, b in arrows}, {a for a, _ in arrows}
            starts = [n for n in nodes if n not in heads]  # no arrow in
            ends.append((starts, [n for n in nodes if n not in tails]))  # and last: none out
        ties = [
            f"  {last} -> {first} [style=invis, weight=0];"
            for (_, lasts), (firsts, _) in pairwise(ends)
            for last in lasts
            for first in firsts
        ]
        dots.append(dot_text[: dot_text.rindex("}")] + "\n".join(ties) + "\n}")
    best = min((svg_from_dot(dot) for dot in dots), key=width)
    return best if width(best) <= 0.8 * width(svg) else None


def drawn(names: list[str] | None = None) -> dict[str, str]:
    """name -> the text its file should hold, for the given figures (default: all), and
    name + NARROW -> the same for a phone, for those drawn again for one (``narrow``)."""
    files = {}
    for figure, namespace in namespaces([FIGURES[n] for n in (names or FIGURES)]):
        drawing = figure.draw(namespace)
        svg = svg_from_dot(drawing) if figure.graph else drawing
        files[figure.name] = standalone(svg, figure.name)
        if figure.graph and (for_phone := narrow(drawing, svg)):
            files[figure.name + NARROW] = standalone(for_phone, figure.name)
    return files


def recorded(names: list[str] | None = None) -> dict[str, list[steps.Track]]:
    """name -> its step-through, for the given figures that have one (default: all)."""
    figures = [FIGURES[n] for n in (names or FIGURES) if FIGURES[n].steps]
    return {f.name: f.steps(ns) for f, ns in namespaces(figures)}


def nudged(names: list[str]) -> dict[str, dict]:
    """name -> its nudge control's data, for the given figures that have one."""
    figures = [FIGURES[n] for n in names if FIGURES[n].nudges]
    return {f.name: f.nudges(ns) for f, ns in namespaces(figures)}


def with_data_in(chapter: str) -> list[str]:
    """The figures of ``chapter`` whose page carries data for a control: steps, nudges."""
    return [n for n, f in FIGURES.items() if f.chapter == chapter and (f.steps or f.nudges)]
