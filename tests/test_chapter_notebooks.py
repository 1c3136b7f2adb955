"""A chapter as a Jupyter notebook (tools/site/notebooks.py), on the small book of
tests/helpers/book.py, whose class is split over engine fences: the site's test runs the
book's notebooks (tests/site/test_notebooks.py); this one edits and reruns a cell."""

import subprocess
import sys
from pathlib import Path

from tests.helpers import run_text
from tools.chapter import Chapter
from tools.site.notebooks import chapter_notebook, markdown_of

RUN = "import sys\nsys.path.insert(0, '')\nfor code in sys.argv[1:]:\n    exec(code, globals())\n"


def run(cells: list[str], folder) -> subprocess.CompletedProcess:
    """``cells`` run in order in one fresh Python with nothing but the standard library."""
    command = [sys.executable, "-I", "-S", "-c", RUN, *cells]
    return run_text(command, cwd=folder, timeout=60)


def test_engine_cells_grow_micrograd_py_in_place_and_a_rerun_replaces_its_chunk(book, tmp_path):
    docs, _ = book
    notebook = chapter_notebook(docs / "01-thing.md")
    code = [cell.source for cell in notebook.cells if cell.cell_type == "code"]
    _, thing, _, double, _ = code  # the first cell, the two checks
    assert thing.startswith("# micrograd.py") and "grow(0, r'''\nclass Thing:" in thing
    assert double.rstrip().endswith("return Thing(2 * self.n)\n''')"), double
    tripled = double.replace("2 * self.n", "3 * self.n")  # a reader's edit, run again
    done = run([*code, tripled, "assert Thing(2).double().n == 6, Thing(2).double().n"], tmp_path)
    assert done.returncode == 0, done.stderr
    engine = (tmp_path / "micrograd.py").read_text(encoding="utf-8")
    assert engine.count("def double") == 1 and "3 * self.n" in engine, engine
    assert engine.index("class Thing") < engine.index("def double"), engine


def test_a_later_chapter_starts_from_the_engine_the_chapters_before_built(book, tmp_path):
    docs, _ = book
    notebook = chapter_notebook(docs / "02-more.md")
    code = [cell.source for cell in notebook.cells if cell.cell_type == "code"]
    assert "def double(self):" in code[0], "the first cell lacks the first chapter's engine"
    done = run([*code, "assert quarter(Thing(8)).n == 2 and Thing(1).double().n == 2"], tmp_path)
    assert done.returncode == 0, done.stderr
    markdown = "".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    assert markdown.startswith("# More") and "## Halving" in markdown
    opening = notebook.cells[0]  # the title and prose first, the engine's set-up after them
    assert opening.cell_type == "markdown" and opening.source.startswith("# More"), opening


def test_a_markdown_cell_keeps_the_first_and_last_line_of_its_stretch():
    chapter = Chapter.read(Path("x.md"), "# T\n\nfirst\nlast\n```python\nx = 1\n```\n")
    assert markdown_of(chapter, 1, 4, {}) == "# T\n\nfirst\nlast"
