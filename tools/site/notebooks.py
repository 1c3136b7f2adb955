"""Each chapter as a Jupyter notebook, to take away and run with nothing but Python.

Made while the site is built (``NAME.ipynb`` beside ``NAME.html``), with nbformat, from the
one model of a chapter (tools/chapter.py): its prose as Markdown cells, its python fences
as code cells with the book's ```output blocks as their outputs, its figures inside the
Markdown (as data URLs: nothing to fetch). The first cell writes ``micrograd.py``, the
engine as the chapters before this one built it (tools/notebook.py's ``engine_before``,
joined by tools/page/kernel.py's ``Join``), beside the notebook; each engine fence of the
chapter becomes a cell that adds its code to that file in its place and imports the
engine afresh (``grow``), as a chapter runs in the book. Where the chapters use
``pytest.raises`` and pytest is not installed, the first cell gives them the page's own
(tools/page/pytest.py). A fence that needs more than Python (PyTorch, the repository's
files or tools: tools/notebook.py's ``needs``) is shown as code in a Markdown cell, with
what it needs, so that the notebook runs from top to bottom anywhere.
"""

import ast
import base64
import re
from pathlib import Path

import nbformat
from nbformat import v4

from tools import ENGINE, ENGINES, ROOT
from tools.chapter import Cell, Chapter, fence_ticks
from tools.notebook import blockers, engine_before
from tools.notebook import needs as page_needs
from tools.page.kernel import Join

SUFFIX = ".ipynb"
PYTEST = ROOT / "tools" / "page" / "pytest.py"  # the page's pytest.raises, standard library only
KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}
_CHAPTER_LINK = re.compile(r"(?P<stem>[\w.-]+)\.md(?P<anchor>#[\w-]*)?")


def notebook_name(chapter: Path) -> str:
    """The notebook's file name in the site: beside the chapter's page."""
    return chapter.stem + SUFFIX


def has_notebook(chapter: Path) -> bool:
    """Does the chapter get a notebook? One with python fences does (not the home page)."""
    return chapter.name != "index.md" and bool(Chapter.read(chapter).cells)


def code_cell(source: str, printed: str | None = None) -> dict:
    """A code cell, with what it printed as its output (nbformat checks the whole notebook
    once, in ``chapter_notebook``: checking each cell as it is made costs ten times more)."""
    outputs = [] if printed is None else [v4.new_output("stream", name="stdout", text=printed)]
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": outputs,
            "source": source}  # fmt: skip


def markdown_cell(source: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def needs(fence) -> tuple[str, str] | None:
    """What a fence needs that a notebook away from the book's repository cannot count on:
    what the page's Python lacks too (tools/notebook.py), said for a notebook."""
    found = page_needs(fence)
    return None if found is None else (found[0], "which needs more than Python alone")


def literal(text: str) -> str:
    """``text`` as a Python string literal a reader can read: r'''...''' where that gives
    ``text`` back, else repr."""
    candidate = f"r'''{text}'''"
    try:
        if ast.literal_eval(candidate) == text:
            return candidate
    except (SyntaxError, ValueError):
        pass
    return repr(text)


def setup_code(chapter: Chapter, before: dict[str, str], growing: bool) -> str:
    """The first cell: each engine file (``before``: name -> text) as the chapters before
    this one built it, and ``grow`` for the chapter's engine cells, if it has any."""
    lines = [
        f"# The literate micrograd, {chapter.title}: the chapter as a notebook. Run this",
        f"# cell first. It writes {' and '.join(before)} beside the notebook: the engine as",
        "# the chapters before this one built it, so that `from micrograd import ...` below",
        "# imports it. Nothing is fetched; Python alone runs every cell.",
        "import sys",
        "import types",
        "from pathlib import Path",
        "",
        f"BOOK_ENGINES = {{{', '.join(f'{k!r}: {literal(text)}' for k, text in before.items())}}}",
        "",
        "",
        f'def load(text, name="{ENGINE}"):',
        '    """Write the engine file ``name`` and import it afresh from its text (never from',
        '    a cache that an earlier version of the file left)."""',
        "    path = Path(name).resolve()",
        '    path.write_text(text, encoding="utf-8")',
        "    engine = types.ModuleType(path.stem)",
        "    engine.__file__ = str(path)",
        "    sys.modules[path.stem] = engine",
        "    try:",
        '        exec(compile(text, str(path), "exec"), vars(engine))',
        "    except BaseException:",
        "        del sys.modules[path.stem]",
        "        raise",
        "    return engine",
        "",
        "",
    ]
    if growing:
        lines += [
            "chunks = {}  # this chapter's engine cells that ran: (file, place) -> their code",
            "",
            "",
            f'def grow(place, code, name="{ENGINE}"):',
            '    """Put an engine cell\'s code in its place in its file (after the engine of',
            "    the chapters before, and this chapter's engine cells above it), import the",
            '    engine afresh, and take its names, as the book runs the chapter."""',
            '    chunks[name, place] = code.strip("\\n") + "\\n"',
            "    own = [chunks[k] for k in sorted(chunks) if k[0] == name]",
            '    engine = load(BOOK_ENGINES.get(name, "") + "".join(own), name)',
            "    names = vars(engine).items()",
            '    globals().update({k: v for k, v in names if not (k[:2] == "__" == k[-2:])})',
            "",
            "",
        ]
    lines += ["for name, text in BOOK_ENGINES.items():", "    load(text, name)"]
    return "\n".join(lines) + "\n"


def pytest_code() -> str:
    """The cell that gives the chapter's checks ``pytest.raises`` where pytest is not
    installed: the one the book's pages use."""
    return (
        "# The chapter's checks use pytest.raises. Without pytest installed, this cell\n"
        "# gives them the book's own, which its pages use (standard library only).\n"
        "try:\n"
        "    import pytest\n"
        "except ImportError:\n"
        "    import sys\n"
        "    import types\n"
        "\n"
        "    # Named in sys.modules first: its dataclass looks its module up there.\n"
        '    pytest = sys.modules["pytest"] = types.ModuleType("pytest")\n'
        f"    exec({literal(PYTEST.read_text(encoding='utf-8'))}, vars(pytest))\n"
    )


def engine_cell(place: int, code: str, name: str = ENGINE) -> str:
    """An engine fence as a cell: its code, added to its file (``name``) in its place."""
    file = "" if name == ENGINE else f", {name!r}"
    return (
        f"# {name}: this cell adds the book's code below to the file, in its place,\n"
        "# and imports the engine afresh (grow, from the first cell).\n"
        f"grow({place}, {literal(chr(10) + code + chr(10))}{file})"
    )


def markdown_of(chapter: Chapter, start: int, stop: int, unfold: dict[int, str | None]) -> str:
    """The chapter's lines ``start``..``stop`` (1-based, inclusive), with the fold tags of
    ``unfold`` replaced (a fold around a code cell cannot stay HTML: its summary becomes
    a bold line, its tags go)."""
    kept = [unfold.get(n, text) for n, text in enumerate(chapter.lines, 1) if start <= n <= stop]
    return "\n".join(text for text in kept if text is not None).strip("\n")


def _unfolded(chapter: Chapter) -> dict[int, str | None]:
    """Lines of the folds that hold a code cell, and what each becomes (None: dropped)."""
    lines: dict[int, str | None] = {}
    for fold in chapter.folds:
        if not any(fold.holds(cell.line) for cell in chapter.cells):
            continue
        lines[fold.line] = None
        if fold.summary_line:
            lines[fold.summary_line] = f"**{fold.summary}**"
        if fold.end:
            lines[fold.end] = None
    return lines


def _links(chapter: Chapter, docs: Path) -> dict[str, str]:
    """What each link and image of the chapter points to in a notebook: chapters to their
    notebooks (or their pages, if they have none), an engine file to the file the first
    cell writes, figures to themselves as data URLs."""
    targets = {}
    for token in chapter.tokens:
        for child in token.children or []:
            target = child.attrGet("href") or child.attrGet("src")
            if not isinstance(target, str) or "://" in target or target.startswith("#"):
                continue
            if target.endswith(".svg") and (docs / target).is_file():
                data = base64.b64encode((docs / target).read_bytes()).decode()
                targets[target] = f"data:image/svg+xml;base64,{data}"
            elif target in [f"../{name}" for name in ENGINES]:
                targets[target] = target.removeprefix("../")
            elif match := _CHAPTER_LINK.fullmatch(target):
                page = docs / f"{match['stem']}.md"
                suffix = SUFFIX if page.is_file() and has_notebook(page) else ".html"
                targets[target] = match["stem"] + suffix + (match["anchor"] or "")
    return targets


def _with_links(markdown: str, targets: dict[str, str]) -> str:
    for old, new in targets.items():
        markdown = markdown.replace(f"]({old})", f"]({new})")
    return markdown


def chapter_notebook(path: Path, docs: Path | None = None) -> nbformat.NotebookNode:
    """The chapter at ``path`` as a notebook (``docs``: the book, default its folder)."""
    docs = docs or path.parent
    chapter = Chapter.read(path)
    cells: list[Cell] = chapter.cells
    blocked = blockers([cell.fence for cell in cells], needs)
    engine_places = {c.line: k for k, c in enumerate(c for c in cells if c.fence.is_engine)}
    chunks = engine_before(path, docs)
    files = dict.fromkeys([ENGINE, *(chunk.file for chunk in chunks)])
    before = {name: Join([c for c in chunks if c.file == name], name).text for name in files}
    # The set-up cells wait for the first code cell: the notebook opens on the title and prose.
    setup = [code_cell(setup_code(chapter, before, bool(engine_places)))]
    if any("pytest" in c.fence.names.imports for c, why in zip(cells, blocked) if not why):
        setup.append(code_cell(pytest_code()))
    made: list[dict] = []
    unfold, targets = _unfolded(chapter), _links(chapter, docs)

    def prose(start: int, stop: int) -> None:
        text = _with_links(markdown_of(chapter, start, stop, unfold), targets)
        if text.strip():
            made.append(markdown_cell(text))

    line = 1  # the first line of the chapter not yet in a cell
    for cell, why in zip(cells, blocked):
        prose(line, cell.opening - 1)  # up to the fence's opening backticks
        code = cell.fence.code.removesuffix("\n")
        if why is not None:
            ticks = fence_ticks(code)
            shown = f"*Not a code cell here: {why}.*\n\n{ticks}python\n{code}\n{ticks}"
            if cell.output is not None:
                output = cell.output.code.removesuffix("\n")
                shown += f"\n\n{fence_ticks(output)}\n{output}\n{fence_ticks(output)}"
            made.append(markdown_cell(shown))
        elif cell.fence.is_engine:
            made.append(code_cell(engine_cell(engine_places[cell.line], code, cell.fence.engine)))
        else:
            made.append(code_cell(code, cell.output.code if cell.output else None))
        last = cell.output if cell.output is not None else cell.fence
        line = last.end + 1  # past its closing backticks
    prose(line, len(chapter.lines))
    first = next((i for i, c in enumerate(made) if c["cell_type"] == "code"), len(made))
    made[first:first] = setup
    for number, cell in enumerate(made):
        cell["id"] = f"{path.stem[:40]}-{number}"  # the same bytes on every build
    metadata = {"kernelspec": KERNEL, "language_info": {"name": "python"}}
    notebook = nbformat.from_dict(
        {"cells": made, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}
    )
    nbformat.validate(notebook)
    return notebook


def notebook_text(path: Path, docs: Path | None = None) -> str:
    """The chapter's notebook as the file's text."""
    return nbformat.writes(chapter_notebook(path, docs)) + "\n"


def link(chapter: Path) -> str:
    """The link to the chapter's notebook, under its title."""
    return (
        f'<p class="chapter-notebook"><a download href="{notebook_name(chapter)}">'
        "This chapter as a Jupyter notebook</a>: the engine as of this chapter travels "
        "inside it, so it runs in Jupyter, VS Code or Colab with nothing but Python.</p>"
    )
