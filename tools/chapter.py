"""THE model of a chapter: one parse of a docs/*.md file, read by every tool.

A chapter is CommonMark (as VS Code's preview and GitHub read it) parsed once with
markdown-it-py; its fences, headings (with the site's anchors), cells, generated blocks,
prose, and each fence's names, all come from that parse. Nothing else parses
Markdown; this module imports neither pytest nor mkdocs.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import itertools
import os
import re
import secrets
import shutil
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from markdown.extensions.toc import slugify as _toc_slugify
from markdown.extensions.toc import unique as _toc_unique
from markdown_it import MarkdownIt

from tools import ENGINES, relative

PYTHON_LANGS = ("python", "py", "python3")  # the first words pytest-markdown-docs runs
OUTPUT = "output"  # the info string of a fence that holds what the python fence above printed
# A block written by a tool, in a chapter: the steps of a figure's backward pass as a table,
# between these two comments (written by tools/figures/step_tables.py, checked by test_steps.py).
GENERATED_OPEN = re.compile(r"<!-- steps of figures/(?P<name>[\w-]+)\.svg\b.*-->")
GENERATED_CLOSE = "<!-- end of steps -->"
_DETAILS = re.compile(
    r"(?P<open><details\b)|(?P<close></details>)|<summary>(?P<summary>.*?)</summary>"
)
_CLOSES = re.compile(r"</details>")
# A folded block of hints for learner mode, right after the engine fence it helps with (and
# the fences and folded blocks that go with it, if any): <details markdown="1"> with this
# summary, then a list, an item per function of that fence,
# "- `Value.tanh`: the rule in words", with a link to a worked example where there is one.
HINTS = "Hints, if you rebuild it"
_SUMMARY = re.compile(r"<summary>(.*?)</summary>", re.S)
_HINT_ITEM = re.compile(r"`(?P<name>[\w.]+)`:\s*(?P<text>.*)", re.S)
_TITLE = re.compile(r"""\btitle=(?:"([^"]*)"|'([^']*)'|(\S+))""")


def is_python(info: str) -> bool:
    """Is this fence info string one that runs as Python?"""
    return (info.split() or [""])[0] in PYTHON_LANGS


def engine_of(info: str) -> str:
    """The engine file this fence is a chunk of (python titled "micrograd.py", say), or ""."""
    match = _TITLE.search(info)
    titles = match.groups() if match and is_python(info) else ()
    return next((name for name in ENGINES if name in titles), "")


def slugify(text: str) -> str:
    """A heading's id as the site makes it (Python-Markdown's toc extension)."""
    return _toc_slugify(text, "-")


@dataclass(frozen=True)
class Fence:
    path: Path  # the chapter
    line: int  # 1-based line of the first line of code (just below the opening backticks)
    info: str
    code: str
    folded: bool = False  # inside a <details> block
    summary: str = ""  # the <summary> of the innermost <details> block it sits in

    @property
    def opening(self) -> int:
        """The line of the opening backticks (1-based): where a reader finds the fence."""
        return self.line - 1

    @property
    def end(self) -> int:
        """The line of the closing backticks (1-based)."""
        return self.line + self.code.count("\n")

    @property
    def is_python(self) -> bool:
        return is_python(self.info)

    @property
    def is_engine(self) -> bool:
        """Is it a chunk of an engine file (one of tools.ENGINES)?"""
        return bool(self.engine)

    @property
    def engine(self) -> str:
        """The engine file it is a chunk of, or "" (tools.ENGINES)."""
        return engine_of(self.info)

    @functools.cached_property
    def names(self) -> Names:
        return Names.of(self.code)

    @functools.cached_property
    def steps(self) -> tuple[Names, ...]:
        """The names of each top-level statement, in the order they run (empty if the
        code does not parse). A ``def`` or ``class`` is one step whose ``defines`` is the
        name it binds; what its body uses is in its ``free`` names."""
        code = textwrap.dedent(self.code)
        try:
            tree = ast.parse(code)
        except SyntaxError:
            return ()
        lines = code.encode().splitlines(keepends=True)  # ast's offsets count UTF-8 bytes
        return tuple(Names.of(_segment(lines, node)) for node in tree.body)


def _segment(lines: list[bytes], node: ast.stmt) -> str:
    """``node``'s source text, as ast.get_source_segment gives it, from its code's ``lines``
    split once (that function splits the whole code again at each call)."""
    taken = lines[node.lineno - 1 : node.end_lineno]
    taken[-1] = taken[-1][: node.end_col_offset]
    taken[0] = taken[0][node.col_offset :]
    return b"".join(taken).decode()


@dataclass(frozen=True)
class Hint:
    """One item of a block of hints (``HINTS``): a function of the engine, and what to know."""

    path: Path  # the chapter
    name: str  # the function, qualified as the engine names it: Value.tanh, dot
    text: str  # the rule in words, Markdown, without the name (a link kept as written)
    line: int  # 1-based line of the item
    fence: Fence | None  # the last engine fence above the block (None: there is none)
    links: tuple[str, ...] = ()  # the targets of its links: "#anchor", "other.md#anchor"


@dataclass(frozen=True)
class Heading:
    line: int  # 1-based
    level: int  # 1 for #, 2 for ##, ...
    text: str  # as a reader sees it: `code` and *emphasis* marks removed
    anchor: str  # its id on the site


@dataclass(frozen=True)
class Cell:
    """A python fence, the ```output block right below it (if any), and where it is."""

    fence: Fence
    output: Fence | None
    section: Heading | None  # the nearest heading above it
    place: int  # its number among the python fences of its section, from 1

    @property
    def line(self) -> int:
        return self.fence.line

    @property
    def opening(self) -> int:
        """The line of the fence's opening backticks."""
        return self.fence.opening

    @property
    def end(self) -> int:
        """The line of the closing backticks of the fence (not of its output block)."""
        return self.fence.end

    @property
    def name(self) -> str:
        """Its name in the chapter, kept by edits elsewhere: ``anchor[N]`` or
        ``anchor[engine-N]``, N its place among its section's python fences."""
        anchor = self.section.anchor if self.section else "top"
        kind = "engine-" if self.fence.is_engine else ""
        return f"{anchor}[{kind}{self.place}]"


@dataclass(frozen=True)
class Fold:
    """A ``<details>`` block: where it opens and closes, and its summary."""

    line: int  # 1-based line of ``<details``
    end: int  # 1-based line of ``</details>`` (0: there is none)
    summary: str  # the text of its ``<summary>``, as written
    summary_line: int  # 1-based line of its ``<summary>`` (0: it has none)

    def holds(self, line: int) -> bool:
        """Is ``line`` inside the block (between its opening and closing tags)?"""
        return self.line < line and (self.end == 0 or line < self.end)


@dataclass(frozen=True)
class Generated:
    """A block a tool wrote into the chapter, between GENERATED_OPEN and GENERATED_CLOSE."""

    name: str  # what it is of: the figure's name
    line: int  # 1-based line of the opening comment
    end: int  # 1-based line of the closing comment (0: there is none)
    text: str  # the lines between the two comments, as written


@dataclass(frozen=True)
class Names:
    """What one fence's code binds and uses, from a single walk of its syntax tree."""

    parses: bool = True
    bound: frozenset[str] = frozenset()  # assigned, defined, an argument, or imported
    loaded: frozenset[str] = frozenset()  # read as a name
    modules: frozenset[str] = frozenset()  # bound by `import x`
    imports: tuple[str, ...] = ()  # modules imported, dotted (".x" for a relative import)
    from_imports: frozenset[tuple[str, str]] = frozenset()  # (module, name): from module import
    attributes: frozenset[tuple[str | None, str]] = frozenset()  # (the name it is on, .attr)
    operators: frozenset[type] = frozenset()  # ast operator classes applied
    called: frozenset[str] = frozenset()  # names called: Value(...), model(...)
    calls: tuple[str, ...] = ()  # every function or method name called, in the order found
    instances: frozenset[tuple[str, str]] = frozenset()  # (name, class) for name = Class(...)
    defines: str | None = None  # the name, if the code is one `def` or `class` statement
    changed: frozenset[str] = frozenset()  # x in x.f(...), x.a = ..., x[i] = ...: x may change

    @property
    def free(self) -> frozenset[str]:
        """Names it reads without binding them itself."""
        return self.loaded - self.bound

    @classmethod
    @functools.lru_cache(maxsize=4096)
    def of(cls, code: str) -> Names:
        """The names of ``code`` (a method alone is dedented first); ``parses`` False if
        it is not valid Python."""
        try:
            tree = ast.parse(textwrap.dedent(code))
        except SyntaxError:
            return cls(parses=False)
        bound, loaded, modules, imports, from_imports = set(), set(), set(), [], set()
        attributes, operators, called, calls, instances = set(), set(), set(), {}, set()
        changed = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                bound.add(node.name)
            elif isinstance(node, ast.arg):
                bound.add(node.arg)
            elif isinstance(node, ast.Import):
                imports += [alias.name for alias in node.names]
                modules |= {(a.asname or a.name).split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                imports.append("." * node.level + (node.module or ""))
                if node.module and node.level == 0:
                    from_imports |= {(node.module, alias.name) for alias in node.names}
            elif isinstance(node, ast.Attribute):
                on = node.value.id if isinstance(node.value, ast.Name) else None
                attributes.add((on, node.attr))
            if isinstance(node, ast.alias):
                bound.add((node.asname or node.name).split(".")[0])
            if isinstance(node, ast.BinOp | ast.AugAssign) or (
                isinstance(node, ast.UnaryOp) and not isinstance(node.operand, ast.Constant)
            ):  # -1.0 is a number, not a negation
                operators.add(type(node.op))
            if isinstance(node, ast.Call):
                function = node.func
                if isinstance(function, ast.Name):
                    called.add(function.id)
                    calls[function.id] = None
                elif isinstance(function, ast.Attribute):
                    calls[function.attr] = None
                    if isinstance(function.value, ast.Name):
                        changed.add(function.value.id)
            stored = isinstance(node, ast.Attribute | ast.Subscript) and not isinstance(
                node.ctx, ast.Load
            )
            if stored and isinstance(node.value, ast.Name):
                changed.add(node.value.id)
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                kind = getattr(node.value.func, "id", None)
                instances |= {(t.id, kind) for t in node.targets if isinstance(t, ast.Name)}
        definition = tree.body[0] if len(tree.body) == 1 else None
        kinds = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
        return cls(
            True,
            *map(frozenset, (bound, loaded, modules)),
            tuple(imports),
            *map(frozenset, (from_imports, attributes, operators, called)),
            tuple(calls),
            frozenset(instances),
            definition.name if isinstance(definition, kinds) else None,
            frozenset(changed),
        )


def markdown_parser() -> MarkdownIt:
    """The book's Markdown reader: CommonMark, as VS Code's preview and GitHub read it."""
    return MarkdownIt("commonmark")


@functools.lru_cache(maxsize=256)
def _tokens(text: str):
    return markdown_parser().parse(text)


@dataclass(frozen=True)
class Chapter:
    """One chapter, parsed once. ``Chapter.read(path)``; ``text`` stands in for the file."""

    path: Path
    text: str = field(repr=False)

    @classmethod
    def read(cls, path: Path, text: str | None = None) -> Chapter:
        return cls(path, path.read_text(encoding="utf-8") if text is None else text)

    @property
    def tokens(self) -> list:
        """The markdown-it tokens of the one parse (for checks of the Markdown itself)."""
        return _tokens(self.text)

    @property
    def lines(self) -> list[str]:
        """Its lines, split at "\\n" only, as Markdown counts them (str.splitlines would
        also split at a form feed or a line separator that a fence printed)."""
        return self.text.removesuffix("\n").split("\n") if self.text else []

    @functools.cached_property
    def fences(self) -> list[Fence]:
        """Every fenced code block, in order."""
        found, summaries = [], []  # the summary of each open <details>, innermost last
        for token in _tokens(self.text):
            if token.type in ("html_block", "html_inline"):
                for tag in _DETAILS.finditer(token.content):
                    if tag["open"]:
                        summaries.append("")
                    elif tag["close"]:
                        summaries = summaries[:-1]
                    elif summaries:
                        summaries[-1] = tag["summary"].strip()
            elif token.type == "fence" and token.map:
                line = token.map[0] + 2
                info, code = token.info.strip(), token.content
                inner = summaries[-1] if summaries else ""
                found.append(Fence(self.path, line, info, code, bool(summaries), inner))
        return found

    @functools.cached_property
    def folds(self) -> list[Fold]:
        """Every ``<details>`` block written as HTML blocks of their own, in the order
        they open (an outer block before the blocks inside it)."""
        found: list[Fold] = []
        open_: list[int] = []  # indices in ``found`` of the blocks not closed yet
        for token in _tokens(self.text):
            if token.type != "html_block" or not token.map:
                continue
            for tag in _DETAILS.finditer(token.content):
                line = token.map[0] + 1 + token.content.count("\n", 0, tag.start())
                if tag["open"]:
                    open_.append(len(found))
                    found.append(Fold(line, 0, "", 0))
                elif tag["close"] and open_:
                    k = open_.pop()
                    found[k] = dataclasses.replace(found[k], end=line)
                elif tag["summary"] is not None and open_ and not found[open_[-1]].summary_line:
                    k = open_[-1]
                    found[k] = dataclasses.replace(
                        found[k], summary=tag["summary"].strip(), summary_line=line
                    )
        return found

    @functools.cached_property
    def shown(self) -> list[int]:
        """The lines (1-based) a reader sees with every ``<details>`` block closed, as the
        site, VS Code's preview and GitHub first show the chapter: the non-blank lines of
        prose and code, and of output blocks; of a closed block, its summary alone (a block
        inside another shows nothing); not the backticks that open and close a fence, nor a
        block of HTML, such as a comment or a fold's own tags."""
        lines, hidden = self.lines, set()
        for fold in self.folds:
            end = fold.end or len(lines)
            hidden.update(range(fold.line, end + 1))
            if fold.summary_line and not any(o.holds(fold.line) for o in self.folds):
                hidden.discard(fold.summary_line)
        for fence in self.fences:
            hidden.update((fence.opening, fence.end))
        for token in _tokens(self.text):
            if token.type == "html_block" and token.map and not _SUMMARY.search(token.content):
                hidden.update(range(token.map[0] + 1, token.map[1] + 1))
        return [n for n, text in enumerate(lines, 1) if text.strip() and n not in hidden]

    @functools.cached_property
    def headings(self) -> list[Heading]:
        """Every heading, with the anchor the site gives it."""
        headings, taken = [], set()
        for opening, inline in itertools.pairwise(_tokens(self.text)):
            if opening.type == "heading_open" and opening.map:
                words = [
                    child.content
                    for child in inline.children or []
                    if child.type in ("text", "code_inline", "softbreak")
                ]
                plain = "".join(word or " " for word in words).strip()
                anchor = _toc_unique(slugify(plain), taken)
                headings.append(Heading(opening.map[0] + 1, int(opening.tag[1:]), plain, anchor))
        return headings

    @property
    def title(self) -> str:
        """The first heading's text, as the site's navigation shows it."""
        return self.headings[0].text if self.headings else self.path.stem

    def figure_line(self, name: str) -> int | None:
        """The first line (from 1) that shows figure ``name``: ![...](figures/<name>.svg)."""
        needle = f"(figures/{name}.svg)"
        return next((number for number, line in enumerate(self.lines, 1) if needle in line), None)

    def section_of(self, line: int) -> Heading | None:
        """The section ``line`` is in: the nearest heading above it."""
        return next((h for h in reversed(self.headings) if h.line < line), None)

    @functools.cached_property
    def cells(self) -> list[Cell]:
        """The python fences, each with the output block that follows it, in order."""
        fences, lines = self.fences, self.lines
        found, places = [], {}
        for i, fence in enumerate(fences):
            if not fence.is_python:
                continue
            after = fences[i + 1] if i + 1 < len(fences) else None
            adjacent = after is not None and all(
                not s.strip() for s in lines[fence.end : after.opening - 1]
            )
            output = after if adjacent and after.info == OUTPUT else None
            section = self.section_of(fence.line)
            places[section] = places.get(section, 0) + 1
            found.append(Cell(fence, output, section, places[section]))
        return found

    @property
    def engine_fences(self) -> list[Fence]:
        return [fence for fence in self.fences if fence.is_engine]

    def misplaced_outputs(self) -> list[int]:
        """Lines of the opening backticks of ```output fences not right below a python fence."""
        paired = {cell.output.line for cell in self.cells if cell.output}
        return [f.opening for f in self.fences if f.info == OUTPUT and f.line not in paired]

    @functools.cached_property
    def generated(self) -> list[Generated]:
        """The blocks tools wrote, in order. One without its closing comment has ``end`` 0
        and runs to the end of the chapter."""
        found, lines, opened = [], self.lines, None
        for token in _tokens(self.text):
            if token.type != "html_block" or not token.map:
                continue
            content = token.content.strip()
            match = GENERATED_OPEN.fullmatch(content)
            if match and opened is None:
                opened = (match["name"], token.map[0] + 1, token.map[1])
            elif content == GENERATED_CLOSE and opened is not None:
                name, line, after = opened
                text = "".join(f"{text}\n" for text in lines[after : token.map[0]])
                found.append(Generated(name, line, token.map[0] + 1, text))
                opened = None
        if opened is not None:
            name, line, after = opened
            found.append(Generated(name, line, 0, "".join(f"{t}\n" for t in lines[after:])))
        return found

    @functools.cached_property
    def hints(self) -> list[Hint]:
        """The items of the chapter's blocks of hints (``HINTS``), in order. An item that
        does not start with a function's name in backticks has the name "" (a test says
        where)."""
        found, lines, inside = [], self.lines, False
        for token in _tokens(self.text):
            if token.type == "html_block" and token.map:
                summary = _SUMMARY.search(token.content)
                if summary and summary[1].strip() == HINTS:  # about the last engine fence above
                    engine = [f for f in self.engine_fences if f.opening <= token.map[0]]
                    inside, above = True, (engine[-1] if engine else None)
                elif _CLOSES.search(token.content):
                    inside = False
            elif inside and token.type == "inline" and token.map:
                written = lines[token.map[0] : token.map[1]]
                source = " ".join(part.strip() for part in written).removeprefix("- ")
                item = _HINT_ITEM.fullmatch(source)
                links = tuple(
                    c.attrs["href"] for c in token.children or [] if c.type == "link_open"
                )
                name, text = (item["name"], item["text"].strip()) if item else ("", source)
                found.append(Hint(self.path, name, text, token.map[0] + 1, above, links))
        return found

    @functools.cached_property
    def prose(self) -> list[tuple[int, str]]:
        """Each block of prose (paragraph, list item, table cell row, heading) as its first
        line (1-based) and its source lines. Generated blocks are not prose: a tool wrote
        them, and their check compares them with what the tool writes now."""
        lines = self.lines
        written = [range(g.line, g.end or len(lines) + 1) for g in self.generated]
        return [
            (token.map[0] + 1, "\n".join(lines[token.map[0] : token.map[1]]))
            for token in _tokens(self.text)
            if token.type == "inline"
            and token.map
            and not any(token.map[0] + 1 in span for span in written)
        ]


def chapters(docs: Path) -> list[Path]:
    """Chapter files in reading order: index.md first, then by file name."""
    return sorted(docs.glob("*.md"), key=reading_order)


def chapter_number(chapter: Path) -> int | None:
    """A chapter's number, from its file name (02-the-value-atom.md: 2), if it has one."""
    prefix = chapter.name.split("-")[0]
    return int(prefix) if prefix.isdigit() else None


def fence_ticks(text: str) -> str:
    """The backticks of a fence that can hold ``text``: longer than any run of them in it."""
    return "`" * max(3, 1 + max(map(len, re.findall("`+", text)), default=0))


def reading_order(chapter: Path) -> tuple[bool, str]:
    """A chapter's place in the book, as a sort key: index.md first, then by file name."""
    return chapter.name != "index.md", chapter.name


class ChangedError(Exception):
    """A file changed since a tool read it, in a way the tool cannot place: it wrote nothing."""


def check_unchanged(path: Path, read: str | None) -> None:
    """ChangedError unless the file at ``path`` still holds ``read`` (None: there is no file)."""
    try:
        now = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        now = None
    except (OSError, UnicodeDecodeError):
        now = ""  # unreadable: not what was read, which was text
    if now != read:
        said = "was deleted" if now is None else "was created" if read is None else "was edited"
        raise ChangedError(f"{relative(path)} {said} since it was read")


def rewrite(path: Path, read: str | None, text: str, crlf: bool | None = None) -> None:
    """Put ``text`` in the file at ``path`` if it still holds ``read``, what a tool read there
    (None: there was no file); else ChangedError, and nothing is written. The text goes into
    a new file beside it that then takes its name, so an editor never sees half of it, and
    the file keeps its permissions. ``crlf``: end lines with CR LF (None: as the file did).
    Every tool that rewrites a chapter or the engine writes through this."""
    path = path.resolve()  # a link: write the file it points to
    check_unchanged(path, read)
    if crlf is None:
        crlf = read is not None and b"\r\n" in path.read_bytes()
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with open(handle, "w", encoding="utf-8", newline="\r\n" if crlf else "\n") as file:
            file.write(text)
        if read is not None:
            shutil.copymode(path, temporary)
        check_unchanged(path, read)  # once more, right before it takes the file's place
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
