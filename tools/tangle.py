"""Tangle the engine out of the chapters, and keep the two in step: docs/*.md <-> micrograd.py.

An engine chunk is a fence whose info string is ``python title="micrograd.py"``.
Chunks are taken in reading order (chapter file name, then position in the chapter) and
written one after another under a header that says the file is generated. A marker above
each chunk names its chapter and the section it sits in, by the heading's anchor on the
site: ``# --- docs/02-the-value-atom.md#five-fields ---``, with ``, engine fence 2`` added
where a section holds several chunks. Editing prose never changes micrograd.py.

    python3 tools/tangle.py           write micrograd.py (refuses to overwrite edits made in it)
    python3 tools/tangle.py --check   exit 1 with a diff if micrograd.py is not the tangle
    python3 tools/tangle.py --sync    only the chapters changed: tangle; only micrograd.py
                                      changed: write each edited line back into its fence;
                                      both changed: refuse, showing both changes
    python3 tools/tangle.py --force   overwrite micrograd.py even if it was edited

The header records a hash of the generated text, so a later run can tell which side
changed since the last tangle, and never destroys an edit silently. Without
markdown-it-py this script runs itself through ``tools/dev.py tangle``, in .venv.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import itertools
import os
import re
import subprocess
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

try:
    from markdown_it import MarkdownIt
except ModuleNotFoundError:  # a plain python3: run this again in the project's .venv
    if __name__ != "__main__":
        raise
    if os.environ.get("MICROGRAD_DEV"):  # already run by tools/dev.py, in .venv
        sys.exit(
            "tangle: markdown-it-py is missing from .venv: delete the .venv folder, "
            "then run `python3 tools/dev.py tangle` to set it up again"
        )
    DEV = Path(__file__).resolve().with_name("dev.py")
    sys.exit(subprocess.call([sys.executable, str(DEV), "tangle", *sys.argv[1:]]))

ROOT = Path(__file__).resolve().parent.parent
ENGINE = "micrograd.py"
PYTHON_LANGS = ("python", "py", "python3")
TANGLE = "python3 tools/dev.py tangle"  # commands that work as written in a fresh clone
SYNC = "python3 tools/dev.py sync"
_TITLE = re.compile(r"""\btitle=(?:"([^"]*)"|'([^']*)'|(\S+))""")
_HASH_LINE = re.compile(r"^# sha256 of what follows: ([0-9a-f]{64})\n", re.M)
_NUMBERED_ID = re.compile(r"^(.*)_([0-9]+)$")


class TangleError(Exception):
    """The chapters cannot be tangled, or tangling would destroy something."""


class RefusalError(TangleError):
    """An update refused to protect an edit; ``details`` shows the edit (a diff)."""

    def __init__(self, message: str, details: str = ""):
        super().__init__(message)
        self.details = details


def is_python(info: str) -> bool:
    """Is this fence info string one that pytest-markdown-docs runs as Python?"""
    return (info.split() or [""])[0] in PYTHON_LANGS


def is_engine(info: str) -> bool:
    """Is this fence a chunk of the engine: python with title="micrograd.py"?"""
    match = _TITLE.search(info)
    return is_python(info) and bool(match) and ENGINE in match.groups()


@dataclass(frozen=True)
class Fence:
    path: Path  # the chapter
    line: int  # 1-based line of the first line of code (just below the ```)
    info: str
    code: str

    @property
    def is_python(self) -> bool:
        return is_python(self.info)

    @property
    def is_engine(self) -> bool:
        return is_engine(self.info)


@dataclass(frozen=True)
class Heading:
    line: int  # 1-based
    level: int  # 1 for #, 2 for ##, ...
    text: str  # as a reader sees it: `code` and *emphasis* marks removed
    anchor: str  # its id on the site


def _parse(text: str):
    return MarkdownIt("commonmark").parse(text)


def _read(path: Path, text: str | None) -> str:
    return path.read_text(encoding="utf-8") if text is None else text


def read_fences(path: Path, text: str | None = None) -> list[Fence]:
    """Every fenced code block of a chapter, parsed as CommonMark (as VS Code and GitHub do).

    ``text`` stands in for the file's contents when given.
    """
    return [
        Fence(path, token.map[0] + 2, token.info.strip(), token.content)
        for token in _parse(_read(path, text))
        if token.type == "fence" and token.map
    ]


def slugify(text: str) -> str:
    """A heading's id as the site makes it (Python-Markdown's toc extension, default slugify)."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _unique(anchor: str, taken: set[str]) -> str:
    """``anchor``, or ``anchor_1``, ``anchor_2``... if taken, as the toc extension does."""
    if anchor in taken or not anchor:
        match = _NUMBERED_ID.match(anchor)
        base, count = (match[1], int(match[2])) if match else (anchor, 0)
        count += 1
        while f"{base}_{count}" in taken:
            count += 1
        anchor = f"{base}_{count}"
    taken.add(anchor)
    return anchor


def read_headings(path: Path, text: str | None = None) -> list[Heading]:
    """Every heading of a chapter, with the anchor the site gives it."""
    tokens = _parse(_read(path, text))
    headings, taken = [], set()
    for opening, inline in itertools.pairwise(tokens):
        if opening.type == "heading_open" and opening.map:
            words = [
                child.content
                for child in inline.children or []
                if child.type in ("text", "code_inline", "softbreak")
            ]
            plain = "".join(word or " " for word in words).strip()
            anchor = _unique(slugify(plain), taken)
            headings.append(Heading(opening.map[0] + 1, int(opening.tag[1:]), plain, anchor))
    return headings


def chapters(docs: Path) -> list[Path]:
    """Chapter files in reading order: index.md first, then by file name."""
    return sorted(docs.glob("*.md"), key=lambda p: (p.name != "index.md", p.name))


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


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
        """The code as it goes into micrograd.py: trailing blank lines dropped."""
        return self.fence.code.rstrip("\n") + "\n"


def engine_chunks(docs: Path, root: Path = ROOT, texts: dict[Path, str] | None = None):
    """The engine fences of the chapters in ``docs``, in reading order, as Chunks.

    ``texts`` maps chapter paths to contents that stand in for what is on disk.
    """
    texts = texts or {}
    chunks = []
    for chapter in chapters(docs):
        text = texts.get(chapter)
        headings = read_headings(chapter, text)
        fences = [f for f in read_fences(chapter, text) if f.is_engine]
        sections = [
            next((h for h in reversed(headings) if h.line < fence.line), None) for fence in fences
        ]
        for fence, section in zip(fences, sections):
            siblings = [f for f, s in zip(fences, sections) if s == section]
            part = siblings.index(fence) + 1 if len(siblings) > 1 else None
            chunks.append(Chunk(fence, _relative(chapter, root), section, part))
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
        return _split(self.text)[2]

    def code_lines(self, index: int) -> tuple[int, int]:
        """First and last line (1-based) of chunk ``index``'s code in micrograd.py."""
        numbers = [n for n, line in enumerate(self.lines, 1) if line[:2] == ("code", index)]
        return numbers[0], numbers[-1]

    def chunk_at(self, number: int) -> int | None:
        """The chunk whose code holds line ``number`` (1-based) of micrograd.py, if any."""
        line = self.lines[number - 1]
        return line.chunk if line.kind == "code" else None


def _header(digest: str) -> str:
    return (
        "# micrograd.py: a scalar reverse-mode autograd engine in one file, no dependencies.\n"
        '# GENERATED by tools/tangle.py from the ```python title="micrograd.py"``` fences in\n'
        "# docs/: the marker above each chunk names its chapter and section. Edit the fence,\n"
        f"# then run `{TANGLE}`; or edit here, then run `{SYNC}`.\n"
        f"# sha256 of what follows: {digest}\n"
    )


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _split(text: str) -> tuple[str, str, str] | None:
    """(header, recorded hash, body) of a generated file; None if it has no hash line."""
    match = _HASH_LINE.search(text)
    if not match:
        return None
    return text[: match.end()], match[1], text[match.end() :]


def _first_error(parts: list[str], whole: SyntaxError) -> SyntaxError:
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
            compile(text, ENGINE, "exec", dont_inherit=True)
        except SyntaxError as error:
            return error
    return whole


def tangle_book(docs: Path, root: Path = ROOT, texts: dict[Path, str] | None = None) -> Tangled:
    """micrograd.py generated from the chapters in ``docs``, and where each line came from."""
    chunks = engine_chunks(docs, root, texts)
    if not chunks:
        raise TangleError(f'{docs}: no engine fences (```python title="{ENGINE}"```) found')
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
    header = _header(_sha256(body))
    lines = [Line("header", -1)] * header.count("\n") + lines
    text = header + body
    try:
        compile(text, ENGINE, "exec", dont_inherit=True)
    except SyntaxError as whole:
        error = _first_error([header, *parts], whole)
        number = min(max(error.lineno or 1, 1), len(lines))
        # Blamed on a marker or a blank line: report the last code line above it.
        line = next(
            (line for line in reversed(lines[:number]) if line.kind == "code"),
            Line("code", 0, 0),
        )
        fence = chunks[line.chunk].fence
        raise TangleError(
            f"{_relative(fence.path, root)}:{fence.line + line.offset}: "
            f"engine chunk is not valid Python: {error.msg}"
        ) from None
    return Tangled(text, chunks, lines)


def tangle(docs: Path, root: Path = ROOT) -> str:
    """The text of micrograd.py, generated from the chapters in ``docs``."""
    return tangle_book(docs, root).text


def hand_edited(text: str) -> bool:
    """True if ``text`` is not exactly what some run of the tangler wrote."""
    parts = _split(text)
    if not parts:
        return True
    header, digest, body = parts
    return header != _header(digest) or _sha256(body) != digest


def _diff(old: str, new: str, old_name: str, new_name: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), old_name, new_name
    )
    return "".join(lines)


def _write(path: Path, text: str, crlf: bool = False) -> None:
    path.write_text(text, encoding="utf-8", newline="\r\n" if crlf else "\n")


def update(docs: Path, out: Path, root: Path = ROOT, force: bool = False) -> str:
    """Write the tangle to ``out``, unless ``out`` holds edits of its own (then RefusalError)."""
    new = tangle(docs, root)
    old = out.read_text(encoding="utf-8") if out.exists() else None
    if old == new:
        return f"{out.name} is up to date"
    if old is not None and hand_edited(old) and not force:
        raise RefusalError(
            f"refusing to overwrite {out.name}: it was edited since it was generated, and "
            f"writing it would lose those edits (diff above). Write them back into the "
            f"chapters with `{SYNC}`, or discard them with `{TANGLE} --force`.",
            _diff(old, new, f"{out.name} (on disk)", f"{out.name} (from the chapters)"),
        )
    _write(out, new)
    return f"wrote {out.name}"


def _last_generated(out: Path, digest: str) -> str | None:
    """The text of ``out`` when last generated, if git's HEAD holds it; else None."""
    try:
        shown = subprocess.run(
            ["git", "show", f"HEAD:./{out.name}"],
            cwd=out.parent,
            capture_output=True,
            check=False,
        )
    except OSError:  # no git
        return None
    text = shown.stdout.decode("utf-8", "replace").replace("\r\n", "\n")
    parts = _split(text) if shown.returncode == 0 else None
    return text if parts and _sha256(parts[2]) == digest else None


def _where(tangled: Tangled, index: int, number: int) -> str:
    """Why an edit at line ``index`` (0-based) of ``tangled`` cannot be placed, and where."""
    line = tangled.lines[index]
    if line.kind == "marker":
        return (
            f"{ENGINE}:{number}: an edit to the marker `{tangled.chunks[line.chunk].marker}` "
            "cannot be written into a chapter (markers are generated from the chapters' "
            "headings). Undo it; to move code, move it between fences in the chapters"
        )
    after = tangled.chunks[max(line.chunk, 0)].place
    before = tangled.chunks[line.chunk - 1].place if line.chunk > 0 else "the header"
    return (
        f"{ENGINE}:{number}: an edit between two chunks (after {before}, before {after}) "
        "belongs to no fence. Put it inside a chunk, or into a fence in a chapter"
    )


def _place(tangled: Tangled, base: list[str], i1: int, i2: int, new: list[str], j1: int):
    """Where in which chunk the edit base[i1:i2] -> ``new`` goes: (chunk, start, end, lines).

    Lines replaced or deleted must all be code of one chunk. Lines inserted go into the
    chunk whose code is just above or just below them; inserted blank lines that merely
    shift the edit over the blank lines after a chunk are read as added to that chunk.
    """
    lines = tangled.lines
    if i1 < i2:
        first = lines[i1]
        for index in range(i1, i2):
            if lines[index].kind != "code" or lines[index].chunk != first.chunk:
                raise RefusalError(_where(tangled, index, index + 1))
        return first.chunk, first.offset, lines[i2 - 1].offset + 1, new
    above = lines[i1 - 1]
    if above.kind == "code":
        return above.chunk, above.offset + 1, above.offset + 1, new
    if i1 < len(lines) and lines[i1].kind == "code":
        return lines[i1].chunk, 0, 0, new
    gap = i1
    while lines[gap - 1].kind == "gap":  # the same text, with the edit above the blank lines?
        gap -= 1
        both = base[gap:i1] + new
        if both[len(new) :] == base[gap:i1] and lines[gap - 1].kind == "code":
            above = lines[gap - 1]
            return above.chunk, above.offset + 1, above.offset + 1, both[: len(new)]
    raise RefusalError(_where(tangled, i1 - 1, j1 + 1))  # the line above: a gap or header


def _stitch(fresh: Tangled, text: str, out: Path, docs: Path, root: Path) -> str:
    """Write the edits of ``text`` (micrograd.py edited since ``fresh``) into the chapters."""
    name = out.name
    try:
        compile(text, name, "exec", dont_inherit=True)
    except SyntaxError as error:
        raise RefusalError(
            f"{name}:{error.lineno}: not valid Python ({error.msg}): fix it there, "
            f"then run `{SYNC}` again"
        ) from None
    old, new = fresh.text.splitlines(), text.splitlines()
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    edits = [
        (i1, _place(fresh, old, i1, i2, new[j1:j2], j1))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]
    texts = {
        path: path.read_text(encoding="utf-8") for path in {c.fence.path for c in fresh.chunks}
    }
    for index in {index for _, (index, *_) in edits}:  # is each fence its code, line for line?
        fence = fresh.chunks[index].fence
        code = fresh.chunks[index].code.split("\n")[:-1]
        if texts[fence.path].split("\n")[fence.line - 1 : fence.line - 1 + len(code)] != code:
            raise RefusalError(
                f"{_relative(fence.path, root)}:{fence.line}: this fence's lines are not "
                f"the lines of its code (is the fence indented?), so {name} cannot be "
                "written back into it: copy the edit into the chapter by hand"
            )
    written = set()
    for _, (index, start, end, lines) in sorted(edits, key=lambda edit: edit[0], reverse=True):
        fence = fresh.chunks[index].fence  # bottom up, so that the lines above stay put
        rows = texts[fence.path].split("\n")
        rows[fence.line - 1 + start : fence.line - 1 + end] = lines
        texts[fence.path] = "\n".join(rows)
        written.add(fence.path)
    try:
        stitched = tangle_book(docs, root, {path: texts[path] for path in written})
    except TangleError as error:
        raise RefusalError(
            f"the edits to {name} would break a chapter, so nothing was written ({error}). "
            f"Copy the edit into the chapter by hand, then run `{TANGLE} --force`"
        ) from None
    body = _split(text)[2]
    if stitched.body != (body if body.endswith("\n") else body + "\n"):
        raise RefusalError(
            f"the edits to {name} cannot be written into the chapters so that they tangle "
            f"back to the same {name} (the diff above is what would differ); nothing was "
            f"written. Copy the edit into the chapter by hand, then run `{TANGLE} --force`",
            _diff(text, stitched.text, f"{name} (on disk)", f"{name} (after sync)"),
        )
    for path in written:
        _write(path, texts[path], crlf=b"\r\n" in path.read_bytes())
    _write(out, stitched.text)
    places = sorted({(index, start) for _, (index, start, _, _) in edits})
    where = ", ".join(
        f"{stitched.chunks[index].chapter}:{stitched.chunks[index].fence.line + start}"
        for index, start in places
    )
    return f"wrote the edits in {name} back into {where}"


def sync(docs: Path, out: Path, root: Path = ROOT) -> str:
    """Bring chapters and ``out`` in step, whichever side changed; RefusalError if both did."""
    fresh = tangle_book(docs, root)
    name = out.name
    if not out.exists():
        _write(out, fresh.text)
        return f"wrote {name}"
    text = out.read_text(encoding="utf-8")
    if text == fresh.text:
        return f"{name} is up to date"
    parts = _split(text)
    if parts is None:
        raise RefusalError(
            f"{name}:1: the header's sha256 line is gone, so sync cannot tell which side "
            f"changed. Restore the header (`git diff {name}` shows it), or replace {name} "
            f"with the chapters' version: `{TANGLE} --force`"
        )
    header, digest, body = parts
    if header != _header(digest):
        last = header.count("\n")
        raise RefusalError(
            f"{name}:1-{last}: an edit to the header cannot be written "
            f"into a chapter (the header is generated): undo it, then run `{SYNC}` again",
            _diff(_header(digest), header, f"{name} header (generated)", f"{name} (on disk)"),
        )
    if _sha256(body) == digest:  # micrograd.py is as generated: the chapters changed
        _write(out, fresh.text)
        return f"wrote {name} (the chapters changed)"
    if body == fresh.body:  # both sides made the same edit
        _write(out, fresh.text)
        return f"{name} already had the chapters' changes: updated its header"
    if _sha256(fresh.body) == digest:  # the chapters are as they were: micrograd.py changed
        return _stitch(fresh, text, out, docs, root)
    base = _last_generated(out, digest)
    if base is None:
        details = _diff(fresh.text, text, f"{name} (from the chapters)", f"{name} (on disk)")
        shown = (
            f"{name} as last generated is not in git's HEAD, so the diff above shows the "
            "two changes together"
        )
    else:
        chapters_diff = _diff(base, fresh.text, f"{name} (last generated)", "the chapters now")
        engine_diff = _diff(base, text, f"{name} (last generated)", f"{name} (on disk)")
        details = chapters_diff + engine_diff
        shown = f"diffs above: first the chapters' change, then {name}'s"
    raise RefusalError(
        f"refusing: both {name} and the chapters changed since {name} was generated, and "
        f"sync does not merge ({shown}). Move the edit from {name} into its chapter by "
        f"hand, then run `{TANGLE} --force`",
        details,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=Path, default=ROOT / "docs", help="chapter folder")
    parser.add_argument("--out", type=Path, default=ROOT / ENGINE, help="engine file")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="only check; exit 1 if stale")
    mode.add_argument("--sync", action="store_true", help="bring whichever side changed in step")
    mode.add_argument("--force", action="store_true", help="overwrite even an edited file")
    args = parser.parse_args(argv)
    root = args.docs.resolve().parent
    command = "sync" if args.sync else "tangle"
    try:
        if args.check:
            return _check(args.docs, args.out, root)
        if args.sync:
            done = sync(args.docs, args.out, root)
        else:
            done = update(args.docs, args.out, root, force=args.force)
    except RefusalError as refusal:
        print(refusal.details, end="")
        print(f"{command}: {refusal}", file=sys.stderr)
        return 1
    except TangleError as error:
        print(f"{command}: error: {error}", file=sys.stderr)
        return 2
    print(f"{command}: {done}")
    return 0


def _check(docs: Path, out: Path, root: Path) -> int:
    new = tangle(docs, root)
    name = out.name
    old = out.read_text(encoding="utf-8") if out.exists() else None
    if old == new:
        print(f"tangle: {name} is up to date")
        return 0
    print(_diff(old or "", new, f"{name} (on disk)", f"{name} (from the chapters)"), end="")
    if old is not None and hand_edited(old):
        why = f"was edited since it was generated: run `{SYNC}` to write the edit back"
    else:
        why = f"is stale: run `{TANGLE}`"
    print(f"tangle: {name} {why}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
