"""Where things are in the book, for a learner: the section of a line, the section that
builds each function of the engine, the sections that show its mistakes, chapters by number.
"""

import ast
import functools
import textwrap
import threading
from dataclasses import dataclass
from pathlib import Path

from tools import DOCS, ENGINE, ROOT, relative
from tools.chapter import Chapter, chapter_number, chapters, is_python
from tools.tangle import defined, tangle_book

# CPython 3.11's ast.parse can fail in two threads at once ("AST constructor recursion
# depth mismatch"), and child.check() runs chapters from threads: the parsing takes turns
# (reentrant: one such function may call another).
_PARSING = threading.RLock()


def one_at_a_time(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with _PARSING:
            return function(*args, **kwargs)

    return wrapper


def heading_above(chapter: Path, line: int) -> str:
    """The section a line of a chapter is in: the text of the nearest heading above it."""
    heading = Chapter.read(chapter).section_of(line)
    return heading.text if heading else ""


def where_in_book(chapter: Path, line: int) -> str:
    """docs/02-the-value-atom.md, section 'Five fields' (page '2. The Value atom')"""
    heading, title = heading_above(chapter, line), Chapter.read(chapter).title  # as navigated
    section = "" if heading == title else f", section '{heading}'"
    return f"{relative(chapter, ROOT)}{section} (page '{title}')"


@dataclass(frozen=True)
class Definition:
    """Where the book's engine defines one function or class-level name."""

    name: str  # qualified: Value.__mul__, Value.__rmul__, dot
    source: str  # its statement (decorators included), dedented
    chapter: Path  # the chapter whose engine fence holds it
    line: int  # the fence's first line in the chapter


@one_at_a_time
@functools.lru_cache(maxsize=8)
def book_definitions(docs: Path = DOCS, engine: str = ENGINE) -> dict[str, Definition]:
    """Every function and method of the engine file the chapters build (``engine``), and
    every class-level alias (``__rmul__ = __mul__``), by qualified name: the tangle maps
    each to its chunk."""
    tangled = tangle_book(docs, root=docs.resolve().parent, engine=engine)
    lines, found = tangled.text.splitlines(keepends=True), {}
    for name, node in defined(tangled.text):
        if "." in name or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            source = textwrap.dedent("".join(lines[first - 1 : node.end_lineno]))
            chunk = tangled.chunks[tangled.chunk_at(node.lineno)]
            found[name] = Definition(name, source, chunk.fence.path, chunk.fence.line)
    return found


def chapters_named(names: list[str], docs: Path = DOCS) -> list[Path]:
    """Chapters by number ("2" or "02") or by the start of the file name ("appendix"), in
    reading order; all chapters with checks if ``names`` is empty."""
    every = [c for c in chapters(docs) if Chapter.read(c).cells and c.name != "index.md"]
    if not names:
        return every
    wanted = set()
    for name in names:
        matches = {
            c
            for c in every
            if (chapter_number(c) == int(name) if name.isdigit() else c.name.startswith(name))
        }
        if not matches:
            numbers = [n for n in map(chapter_number, every) if n is not None]
            raise ValueError(
                f"no chapter {name!r} with checks in {relative(docs, ROOT)}: give a chapter's "
                f"number, {min(numbers)} to {max(numbers)}, or the start of its file name, "
                f"such as --chapter {every[-1].name.split('-')[0]}"
            )
        wanted |= matches
    return [c for c in every if c in wanted]


@one_at_a_time
@functools.lru_cache(maxsize=64)
def section_showing(code: str, docs: Path = DOCS) -> str | None:
    """Where the book shows a piece of ``code`` (the first python fence holding it, in
    reading order), as the table names places; None if no fence does. Found by the code,
    not by a heading's name, so a renamed or moved section is found still."""
    for path in chapters(docs):
        for fence in Chapter.read(path).fences:
            if is_python(fence.info) and code in fence.code:
                return where_in_book(path, fence.line)
    return None
