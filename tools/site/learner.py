"""Learner mode on the site: the chapter "Rebuild it yourself" holds an editor with the
skeleton, and Check runs the book's checks against it in the reader's browser
(tools/learn/in_page.py, in the page's Python). This file does the build's part: the
editor's place in the page, its data, and the book as one zip for the page's Python: the
chapters, the tools that tools/learn/in_page.py imports (found by reading their imports)
but page.zip, which it is unpacked beside, does not hold, and the pure-Python packages
tools/chapter.py parses Markdown with.
"""

import ast
import html
from pathlib import Path

from tools import DOCS, ENGINE, ROOT, relative
from tools.chapter import Chapter, chapters
from tools.learn.child import DEFAULT_TIMEOUT
from tools.learn.counted import engine_checks, engine_names
from tools.learn.places import chapters_named
from tools.learn.skeleton import skeleton
from tools.site.page_data import element as data_element
from tools.site.page_data import replace_paragraph
from tools.site.runtime import LEARNER_BUNDLE, page_files, zipped

PAGE = "16-rebuild-it-yourself.md"
# The placeholder: the paragraph of the chapter that starts with these words.
PLACEHOLDER = "On the book's site, this paragraph is an editor"
TIME_LIMIT = round(DEFAULT_TIMEOUT)  # seconds a chapter may run in the page, as in a terminal
IN_PAGE = "tools.learn.in_page"  # what the page's Python runs for learner mode
PACKAGES = ("markdown", "markdown_it", "mdurl")  # what tools/chapter.py imports, pure Python
PACKAGES_DIR = "packages"  # in the zip, beside tools/ and docs/


def _file(module: str) -> Path | None:
    """The file of a module of this repository (``tools.learn`` -> its __init__.py)."""
    path = ROOT / module.replace(".", "/")
    found = [p for p in (path.with_suffix(".py"), path / "__init__.py") if p.is_file()]
    return found[0] if found else None


def imported_by(module: str) -> list[str]:
    """The repository's files that ``module`` needs: itself, the packages it is in, and
    every module of the repository they import, at any depth, as paths from the root."""
    files, waiting = set(), [module]
    while waiting:
        name = waiting.pop()
        path = _file(name)
        if path is None or path in files:
            continue
        files.add(path)
        parts = name.split(".")
        waiting += [".".join(parts[:i]) for i in range(1, len(parts))]  # its packages
        package = name if path.name == "__init__.py" else ".".join(parts[:-1])
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                waiting += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package.rsplit(".", node.level - 1)[0] if node.level else ""
                base = ".".join(p for p in (base, node.module or "") if p)
                waiting += [base, *(f"{base}.{alias.name}" for alias in node.names)]
    return sorted(path.relative_to(ROOT).as_posix() for path in files)


# --- while the site is built ------------------------------------------------------------


def book_zip(docs: Path = DOCS) -> bytes:
    """The book as the page's Python needs it beside page.zip, which it is unpacked with
    (tools/site/runtime.py): chapters, the tools page.zip does not hold, their packages."""
    files = {f"docs/{chapter.name}": chapter.read_bytes() for chapter in sorted(docs.glob("*.md"))}
    shipped = set(page_files())
    tools = [name for name in imported_by(IN_PAGE) if name not in shipped]
    files.update({name: (ROOT / name).read_bytes() for name in tools})
    for package in PACKAGES:
        folder = Path(__import__(package).__file__).parent
        for path in sorted(folder.rglob("*.py")):
            name = f"{PACKAGES_DIR}/{package}/{path.relative_to(folder).as_posix()}"
            files[name] = path.read_bytes()
    return zipped(files)


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
    checked, names = chapters_named([], docs), engine_names(docs)
    offered = {c.name: bool(engine_checks(c, names)) for c in checked}  # the menu's: not ch. 1
    return {
        "skeleton": skeleton(docs),
        "chapters": [
            {"name": c.name, "title": Chapter.read(c).title, "offered": offered[c.name]}
            for c in checked
        ],
        "places": places,
        "engine": ENGINE,
    }


def learner_html(content: str, data: dict, assets: str) -> tuple[str, bool]:
    """The page's HTML with the placeholder paragraph replaced by the learner's place, and
    whether the placeholder was found. ``assets``: the site's assets/ folder from the page."""
    return replace_paragraph(
        content,
        PLACEHOLDER,
        lambda paragraph: (
            f'<div class="learner" data-limit="{TIME_LIMIT}" '
            f'data-bundle="{html.escape(assets)}/learner/book.zip">'
            f"{data_element(data, class_='learner-data')}"
            f"{paragraph}</div>"
            f'<link rel="stylesheet" href="{html.escape(assets)}/learner/learner.css">'
            f'<script src="{html.escape(assets)}/learner/learner.js"></script>'
        ),
    )


def install_bundle(site: Path, docs: Path = DOCS) -> None:
    """Write the book's zip into the built site."""
    target = site / LEARNER_BUNDLE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(book_zip(docs))
