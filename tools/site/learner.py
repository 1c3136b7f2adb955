"""Learner mode in the page: the chapter "Rebuild it yourself" holds an editor with the
skeleton, and Check runs the book's checks against it in the reader's browser.

The checks are tools/learn/'s, run by the same code as in a terminal: the page's Python
(Pyodide, in the worker of the page's Run buttons: docs/assets/notebook/worker.js) gets
the book itself as one zip, ``assets/learner/book.zip``, made while the site is built
(``book_zip``): the chapters, the tools that read and run them (tools/chapter.py,
notebook.py, kernel.py, tangle.py, learner.py and learn/, and this file), and the
pure-Python packages tools/chapter.py parses Markdown with, from the environment that
builds the site. What differs from a terminal is only what a browser lacks:

* no processes: each chapter runs in the worker (``check_in_page``), and the page ends
  the worker if a chapter outlasts its time limit (docs/assets/learner/learner.js);
  the function to fix is found in the worker too (``table_in_page``);
* no files or processes for the fences that need them (tools/site/fences.py): those
  checks are not run, and the table says how many.

While the site is built (``learner_html``), the chapter's placeholder paragraph, which
points VS Code and GitHub readers at the terminal, becomes the editor's place, with the
skeleton and where each chapter and section is on the site, for the table's links.
"""

from __future__ import annotations

import html
import io
import json
import os
import sys
import zipfile
from pathlib import Path

from tools import DOCS, ROOT, relative
from tools.chapter import Chapter, chapters
from tools.learn.child import DEFAULT_TIMEOUT, diagnosed, run_chapter
from tools.learn.diagnose import diagnosis
from tools.learn.places import chapters_named
from tools.learn.skeleton import skeleton
from tools.learn.table import chapter_result, progress_table
from tools.site.fences import blocked

PAGE = "15-rebuild-it-yourself.md"
# The placeholder: the paragraph of the chapter that starts with these words.
PLACEHOLDER = "On the book's site, this paragraph is an editor"
BUNDLE = "assets/learner/book.zip"  # in the built site
TIME_LIMIT = round(DEFAULT_TIMEOUT)  # seconds a chapter may run in the page, as in a terminal
ENGINE_NAME = "micrograd.py"  # the learner's file, as the table names it (and the download)
BOOK_TOOLS = (
    "tools/__init__.py",
    "tools/chapter.py",
    "tools/page/__init__.py",
    "tools/page/kernel.py",
    "tools/page/run.py",
    "tools/learner.py",
    *(f"tools/learn/{path.name}" for path in sorted((ROOT / "tools" / "learn").glob("*.py"))),
    "tools/notebook.py",
    "tools/tangle.py",
    "tools/site/__init__.py",
    "tools/site/fences.py",
    "tools/site/learner.py",
)
PACKAGES = ("markdown", "markdown_it", "mdurl")  # what tools/chapter.py imports, pure Python
PACKAGES_DIR = "packages"  # in the zip, beside tools/ and docs/


# --- while the site is built ------------------------------------------------------------


def _add(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))  # the same bytes each build
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def book_zip(docs: Path = DOCS) -> bytes:
    """The book as the page's Python needs it: chapters, tools, and their packages."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for chapter in sorted(docs.glob("*.md")):
            _add(archive, f"docs/{chapter.name}", chapter.read_bytes())
        for name in BOOK_TOOLS:
            _add(archive, name, (ROOT / name).read_bytes())
        for package in PACKAGES:
            folder = Path(__import__(package).__file__).parent
            for path in sorted(folder.rglob("*.py")):
                name = f"{PACKAGES_DIR}/{package}/{path.relative_to(folder).as_posix()}"
                _add(archive, name, path.read_bytes())
    return out.getvalue()


def page_data(docs: Path, href) -> dict:
    """What the page's learner needs besides the zip: the skeleton, the chapters with checks
    (for the chapter menu), and every chapter's sections on the site (for the table's
    links); ``href(src, anchor)`` is a section's URL from the page."""
    places = {}
    for path in chapters(docs):
        chapter = Chapter.read(path)
        places[relative(path, docs.parent)] = {
            "url": href(path.name, ""),
            "title": chapter.title,
            "sections": {h.text: href(path.name, h.anchor) for h in chapter.headings},
        }
    checked = chapters_named([], docs)
    return {
        "skeleton": skeleton(docs),
        "chapters": [{"name": c.name, "title": Chapter.read(c).title} for c in checked],
        "places": places,
        "engine": ENGINE_NAME,
    }


def learner_html(content: str, data: dict, assets: str) -> tuple[str, bool]:
    """The page's HTML with the placeholder paragraph replaced by the learner's place, and
    whether the placeholder was found. ``assets``: the site's assets/ folder from the page."""
    from tools.site.page_data import element as data_element  # the build's only: not in the zip

    start = content.find(f"<p>{PLACEHOLDER}")
    if start < 0:
        return content, False
    end = content.index("</p>", start) + len("</p>")
    place = (
        f'<div class="learner" data-limit="{TIME_LIMIT}" '
        f'data-bundle="{html.escape(assets)}/learner/book.zip">'
        f"{data_element(data, class_='learner-data')}"
        f"{content[start:end]}</div>"
        f'<link rel="stylesheet" href="{html.escape(assets)}/learner/learner.css">'
        f'<script src="{html.escape(assets)}/learner/learner.js"></script>'
    )
    return content[:start] + place + content[end:], True


def install_bundle(site: Path, docs: Path = DOCS) -> None:
    """Write the book's zip into the built site."""
    target = site / BUNDLE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(book_zip(docs))


# --- in the page's Python (the zip unpacked, its folder and packages/ on sys.path) -------


def _blocked(chapter: Path) -> frozenset[int]:
    """The cells of ``chapter`` that the page's Python cannot run (tools/site/fences.py)."""
    cells = Chapter.read(chapter).cells
    return frozenset(i for i, why in enumerate(blocked([c.fence for c in cells])) if why)


WORKING = "/tmp/learner"  # in the page's Python: where the learner's micrograd.py is written


def _engine_file(engine: str, folder: str) -> Path:
    """Write the learner's engine where the checks import it from: ``micrograd.py`` in
    ``folder``, made the working folder, so that messages name it as the learner does."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if Path.cwd() != folder:
        sys.path.insert(0, os.getcwd())  # the page's own Python files stay importable
        os.chdir(folder)
    path = Path(ENGINE_NAME)
    path.write_text(engine, encoding="utf-8")
    return path


def check_in_page(name: str, engine: str, tell, folder: str = WORKING) -> None:
    """Run chapter ``name`` against the engine's text, calling ``tell(json_text)`` per event
    (tools/learn/child.py's ``run_chapter``)."""
    chapter = DOCS / name
    run_chapter(
        chapter,
        _engine_file(engine, folder),
        lambda **event: tell(json.dumps(event)),
        skip=_blocked(chapter),
    )


def table_in_page(runs: str, engine: str, diagnose: bool, folder: str = WORKING) -> str:
    """The table `learn` prints for the chapters run so far: ``runs`` is JSON, a list of
    {"chapter": name, "events": [...], "stopped": why or null}. With ``diagnose``, the
    function to fix is found first (rerunning the failing chapter, in this process)."""
    path = _engine_file(engine, folder)
    results = []
    for run in json.loads(runs):
        chapter = DOCS / run["chapter"]
        events, stopped = run["events"], run["stopped"]
        results.append(chapter_result(chapter, events, stopped, _blocked(chapter)))
    if diagnose:

        def find(chapter: Path, index: int) -> str | None:
            return diagnosis(chapter, path, index)

        results = diagnosed(results, path, DEFAULT_TIMEOUT, find=find)
    return progress_table(results, ENGINE_NAME)
