"""Learner mode: write the engine yourself, and let the book's checks tell you what is next.

    python3 tools/learner.py skeleton [PATH] [--force]
        Write a learner's micrograd.py (default: my-engine/micrograd.py): the book's imports,
        constants, classes and signatures with their docstrings, each function's body
        replaced by a NotImplementedError that names the chapter section that builds it.
        An existing file is never overwritten unless --force is given.

    python3 tools/learner.py learn PATH [--chapter N ...] [--timeout SECONDS]
        Run every chapter's experiment fences against the micrograd.py at PATH instead of the
        book's engine fences, and print a progress table: checks passing per chapter, and
        the first failing check of each chapter with its line, section and message.

`python3 tools/dev.py skeleton|learn ...` runs the same inside the project's .venv. Each
chapter runs in a process of its own (cwd: the book's folder), so an endless loop in the
learner's code costs one chapter its timeout, and the book's engine and chapters are only
read. Within a chapter the checks run in order and the first failure stops it, as in
`python3 tools/dev.py test`: later checks would run against half-built state.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

if __name__ == "__main__":  # run as a script: make the `tools` package importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools import DOCS, ROOT, relative
from tools.chapter import Chapter, chapters
from tools.notebook import Notebook, describe_error
from tools.tangle import tangle_book

DEFAULT_PATH = Path("my-engine") / "micrograd.py"
DEFAULT_TIMEOUT = 120.0  # seconds per chapter: many times what the slowest one needs
LINE_LENGTH = 100  # ruff's, from pyproject.toml: the skeleton is ruff-clean as written
SHOWN_MESSAGE_LINES = 12  # of a failure's message (an output diff can be long)

HEADER = """\
# micrograd.py: your own engine, rebuilt from the book.
# Written by `python3 tools/dev.py skeleton`. Every function keeps the book's signature and
# docstring; its body raises NotImplementedError naming the chapter section that builds
# it. Replace each raise with your code, then run the book's checks against this file:
# `python3 tools/dev.py learn <this file>` (the book's chapter "Rebuild it yourself").
"""


class SkeletonExistsError(FileExistsError):
    """The skeleton's path holds a file already: it may be the learner's work."""


# --- where things are in the book ---------------------------------------------------------


def heading_above(chapter: Path, line: int) -> str:
    """The section a line of a chapter is in: the text of the nearest heading above it."""
    heading = Chapter.read(chapter).section_of(line)
    return heading.text if heading else ""


def page_title(chapter: Path) -> str:
    """The chapter's title as the site's navigation shows it: its first heading."""
    return Chapter.read(chapter).title


def where_in_book(chapter: Path, line: int) -> str:
    """docs/02-the-value-atom.md, section 'Five fields' (page '2. The Value atom')"""
    heading, title = heading_above(chapter, line), page_title(chapter)
    section = "" if heading == title else f", section '{heading}'"
    return f"{relative(chapter, ROOT)}{section} (page '{title}')"


# --- the skeleton -------------------------------------------------------------------------


def definitions(body: list[ast.stmt], prefix: str = ""):
    """(function node, qualified name) for each function and method, in source order."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node, prefix + node.name
        elif isinstance(node, ast.ClassDef):
            yield from definitions(node.body, f"{prefix}{node.name}.")


def _literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', "'") + '"'


def _stub(name: str, section: str, indent: str) -> list[str]:
    """``raise NotImplementedError(...)`` lines, as ruff format would lay them out."""
    message = f"{name} is yours to write: see {section}"
    line = f"{indent}raise NotImplementedError({_literal(message)})\n"
    if len(line) - 1 <= LINE_LENGTH:
        return [line]
    width = LINE_LENGTH - len(indent) - 4 - 2  # one more indent, and the quotes
    parts, words = [], message.split(" ")
    part = words[0]
    for word in words[1:]:
        if len(part) + 1 + len(word) > width:
            parts.append(part)
            part = ""
        part += " " + word
    parts.append(part)
    inner = [f"{indent}    {_literal(p)}\n" for p in parts]
    return [f"{indent}raise NotImplementedError(\n", *inner, f"{indent})\n"]


def skeleton(docs: Path = DOCS) -> str:
    """The text of a learner's micrograd.py, made from the engine the chapters in ``docs`` build.

    Kept: imports, constants, classes, class-level assignments, decorators, signatures and
    docstrings. Replaced: every function body, by an error naming the section that builds it.
    """
    tangled = tangle_book(docs, root=docs.resolve().parent)
    text = tangled.text
    spans = [  # (first line, last line, fence) of each chunk's code in micrograd.py
        (*tangled.code_lines(index), chunk.fence) for index, chunk in enumerate(tangled.chunks)
    ]
    lines = text.splitlines(keepends=True)
    edits = []  # (start, stop, new lines): lines[start:stop] becomes new lines (0-based)
    for node, name in definitions(ast.parse(text).body):
        keep = 1 if ast.get_docstring(node, clean=False) is not None else 0
        if keep == len(node.body):
            continue  # nothing but a docstring: nothing to write
        first = node.body[keep].lineno
        if first == node.lineno:
            raise ValueError(f"{name}: put the body below the `def` line to make a skeleton")
        chunk = next(c for start, end, c in spans if start <= first <= end)
        body = lines[first - 1]
        indent = body[: len(body) - len(body.lstrip())]
        stub = _stub(name, where_in_book(chunk.path, chunk.line), indent)
        edits.append((first - 1, node.end_lineno, stub))
    for start, _, _ in spans:  # the tangler's marker line above each chunk: not the learner's
        edits.append((start - 2, start - 1, []))
    edits.append((0, spans[0][0] - 2, [HEADER, "\n"]))  # the tangler's header, for ours
    for start, stop, new in sorted(edits, reverse=True):
        lines[start:stop] = new
    return _mark_unused_imports("".join(lines))


def _mark_unused_imports(text: str) -> str:
    """Keep the book's imports, which the learner's bodies will need, without lint errors."""
    tree = ast.parse(text)
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    lines = text.splitlines(keepends=True)
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound = {(a.asname or a.name).split(".")[0] for a in node.names}
            if not bound & used:
                line = lines[node.end_lineno - 1].rstrip("\n")
                lines[node.end_lineno - 1] = f"{line}  # noqa: F401 (your code will use it)\n"
    return "".join(lines)


def write_skeleton(path: Path, force: bool = False, docs: Path = DOCS) -> int:
    """Write the skeleton to ``path``; return how many functions it leaves to write.

    Raises SkeletonExistsError if ``path`` exists, unless ``force``.
    """
    if path.exists() and not force:
        raise SkeletonExistsError(
            f"{path} exists: not overwritten, since it may hold your work. Give another "
            "path, or pass --force to replace it with a fresh skeleton."
        )
    text = skeleton(docs)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")
    return text.count("raise NotImplementedError(")


# --- running the book against a learner's engine --------------------------------------------


@dataclass(frozen=True)
class Failure:
    """The first failing check of a chapter."""

    line: int  # in the chapter: the failing line of the check, or the check's first line
    message: str  # "Type: message", possibly several lines
    raised_at: str = ""  # "my-engine/micrograd.py:18, in __init__", if raised in the engine
    kind: str = ""  # the exception's type name


@dataclass(frozen=True)
class ChapterResult:
    chapter: Path
    checks: int  # the chapter's experiment fences (engine fences are not checks here)
    passed: int  # checks that passed, run in order
    failure: Failure | None = None

    @property
    def not_run(self) -> int:
        return self.checks - self.passed - (1 if self.failure else 0)


def _event_of_failure(error: BaseException, chapter: Path, engine: Path, fallback: int) -> dict:
    """What the child reports about a failing check: where in the chapter, where in the engine."""
    frames = traceback.extract_tb(error.__traceback__)
    in_chapter = [f.lineno for f in frames if f.filename == str(chapter)]
    in_engine = [f for f in frames if f.filename == str(engine)]
    event = {"line": in_chapter[-1] if in_chapter else fallback, "kind": type(error).__name__}
    if isinstance(error, SyntaxError) and error.filename == str(chapter) and error.lineno:
        event["line"] = error.lineno
    event["message"] = describe_error(error)
    if in_engine:
        event["engine_line"], event["function"] = in_engine[-1].lineno, in_engine[-1].name
    return event


def run_chapter_here(chapter: str, engine: str, report: str) -> None:
    """Run one chapter against ``engine`` in this process, writing a JSON line per event to
    ``report``: {"start": i}, then {"passed": i} or {"failed": i, ...} (i: a cell's index)."""
    book = Notebook(Path(chapter), engine=Path(engine))
    with open(report, "a", encoding="utf-8") as out:

        def tell(**event):
            out.write(json.dumps(event) + "\n")
            out.flush()

        while book.next < len(book.cells):
            index = book.next
            tell(start=index)
            try:
                book.run_next()
            except KeyboardInterrupt:
                raise
            except BaseException as error:
                fence_line = book.cells[index].line - 1
                event = _event_of_failure(error, Path(chapter), Path(engine), fence_line)
                tell(failed=index, **event)
                return
            tell(passed=index)


CHILD = "import sys; from tools.learner import run_chapter_here; run_chapter_here(*sys.argv[1:])"


def _run_child(chapter: Path, engine: Path, report: Path, timeout: float) -> str | None:
    """Run one chapter in a child process; None if it ended normally, else why it did not."""
    errors = report.with_suffix(".stderr")
    with errors.open("w", encoding="utf-8") as stderr:
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(chapter), str(engine), str(report)],
            cwd=ROOT,  # where the tests run the chapters
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,  # fences capture their own printing
            stderr=stderr,
            start_new_session=os.name == "posix",  # so a timeout ends what it started, too
        )
        try:
            code = child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            if os.name == "posix":
                os.killpg(child.pid, signal.SIGKILL)
            else:
                child.kill()
            child.wait()
            return f"timed out after {timeout:g} s: an endless loop? (--timeout changes the limit)"
    if code == 0:
        return None
    tail = errors.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-3:]
    return "\n".join([f"the process running the chapter stopped (exit code {code})", *tail])


def check_chapter(chapter: Path, engine: Path, timeout: float = DEFAULT_TIMEOUT) -> ChapterResult:
    """Run one chapter's checks against the micrograd.py at ``engine``, in a child process."""
    chapter, engine = chapter.resolve(), engine.resolve()
    book = Chapter.read(chapter).cells
    checks = [i for i, cell in enumerate(book) if not cell.fence.is_engine]
    with tempfile.TemporaryDirectory(prefix="learner-") as scratch:
        report = Path(scratch) / "report.jsonl"
        stopped = _run_child(chapter, engine, report, timeout)
        events = []
        for line in report.read_text(encoding="utf-8").splitlines() if report.exists() else []:
            with contextlib.suppress(ValueError):  # a line cut off by a timeout
                events.append(json.loads(line))
    passed = sum(1 for e in events if "passed" in e and e["passed"] in checks)
    failed = next((e for e in events if "failed" in e), None)
    if failed is not None:
        raised_at = ""
        if "engine_line" in failed:
            raised_at = f"line {failed['engine_line']}, in {failed['function']}"
        failure = Failure(failed["line"], failed["message"], raised_at, failed["kind"])
    elif stopped is not None or passed < len(checks):
        started = [e["start"] for e in events if "start" in e]
        at = book[started[-1] if started else (checks or [0])[0]]
        failure = Failure(at.line - 1, stopped or "the chapter stopped early", kind="stopped")
    else:
        failure = None
    return ChapterResult(chapter, len(checks), passed, failure)


def check(
    engine: Path,
    selected: list[Path] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    jobs: int | None = None,
) -> list[ChapterResult]:
    """Every chapter's checks (or those of ``selected`` chapters) against ``engine``."""
    if not engine.is_file():
        raise FileNotFoundError(f"{engine}: no such file (write one with `skeleton`)")
    selected = selected or chapters_named([])
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        return list(pool.map(lambda c: check_chapter(c, engine, timeout), selected))


def progress_table(results: list[ChapterResult], engine_name: str) -> str:
    """What the learner reads: a row per chapter (checks passing, first failing check), why
    each first failing check failed, and the one to read next, in full."""
    broken = [r.failure for r in results if r.failure and r.failure.kind == "EngineImportError"]
    if broken:  # every chapter failed the same way before its first check
        return f"No check could run: {broken[0].message.removeprefix('EngineImportError: ')}\n"
    width = max([len(r.chapter.name) for r in results] + [len("chapter")])
    passed, total = sum(r.passed for r in results), sum(r.checks for r in results)
    digits = len(str(total))
    column = max(len("passing"), 2 * digits + 4)
    out = [f"{'chapter':<{width}}  {'passing':>{column}}  first failing check"]
    for r in results:
        row = f"{r.chapter.name:<{width}}  {f'{r.passed} of {r.checks:>{digits}}':>{column}}"
        if r.failure:
            row += f"  line {r.failure.line}, section '{heading_above(r.chapter, r.failure.line)}'"
        out.append(row)
    out.append(f"{'all':<{width}}  {f'{passed} of {total}':>{column}}")
    not_run = sum(r.not_run for r in results)
    if not_run:
        out[-1] += f"  ({not_run} not run: a chapter stops at its first failing check)"
    failing = [r for r in results if r.failure]
    if not failing:
        return "\n".join([*out, "", f"Every check passes against {engine_name}."]) + "\n"
    if len(failing) > 1:
        places = [f"{relative(r.chapter, ROOT)}:{r.failure.line}" for r in failing]
        out += ["", "Why each chapter's first failing check failed:"]
        out += [
            f"  {place:<{max(map(len, places))}}  {r.failure.message.splitlines()[0]}"
            for place, r in zip(places, failing)
        ]
    first = failing[0]
    out += ["", f"Read next: {where_in_book(first.chapter, first.failure.line)}."]
    source = first.chapter.read_text(encoding="utf-8").splitlines()[first.failure.line - 1]
    if not source.startswith("```"):  # the failing line itself, not the fence it is in
        out.append(f"The check that failed, line {first.failure.line}:  {source.strip()}")
    message = first.failure.message.splitlines()
    if len(message) > SHOWN_MESSAGE_LINES:
        message = [*message[:SHOWN_MESSAGE_LINES], "..."]
    out += message
    if first.failure.raised_at:
        out.append(f"(raised in {engine_name}, {first.failure.raised_at})")
    return "\n".join(out) + "\n"


# --- the command line -----------------------------------------------------------------------


def _number(chapter: Path) -> int | None:
    prefix = chapter.name.split("-")[0]
    return int(prefix) if prefix.isdigit() else None


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
            if (_number(c) == int(name) if name.isdigit() else c.name.startswith(name))
        }
        if not matches:
            raise ValueError(f"no chapter {name!r} with checks in {relative(docs, ROOT)}")
        wanted |= matches
    return [c for c in every if c in wanted]


def _engine_file(path: Path) -> Path:
    """A folder stands for the micrograd.py inside it."""
    return path / "micrograd.py" if path.is_dir() else path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="learner", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    write = commands.add_parser("skeleton", help="write a micrograd.py for you to fill in")
    write.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH)
    write.add_argument("--force", action="store_true", help="replace the file if it exists")
    learn = commands.add_parser("learn", help="run the book's checks against your micrograd.py")
    learn.add_argument("path", type=Path, help="your micrograd.py (or its folder)")
    learn.add_argument(
        "--chapter",
        action="append",
        default=[],
        metavar="N",
        help="only this chapter (a number or the start of its file name); repeatable",
    )
    learn.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"per chapter (default {DEFAULT_TIMEOUT:g})",
    )
    args = parser.parse_args(argv)

    if args.command == "skeleton":
        path = _engine_file(args.path)
        try:
            count = write_skeleton(path, force=args.force)
        except SkeletonExistsError as error:
            print(f"learner: {error}", file=sys.stderr)
            return 1
        print(
            f"wrote {path.as_posix()}: {count} functions to write, each raising "
            "NotImplementedError with the section of the book that builds it."
        )
        print(f"Check it against the book: python3 tools/dev.py learn {path.as_posix()}")
        return 0

    path = _engine_file(args.path)
    try:
        selected = chapters_named(args.chapter)
        results = check(path, selected, timeout=args.timeout)
    except (ValueError, FileNotFoundError) as error:
        print(f"learner: {error}", file=sys.stderr)
        return 2
    print(progress_table(results, path.as_posix()), end="")
    return 0 if all(r.failure is None for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
