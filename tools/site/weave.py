"""The engines, woven: each engine file (micrograd.py, tensor.py) shown whole on a page of
its own, each chunk linked to the book, and who uses what.

Plain functions over tools/tangle.py and tools/chapter.py, called by the site pass (prepare.py):
``weave`` finds the engine's names and the chapters that use each, ``engine_page`` is the
page that shows the engine, ``used_in_html`` the line under each engine fence of a chapter.
"""

import ast
import html as html_text
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tools import ENGINE, ROOT
from tools.chapter import Chapter, chapter_number, chapters, fence_ticks, slugify
from tools.tangle import Tangled, defined, tangle_book

PAGE = "engine.md"  # the woven first engine's page, generated in the docs folder
TITLE = "The engine, woven"
INDEX = "Index of names"
# operator method -> the syntax that calls it: a binary operator's, reflected too (__radd__)
_BINARY = dict(add=ast.Add, sub=ast.Sub, mul=ast.Mult, truediv=ast.Div, matmul=ast.MatMult)
OPERATORS = {f"__{r}{name}__": op for name, op in _BINARY.items() for r in ("", "r")}
OPERATORS |= {"__pow__": ast.Pow, "__neg__": ast.USub}


@dataclass(frozen=True)
class Definition:
    name: str  # "dot", "Value", "Value.backward"
    chunk: int  # the chunk that defines it (an index into Tangled.chunks)
    line: int  # its line in micrograd.py
    used_in: tuple[Path, ...]  # the other chapters that use it, in reading order


def page_for(engine: str) -> str:
    """The woven page of ``engine``: engine.md for the first, tensor-engine.md for tensor.py."""
    return PAGE if engine == ENGINE else f"{Path(engine).stem}-{PAGE}"


@dataclass(frozen=True)
class Uses:
    """What the python fences of one chapter use, by name."""

    names: frozenset[str]  # read as a name, imported from the engine, or micrograd.<name>
    attributes: frozenset[str]  # read as .<attribute> of something not a module
    operators: frozenset[type]  # ast operator classes applied
    called: frozenset[str]  # names called: Value(...), model(...)
    instances: frozenset[tuple[str, str]]  # (name, class) for each name = Class(...)

    def use(self, name: str) -> bool:
        """Does this chapter use the engine's ``name`` ("dot", "Value", "Value.exp")?"""
        owner, _, method = name.rpartition(".")
        if not owner:
            return name in self.names
        if method == "__init__":
            return owner in self.called
        if method == "__call__":
            return any(cls == owner and name in self.called for name, cls in self.instances)
        if method in OPERATORS:
            return owner in self.names and OPERATORS[method] in self.operators
        return method in self.attributes


@dataclass(frozen=True)
class Woven:
    tangled: Tangled
    docs: Path
    chapters: list[Path]  # reading order
    titles: dict[Path, str]  # each chapter's first heading
    definitions: list[Definition]  # in the order of the engine file
    engine: str = ENGINE  # "micrograd.py", "tensor.py"

    @property
    def page(self) -> str:
        return page_for(self.engine)

    @property
    def title(self) -> str:
        return TITLE if self.engine == ENGINE else f"{self.engine}, woven"

    def defined_in(self, chunk: int) -> list[Definition]:
        return [d for d in self.definitions if d.chunk == chunk]

    def used_after(self, chunk: int) -> list[Path]:
        """Later chapters that use any name chunk ``chunk`` defines, in reading order."""
        users = {path for d in self.defined_in(chunk) for path in d.used_in}
        home = self.chapters.index(self.chapter_of(chunk))
        return [path for path in self.chapters[home + 1 :] if path in users]

    def chapter_of(self, chunk: int) -> Path:
        return self.tangled.chunks[chunk].fence.path

    def label(self, chapter: Path) -> str:
        """Short: "5" for 06-neuron-layer-mlp.md, "home" for index.md, "appendix" for
        appendix-making-it-fast.md (links carry the full title)."""
        if chapter_number(chapter) is not None:
            return str(chapter_number(chapter))
        return "home" if chapter.name == "index.md" else chapter.stem.split("-")[0]


def chapter_uses(chapter: Path, module: str = "micrograd") -> Uses | None:
    """Everything the python fences of ``chapter`` use of the engine ``module``, by name:
    ``Value`` or ``from micrograd import Value``; ``.backward`` (not on an imported module:
    ``math.exp`` is not ``Value.exp``); calls and operators. None if no fence imports
    ``module`` (chapter 1's ``.backward`` is torch's). Fences that do not parse are skipped."""
    every = [cell.fence.names for cell in Chapter.read(chapter).cells]
    every = [names for names in every if names.parses]
    if not any(module in {m.split(".")[0] for m in names.imports} for names in every):
        return None
    modules = set().union(*(names.modules for names in every))
    imported = {name for names in every for m, name in names.from_imports if m == module}
    bound = set().union(*(names.bound for names in every)) - imported
    names, attributes = set(imported), set()
    for fence in every:
        names |= {name for name in fence.loaded if name not in bound or name in imported}
        for on, attribute in fence.attributes:
            if on == module:
                names.add(attribute)
            elif on not in modules:
                attributes.add(attribute)
    return Uses(
        frozenset(names),
        frozenset(attributes),
        frozenset().union(*(names.operators for names in every)),
        frozenset().union(*(names.called for names in every)),
        frozenset().union(*(names.instances for names in every)),
    )


def weave(docs: Path, root: Path = ROOT, engine: str = ENGINE) -> Woven:
    """The ``engine`` tangled from ``docs``, with every name it defines and where it is used:
    in the chapters that import it."""
    tangled = tangle_book(docs, root, engine=engine)
    pages = chapters(docs)
    titles = {page: Chapter.read(page).title for page in pages}
    uses = {page: chapter_uses(page, Path(engine).stem) for page in pages}
    definitions = []
    public = [(name, node.lineno) for name, node in defined(tangled.text) if name[0] != "_"]
    for name, line in public:  # every public top-level name, and every method of a public class
        chunk = tangled.chunk_at(line)
        home = tangled.chunks[chunk].fence.path
        users = tuple(p for p in pages if p != home and uses[p] and uses[p].use(name))
        definitions.append(Definition(name, chunk, line, users))
    return Woven(tangled, docs, pages, titles, definitions, engine)


def _names(woven: Woven, chunk: int) -> list[str]:
    return [d.name for d in woven.defined_in(chunk)]


def engine_page(woven: Woven) -> str:
    """The Markdown of the woven engine's page; links are relative to the docs folder."""
    tangled = woven.tangled
    lines = [
        f"# {woven.title}",
        "",
        f"This is `{woven.engine}` whole, in order, as the tangler assembles it from the book.",
        "Above each chunk: the section of the book it comes from, and its lines in the file.",
        "Below it: the later chapters that use the names it defines. The",
        f"[index](#{slugify(INDEX)}) at the end lists every public name, and every method of",
        "the public classes, with where each is defined and where it is used.",
    ]
    previous = None
    for index, chunk in enumerate(tangled.chunks):
        chapter = chunk.fence.path
        if chapter != previous:
            lines += ["", f"## {woven.titles[chapter]}"]
            previous = chapter
        opening = not chunk.heading or chunk.heading.level == 1  # above the first section
        section = "The chapter's opening" if opening else chunk.heading.text
        part = f" ({chunk.part})" if chunk.part else ""
        target = chapter.name + (f"#{chunk.heading.anchor}" if chunk.heading else "")
        first, last = tangled.code_lines(index)
        names = ", ".join(f"`{name}`" for name in _names(woven, index)) or "nothing public"
        lines += [
            "",
            f"### [{section}]({target}){part}",
            "",
            f"`{woven.engine}` lines {first}-{last}; defines {names}.",
            "",
            f"{fence_ticks(chunk.code)}python",
            chunk.code.rstrip("\n"),
            fence_ticks(chunk.code),
            "",
            _used_after_markdown(woven, index),
        ]
    lines += [
        "",
        f"## {INDEX}",
        "",
        f"| name | defined in | line of `{woven.engine}` | used in chapters |",
        "|---|---|---|---|",
    ]
    for definition in sorted(woven.definitions, key=lambda d: d.name.lower()):
        chunk = tangled.chunks[definition.chunk]
        chapter = chunk.fence.path
        if chunk.heading and chunk.heading.level > 1:
            label = woven.label(chapter)
            where = f"{'chapter ' if label.isdigit() else ''}{label}: {chunk.heading.text}"
        else:
            where = woven.titles[chapter]
        anchor = f"#{chunk.heading.anchor}" if chunk.heading else ""
        where = f"[{where}]({chapter.name}{anchor})"
        users = ", ".join(_chapter_link(woven, page) for page in definition.used_in) or "-"
        lines.append(f"| `{definition.name}` | {where} | {definition.line} | {users} |")
    return "\n".join(lines) + "\n"


def _chapter_link(woven: Woven, chapter: Path) -> str:
    title = woven.titles[chapter].replace('"', "'")
    return f'[{woven.label(chapter)}]({chapter.name} "{title}")'


def _used_after_markdown(woven: Woven, chunk: int) -> str:
    users = woven.used_after(chunk)
    if not users:
        return "No later chapter uses these names."
    links = ", ".join(_chapter_link(woven, page) for page in users)
    return f"Used later in {_chapters(len(users))} {links}."


def _chapters(count: int) -> str:
    return "chapter" if count == 1 else "chapters"


def chunk_anchors(woven: Woven) -> list[str]:
    """The id of each chunk's heading on the engine page, in chunk order."""
    headings = Chapter.read(woven.docs / woven.page, engine_page(woven)).headings
    return [h.anchor for h in headings if h.level == 3]


def used_in_html(woven: Woven, chunk: int, href: Callable[[str, str], str], anchor: str) -> str:
    """The line under an engine fence: what it defines, and the later chapters that use it.

    ``href(page, anchor)`` is the URL of a docs page (e.g. "06-neuron-layer-mlp.md") and
    anchor ("" for the top) from the page being rendered; ``anchor`` is the chunk's id on
    its engine's page.
    """
    names = ", ".join(f"<code>{html_text.escape(n)}</code>" for n in _names(woven, chunk))
    users = [
        f'<a href="{html_text.escape(href(p.name, ""))}" '
        f'title="{html_text.escape(woven.titles[p])}">{html_text.escape(woven.label(p))}</a>'
        for p in woven.used_after(chunk)
    ]
    later = f"used later in {_chapters(len(users))} {', '.join(users)}" if users else ""
    said = [
        f"Defines {names}" if names else "Defines no public name",
        later or "no later chapter uses it",
        f'see it <a href="{html_text.escape(href(woven.page, anchor))}">in the whole engine</a>',
    ]
    return f'<p class="used-in">{"; ".join(said)}.</p>'
