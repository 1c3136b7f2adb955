"""Tangle the engine files out of the chapters: docs/*.md -> micrograd.py, tensor.py.

    python3 tools/tangle.py           write them (refuses to overwrite edits made in one)
    python3 tools/tangle.py --check   exit 1 with a diff if one is not the tangle
    python3 tools/tangle.py --force   overwrite them even if edited

Each engine file's chunks (fences titled with its name) go in reading order under a header
that says the file is generated and records a hash of it, so a later run can tell which
side changed (tools/sync.py); a marker above each chunk names its chapter and section.
"""

import argparse
import ast
import difflib
import hashlib
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

if __name__ == "__main__":  # run as a script: make the `tools` package importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

try:
    from tools.chapter import ChangedError, Chapter, Fence, Heading, chapters, rewrite
except ModuleNotFoundError as missing:  # a plain python3: run this again in the project's .venv
    if __name__ != "__main__" or missing.name not in ("markdown_it", "markdown"):
        raise
    if os.environ.get("MICROGRAD_DEV"):  # already run by tools/dev.py, in .venv
        sys.exit(
            f"tangle: {missing.name} is missing from .venv: delete the .venv folder, "
            "then run `python3 tools/dev.py tangle` to set it up again"
        )
    DEV = Path(__file__).resolve().with_name("dev.py")
    sys.exit(subprocess.call([sys.executable, str(DEV), "tangle", *sys.argv[1:]]))
from tools import ENGINE, ENGINES, ROOT, engine_for, relative
from tools.chapter import reading_order  # where the try above found tools.chapter

TANGLE = "python3 tools/dev.py tangle"  # commands that work as written in a fresh clone
SYNC = "python3 tools/dev.py sync"
_HASH_LINE = re.compile(r"^# sha256 of what follows: ([0-9a-f]{64})\n", re.M)


class TangleError(Exception):
    """The chapters cannot be tangled, or tangling would destroy something."""


class RefusalError(TangleError):
    """An update refused to protect an edit; ``details`` shows the edit (a diff)."""

    def __init__(self, message: str, details: str = ""):
        super().__init__(message)
        self.details = details


@dataclass(frozen=True)
class Chunk:
    """One engine fence, with the place in the book that its marker names."""

    fence: Fence
    chapter: str  # the chapter's path, relative to the repository: docs/02-the-value-atom.md
    heading: Heading | None  # the section it sits in: the nearest heading above it
    part: int | None  # its number among its section's engine fences, if there are several

    @property
    def place(self) -> str:
        """``docs/ch.md#anchor``, plus ``, engine fence N`` in a section with several."""
        where = self.chapter + (f"#{self.heading.anchor}" if self.heading else "")
        return where + (f", engine fence {self.part}" if self.part else "")

    @property
    def marker(self) -> str:
        return f"# --- {self.place} ---"

    @property
    def code(self) -> str:
        """The code as it goes into its engine file: trailing blank lines dropped."""
        return self.fence.code.rstrip("\n") + "\n"


def engine_chunks(docs: Path, root=ROOT, texts: dict | None = None, engine="", until=None):
    """The engine fences of the chapters in ``docs`` (of the file ``engine`` only, if
    given; of the chapters before the one at ``until`` only, if given), in reading order,
    as Chunks. ``texts`` maps chapter paths to contents that stand in for what is on disk.
    """
    texts = texts or {}
    chunks = []
    for path in chapters(docs):
        if until is not None and reading_order(path) >= reading_order(until):
            break  # read no further than needed: a chapter's run parses only those above it
        chapter = Chapter.read(path, texts.get(path))
        fences = [f for f in chapter.engine_fences if f.engine == (engine or f.engine)]
        sections = [chapter.section_of(fence.line) for fence in fences]
        for fence, section in zip(fences, sections):
            siblings = [f for f, s in zip(fences, sections) if s == section]
            part = siblings.index(fence) + 1 if len(siblings) > 1 else None
            chunks.append(Chunk(fence, relative(path, root), section, part))
    return chunks


class Line(NamedTuple):
    """What one line of micrograd.py is."""

    kind: str  # "header", "gap" (blank, between chunks), "marker" or "code"
    chunk: int  # the chunk it belongs to; for a gap, the chunk after it; -1 in the header
    offset: int = 0  # for code: its line number within the chunk, from 0


@dataclass(frozen=True)
class Tangled:
    """micrograd.py as generated, and where each of its lines came from."""

    text: str
    chunks: list[Chunk]
    lines: list[Line]  # one per line of text

    @property
    def body(self) -> str:
        return split_generated(self.text)[2]

    def code_lines(self, index: int) -> tuple[int, int]:
        """First and last line (1-based) of chunk ``index``'s code in micrograd.py."""
        numbers = [n for n, line in enumerate(self.lines, 1) if line[:2] == ("code", index)]
        return numbers[0], numbers[-1]

    def chunk_at(self, number: int) -> int | None:
        """The chunk whose code holds line ``number`` (1-based) of micrograd.py, if any."""
        line = self.lines[number - 1]
        return line.chunk if line.kind == "code" else None


def defined(text: str) -> list[tuple[str, ast.stmt]]:
    """What the engine ``text`` defines, in order, each name with its statement: each top-level
    class, function and constant (not the modules it imports), and in a class each method
    and alias of one (``Value.__rmul__``). Learner mode and the woven engine read it here."""
    found = []
    for node in ast.parse(text).body:
        found += [(name, node) for name in _bound(node)]
        methods = set()
        for item in node.body if isinstance(node, ast.ClassDef) else []:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                methods.add(item.name)
                found.append((f"{node.name}.{item.name}", item))
            elif isinstance(item, ast.Assign) and getattr(item.value, "id", None) in methods:
                found += [(f"{node.name}.{name}", item) for name in _bound(item)]
    return found


def _bound(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    targets = node.targets if isinstance(node, ast.Assign) else []
    targets = [node.target] if isinstance(node, ast.AnnAssign) else targets
    return [target.id for target in targets if isinstance(target, ast.Name)]


def generated_header(digest: str, engine: str = ENGINE) -> str:
    return (
        f"# {engine}: {ENGINES[engine]} in one file, no dependencies.\n"
        f'# GENERATED by tools/tangle.py from the ```python title="{engine}"``` fences in\n'
        "# docs/: the marker above each chunk names its chapter and section. Edit the fence,\n"
        f"# then run `{TANGLE}`; or edit here, then run `{SYNC}`.\n"
        f"# sha256 of what follows: {digest}\n"
    )


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def split_generated(text: str) -> tuple[str, str, str] | None:
    """(header, recorded hash, body) of a generated file; None if it has no hash line."""
    match = _HASH_LINE.search(text)
    if not match:
        return None
    return text[: match.end()], match[1], text[match.end() :]


def _first_error(parts: list[str], whole: SyntaxError, engine: str) -> SyntaxError:
    """The syntax error of the first chunk that breaks the engine, not of the whole file.

    An unclosed string or bracket in one chunk is only noticed chunks later, or at the end
    of the file; compiling the engine chunk by chunk finds the chunk that opened it.
    (``parts`` is the body in pieces, the last piece of each chunk ending a prefix that
    compiles on its own, since chunks end at statement boundaries.)
    """
    text = ""
    for part in parts:
        text += part
        if not part.strip() or part.lstrip().startswith("# ---"):
            continue
        try:
            compile(text, engine, "exec", dont_inherit=True)
        except SyntaxError as error:
            return error
    return whole


def tangle_book(
    docs: Path, root: Path = ROOT, texts: dict[Path, str] | None = None, engine: str = ENGINE
) -> Tangled:
    """The file ``engine`` made from the chapters in ``docs``, and where each line came from."""
    chunks = engine_chunks(docs, root, texts, engine)
    if not chunks:
        raise TangleError(f'{docs}: no engine fences (```python title="{engine}"```) found')
    parts, lines = ["\n"], [Line("gap", 0)]  # the body: a blank line, then the chunks
    for index, chunk in enumerate(chunks):
        first = next((line for line in chunk.code.splitlines() if line.strip()), "")
        indent = first[: len(first) - len(first.lstrip())]
        if index:  # PEP 8 spacing: two blank lines before top-level code, one inside a class
            gap = 1 if indent else 2
            parts.append("\n" * gap)
            lines += [Line("gap", index)] * gap
        parts.append(f"{indent}{chunk.marker}\n")
        lines.append(Line("marker", index))
        parts.append(chunk.code)
        lines += [Line("code", index, n) for n in range(chunk.code.count("\n"))]
    body = "".join(parts)
    header = generated_header(sha256(body), engine)
    lines = [Line("header", -1)] * header.count("\n") + lines
    text = header + body
    try:
        compile(text, engine, "exec", dont_inherit=True)
    except SyntaxError as whole:
        error = _first_error([header, *parts], whole, engine)
        number = min(max(error.lineno or 1, 1), len(lines))
        # Blamed on a marker or a blank line: report the last code line above it.
        line = next(
            (line for line in reversed(lines[:number]) if line.kind == "code"),
            Line("code", 0, 0),
        )
        fence = chunks[line.chunk].fence
        raise TangleError(
            f"{relative(fence.path, root)}:{fence.line + line.offset}: "
            f"engine chunk is not valid Python: {error.msg}"
        ) from None
    return Tangled(text, chunks, lines)


def tangle(docs: Path, root: Path = ROOT, engine: str = ENGINE) -> str:
    """The text of the file ``engine``, generated from the chapters in ``docs``."""
    return tangle_book(docs, root, engine=engine).text


def engine_files(docs: Path, out: Path | None) -> list[Path]:
    """``out`` if given, else each engine file the chapters in ``docs`` make, at ROOT: the
    first always, the others if some fence is titled with their name."""
    made = {chunk.fence.engine for chunk in engine_chunks(docs)}
    return [out] if out else [ROOT / name for name in ENGINES if name in made | {ENGINE}]


def hand_edited(text: str) -> bool:
    """True if ``text`` is not exactly what some run of the tangler wrote (the header says
    for which engine file)."""
    parts = split_generated(text)
    if not parts:
        return True
    header, digest, body = parts
    engine = engine_for(header[2:].split(":")[0])
    return header != generated_header(digest, engine) or sha256(body) != digest


def diff_text(old: str, new: str, old_name: str, new_name: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), old_name, new_name
    )
    return "".join(lines)


def merge_by_hand(name: str) -> str:
    """What to do when both ``name`` and the chapters changed: sync refuses then."""
    return f"Move the edit from {name} into its chapter by hand, then run `{TANGLE} --force`"


def what_sync_does(old: str, new: str, name: str) -> str:
    """What `sync` does with ``old`` (``name``, edited since generated) against the chapters'
    tangle ``new``, as advice: tangle never sends the user to a sync that will refuse."""
    parts = split_generated(old)
    if parts is None:
        return (
            f"its header's sha256 line is gone, so `{SYNC}` cannot tell which side changed "
            f"either: restore the header (`git diff {name}` shows it), or discard the edits "
            f"with `{TANGLE} --force`"
        )
    header, digest, body = parts
    if header != generated_header(digest, engine_for(name)):
        return (
            f"its header was edited, which `{SYNC}` cannot write into a chapter: undo that "
            f"edit, then run `{SYNC}`; or discard the edits with `{TANGLE} --force`"
        )
    new_body = split_generated(new)[2]
    if body == new_body:
        return f"it already has the chapters' changes: `{SYNC}` updates its header"
    if sha256(new_body) != digest:
        return (
            "the chapters changed too since it was generated, so "
            f"`{SYNC}` would refuse (it does not merge). {merge_by_hand(name)}"
        )
    return (
        f"write the edits back into the chapters with `{SYNC}`, or discard them with "
        f"`{TANGLE} --force`"
    )


def update(docs: Path, out: Path, root: Path = ROOT, force: bool = False, check=False) -> str:
    """Write the tangle to ``out``, unless ``out`` holds edits of its own (then RefusalError);
    with ``check``, write nothing: RefusalError, with the diff, if ``out`` is not the tangle."""
    new = tangle(docs, root, engine_for(out.name))
    old = out.read_text(encoding="utf-8") if out.exists() else None
    if old == new:
        return f"{out.name} is up to date"
    edited = old is not None and hand_edited(old)
    diff = diff_text(old or "", new, f"{out.name} (on disk)", f"{out.name} (from the chapters)")
    if check and edited:
        advice = what_sync_does(old, new, out.name)
        raise RefusalError(f"{out.name} was edited since it was generated: {advice}", diff)
    if check:
        raise RefusalError(f"{out.name} is stale: run `{TANGLE}`", diff)
    if edited and not force:
        raise RefusalError(
            f"refusing to overwrite {out.name}: it was edited since it was generated, and "
            f"writing it would lose those edits (diff above): "
            f"{what_sync_does(old, new, out.name)}",
            diff,
        )
    try:
        rewrite(out, old, new, crlf=False)  # only if no one wrote to it meanwhile
    except ChangedError as changed:
        raise RefusalError(
            f"{changed}, so nothing was written to it: run `{TANGLE}` again"
        ) from None
    return f"wrote {out.name}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=Path, default=ROOT / "docs", help="chapter folder")
    parser.add_argument("--out", type=Path, help="one engine file (default: every one)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="only check; exit 1 if stale")
    mode.add_argument("--force", action="store_true", help="overwrite even an edited file")
    args = parser.parse_args(argv)
    root = args.docs.resolve().parent
    return max(
        report("tangle", lambda out=out: update(args.docs, out, root, args.force, args.check))
        for out in engine_files(args.docs, args.out)
    )


def report(command: str, action) -> int:
    """Run ``action`` for ``command`` (tangle, sync): print what it did or why it refused."""
    try:
        done = action()
    except RefusalError as refusal:
        print(refusal.details, end="")
        print(f"{command}: {refusal}", file=sys.stderr)
        return 1
    except TangleError as error:
        print(f"{command}: error: {error}", file=sys.stderr)
        return 2
    except ChangedError as changed:  # edited while it ran: nothing was written to it
        print(f"{command}: {changed}, so nothing was written: run it again", file=sys.stderr)
        return 1
    print(f"{command}: {done}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
