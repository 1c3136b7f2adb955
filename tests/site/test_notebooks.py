"""Each chapter as a Jupyter notebook (tools/site/notebooks.py), taken away and run.

The site the session built holds NAME.ipynb beside each chapter page that has python
fences, linked from the page. Each one is run as a reader would run it elsewhere: in an
empty folder outside the repository, its code cells in order in one fresh Python process
with nothing but the standard library (``-I -S``: no site-packages, so no pytest and no
repository on the path; no Jupyter needed), and what each cell prints must be what the
book's ```output block under that fence shows, which the notebook carries as the cell's
output.
"""

import json
import re
import sys

import nbformat
import pytest

from tests.helpers import run_text
from tests.helpers.site import PAGES, url_path
from tools.chapter import Chapter
from tools.notebook import blockers
from tools.page.run import shown
from tools.site.notebooks import has_notebook, needs, notebook_name

NOTEBOOKS = [page for page in PAGES if has_notebook(page)]

# Run a notebook's code cells in order, as a kernel would (the working folder on the path);
# print, as JSON, what each printed and, for the first that raised, its traceback.
RUNNER = """
import contextlib, io, json, sys, traceback
sys.path.insert(0, "")
cells = json.load(open(sys.argv[1], encoding="utf-8"))["cells"]
namespace, ran = {"__name__": "__main__"}, []
for number, cell in enumerate(cells):
    if cell["cell_type"] != "code":
        continue
    out, error = io.StringIO(), None
    try:
        with contextlib.redirect_stdout(out):
            exec(compile("".join(cell["source"]), f"<cell {number}>", "exec"), namespace)
    except BaseException:
        error = traceback.format_exc()
    ran.append({"cell": number, "printed": out.getvalue(), "error": error})
    if error:
        break
sys.__stdout__.write(json.dumps(ran))
"""


def read(built_site, page) -> nbformat.NotebookNode:
    return nbformat.reads((built_site / notebook_name(page)).read_text(encoding="utf-8"), 4)


def test_each_chapter_with_fences_has_a_notebook_linked_from_its_page(built_site):
    assert len(NOTEBOOKS) >= 10, f"only {len(NOTEBOOKS)} chapters have notebooks"
    for page in PAGES:
        html = (built_site / url_path(page).lstrip("/")).read_text(encoding="utf-8")
        link = f'href="{notebook_name(page)}"'
        if page not in NOTEBOOKS:
            assert link not in html and not (built_site / notebook_name(page)).exists()
            continue
        assert link in html, f"{page.name}'s page does not link its notebook"
        notebook = read(built_site, page)  # nbformat checks it against the schema
        nbformat.validate(notebook)
        chapter = Chapter.read(page)
        cells = [
            c
            for c, why in zip(chapter.cells, blockers([c.fence for c in chapter.cells], needs))
            if not why
        ]
        experiments = [c for c in cells if not c.fence.is_engine]
        code = {cell.source: cell for cell in notebook.cells if cell.cell_type == "code"}
        first_code = next(cell for cell in notebook.cells if cell.cell_type == "code")
        opens = notebook.cells[0].cell_type == "markdown" and "micrograd.py" in first_code.source
        assert opens, f"{page.name}: not its title first and then the cell that sets up"
        for cell in experiments:
            found = code.get(cell.fence.code.removesuffix("\n"))
            assert found is not None, f"{page.name}:{cell.line}: no code cell holds this fence"
            outputs = "".join(o.text for o in found.outputs)
            assert outputs == (cell.output.code if cell.output else ""), (
                f"{page.name}:{cell.line}: the cell's output is not the book's ```output block"
            )
        engine = [c for c in notebook.cells if re.search(r"^grow\(", c.source, re.M)]
        assert len(engine) == sum(c.fence.is_engine for c in cells), page.name


@pytest.mark.parametrize("page", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_notebook_runs_alone_and_prints_the_books_outputs(built_site, tmp_path, page):
    notebook = read(built_site, page)
    result = run_text(
        [sys.executable, "-I", "-S", "-c", RUNNER, str(built_site / notebook_name(page))],
        cwd=tmp_path,  # an empty folder, outside the repository
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, f"{notebook_name(page)} did not run:\n{result.stderr}"
    ran = json.loads(result.stdout)
    code = [k for k, cell in enumerate(notebook.cells) if cell.cell_type == "code"]
    for run in ran:
        cell = notebook.cells[run["cell"]]
        where = f"{notebook_name(page)}, cell {run['cell']}:\n{cell.source[:300]}"
        assert run["error"] is None, f"{where}\nraised:\n{run['error']}"
        book = "".join(output.text for output in cell.outputs)
        assert shown(run["printed"]) == book, (
            f"{where}\nprinted {run['printed']!r}, the book shows {book!r}"
        )
    assert [run["cell"] for run in ran] == code, f"{notebook_name(page)}: not every cell ran"
    assert (tmp_path / "micrograd.py").is_file(), "the first cell wrote no micrograd.py"
