"""What the page's worker (docs/assets/notebook/worker.js) calls: JSON in, JSON out.

The chapter's Notebook (tools/page/run.py) made from its page's fence data and
``engine.json``, run as the reader asks, each event told as JSON text, checked against
tools/page/protocol.py on the way in and out. Standard library only: this file runs in the
reader's browser (tools/page/).
"""

import json
import random
from collections.abc import Callable

from .kernel import ENGINE, Chunk, Join
from .protocol import check
from .run import Cell, Notebook

REMEDY = "This run's output is shown above, the book's is folded below it."


def chunks(engine: str) -> list[Chunk]:
    """The book's engine chunks, from engine.json's text."""
    return [Chunk(**c) for c in json.loads(engine)]


def finished_engine(engine: str, module: str = ENGINE):
    """A whole engine (the first, or ``tensor``), as a module: what `import micrograd` gives
    outside a chapter's fences."""
    file = f"{module}.py"
    return Join([c for c in chunks(engine) if c.file == file], file, file, module).module()


def open_chapter(page: str, engine: str) -> Notebook:
    """A chapter's Notebook, from its page's fence data and engine.json (both JSON text)."""
    data = check("chapter page", json.loads(page))
    cells = [Cell(**fence) for fence in data["fences"]]
    figures = [(f["name"], f["line"]) for f in data["figures"]]
    before = chunks(engine)[: data["engine_before"]]
    return Notebook(data["chapter"], cells, before, figures, remedy=REMEDY)


def run(notebook: Notebook, target: int, codes: str, all: bool, tell: Callable[[str], object]):
    """Run the chapter as the reader asked (``codes``: JSON, the code of each cell the
    reader edited, by index), each event told as JSON text."""
    edited = {int(index): code for index, code in json.loads(codes).items()}

    def told(event: dict) -> None:
        tell(json.dumps(check("run event", event)))

    notebook.run(target, edited, all=all, tell=told)


def after_restore() -> None:
    """A Python restored from a memory snapshot (docs/assets/notebook/worker.js) holds the
    state of the start it was made from: the standard library's generator would give every
    restore the same numbers. Seed it from the system, as a fresh start does."""
    random.seed()
