"""Learner mode: write the engine yourself, and let the book's checks tell you what is next.

    python3 tools/learner.py skeleton [PATH] [--force]
        Write a learner's micrograd.py (default: my-engine/micrograd.py): the book's imports,
        constants, classes and signatures with their docstrings, each function's body
        replaced by a NotImplementedError that names the chapter section that builds it.
        An existing file is never overwritten unless --force is given.

    python3 tools/learner.py learn PATH [--chapter N ...] [--timeout SECONDS]
        Run every chapter's experiment fences against the micrograd.py at PATH instead of the
        book's engine fences, and print a progress table: checks passing per chapter, and
        the first failing check of each chapter with its line, section and message. Only
        checks that exercise the engine count (``engine_checks``): an untouched skeleton
        scores 0, and the book's own engine passes every counted check.

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
import dataclasses
import functools
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import traceback
import types
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
SHOWN_MESSAGE_LINES = 30  # of a failure's message; a longer one loses its middle

HEADER = """\
# micrograd.py: your own engine, rebuilt from the book.
# Written by `python3 tools/dev.py skeleton`. Every function keeps the book's signature and
# docstring; its body raises NotImplementedError naming the chapter section that builds
# it. Replace each raise with your code, then run the book's checks against this file:
# `python3 tools/dev.py learn <this file>` (the book's chapter "Rebuild it yourself").
"""


# CPython 3.11's ast.parse can fail in two threads at once ("AST constructor recursion
# depth mismatch"), and check() runs chapters from threads: the parsing here takes turns.
_PARSING = threading.Lock()


def _one_at_a_time(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with _PARSING:
            return function(*args, **kwargs)

    return wrapper


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


@dataclass(frozen=True)
class Definition:
    """Where the book's engine defines one function or class-level name."""

    name: str  # qualified: Value.__mul__, Value.__rmul__, dot
    source: str  # its statement (decorators included), dedented
    chapter: Path  # the chapter whose engine fence holds it
    line: int  # the fence's first line in the chapter


@_one_at_a_time
@functools.lru_cache(maxsize=8)
def book_definitions(docs: Path = DOCS) -> dict[str, Definition]:
    """Every function and method of the engine the chapters build, and every class-level
    alias (``__rmul__ = __mul__``), by qualified name: the tangle maps each to its chunk."""
    tangled = tangle_book(docs, root=docs.resolve().parent)
    text, found = tangled.text, {}

    def add(node: ast.stmt, name: str) -> None:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        lines = text.splitlines(keepends=True)[first - 1 : node.end_lineno]
        chunk = tangled.chunks[tangled.chunk_at(node.lineno)]
        found[name] = Definition(
            name, textwrap.dedent("".join(lines)), chunk.fence.path, chunk.fence.line
        )

    tree = ast.parse(text)
    for node, name in definitions(tree.body):
        add(node, name)
    for cls in (node for node in tree.body if isinstance(node, ast.ClassDef)):
        for node in cls.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
                for target in node.targets:
                    add(node, f"{cls.name}.{target.id}")
    return found


# Where the book shows a mistake in a function made and caught, beyond the section that
# builds it (tested: each section exists, and shows the function's mistake).
MISTAKES_SHOWN = {
    "Value._backward": [("03-backward.md", "Accumulate, never assign")],
    "Value.backward": [("03-backward.md", "2. Find the bug: a backward that forgot to reverse")],
    "Value.tanh": [("02-the-value-atom.md", "3. Find the bug")],
}


def mistake_sections(name: str, docs: Path = DOCS) -> list[str]:
    """``where_in_book`` for each section that shows a mistake in ``name`` caught."""
    found = []
    for file, heading in MISTAKES_SHOWN.get(name, []):
        chapter = Chapter.read(docs / file)
        line = next(h.line for h in chapter.headings if h.text == heading)
        found.append(where_in_book(chapter.path, line + 1))
    return found


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


# --- which checks are checks of the learner's engine -----------------------------------------


@_one_at_a_time
@functools.lru_cache(maxsize=8)
def engine_names(docs: Path = DOCS) -> frozenset[str]:
    """The names the engine defines at its top level: classes, functions and constants
    (``Value``, ``MLP``, ``USED_GRAPH``), not the modules it imports."""
    names = set()
    for node in ast.parse(tangle_book(docs, root=docs.resolve().parent).text).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return frozenset(names)


@_one_at_a_time
def engine_checks(chapter: Path, engine: frozenset[str]) -> frozenset[int]:
    """The indices (in ``Chapter.cells``) of the chapter's checks that exercise the engine:
    the checks the learner's score counts. The others are about the book, not the engine.

    The rule follows names, statement by statement (``Fence.steps``), through the chapter
    in the order it runs. A name *refers to the engine* if it is one ``engine`` defines,
    in a chapter with engine fences (the engine's names are in its namespace from the
    start); if an import from ``micrograd`` binds it; or if a statement that runs the
    engine binds it, or may change the object it holds (``x.append(...)``,
    ``x[k] = ...``: ``Names.changed``). A statement *runs the engine* if it reads a name
    that refers to the engine (its ``free`` names: a loop variable it binds first does
    not count). A ``def`` or ``class`` runs nothing: it binds a name that refers to the
    engine if its body reads one, so a later call of it runs the engine. A statement
    that runs no engine code and binds a name makes the name the book's again (a
    chapter's own ``Value`` class). A check counts if one of its statements runs the
    engine; one that does not parse counts too (it fails whatever the engine).

    It cannot flatter: a counted check calls into the engine, so against the skeleton,
    where every function raises, it fails (tests/test_learner.py runs the skeleton
    through every check, none stopping at a failure, and checks that every counted
    check fails and every other one passes: the rule and the experiment agree on every
    check of the book). It does not under-count: the book's own engine passes every
    check, counted or not.
    """
    cells = Chapter.read(chapter).cells
    refers = set(engine) if any(cell.fence.is_engine for cell in cells) else set()
    counted = set()
    for index, cell in enumerate(cells):
        if cell.fence.is_engine:
            continue
        runs = not cell.fence.steps  # does not parse
        for step in cell.fence.steps:
            if step.defines:  # binds a function or class; its body runs when called
                (refers.add if step.free & refers else refers.discard)(step.defines)
                continue
            if step.free & refers:
                runs = True
                refers |= step.bound | step.changed
            else:
                refers -= step.bound
            if "micrograd" in step.imports:
                refers |= step.bound
        if runs:
            counted.add(index)
    return frozenset(counted)


# --- running the book against a learner's engine --------------------------------------------


@dataclass(frozen=True)
class Failure:
    """The first failing check of a chapter."""

    line: int  # in the chapter: the failing line of the check, or the check's first line
    message: str  # "Type: message", possibly several lines
    raised_at: str = ""  # "my-engine/micrograd.py:18, in __init__", if raised in the engine
    kind: str = ""  # the exception's type name
    fix: str = ""  # the engine's function to blame (``to_fix``), qualified: Value._backward
    index: int | None = None  # the failing check's cell index, if it failed (not stopped)


@dataclass(frozen=True)
class ChapterResult:
    chapter: Path
    checks: int  # the chapter's checks of the engine (engine_checks): what the score counts
    passed: int  # of those, the ones that passed (run in order)
    failure: Failure | None = None  # the chapter's first failing check, counted or not
    not_run: int = 0  # checks of the engine not run: the chapter stopped before them
    book_checks: int = 0  # checks about the book, not the engine: not counted
    elsewhere: int = 0  # checks not run here, since the page's Python cannot run them
    elsewhere_counted: int = 0  # of those, checks of the engine


def _event_of_failure(error: BaseException, chapter: Path, engine: Path, fallback: int) -> dict:
    """What the child reports about a failing check: where in the chapter, where in the engine."""
    frames = traceback.extract_tb(error.__traceback__)
    names = (str(chapter), relative(chapter, ROOT))  # as the chapter's code is compiled
    in_chapter = [f.lineno for f in frames if f.filename in names]
    in_engine = [f for f in frames if f.filename == str(engine)]
    event = {"line": in_chapter[-1] if in_chapter else fallback, "kind": type(error).__name__}
    if isinstance(error, SyntaxError) and error.filename in names and error.lineno:
        event["line"] = error.lineno
    event["message"] = describe_error(error)
    if in_engine:
        event["engine_line"], event["function"] = in_engine[-1].lineno, in_engine[-1].name
    return event


DIAGNOSIS_BUDGET = 30.0  # seconds a chapter may spend finding the function to fix


def _engine_functions(module: types.ModuleType) -> dict[object, list[str]]:
    """Each code object of the learner's module -> the qualified names that call it
    (``Value.__add__`` and ``Value.__radd__``, when one is the other)."""
    found: dict[object, list[str]] = {}

    def note(value: object, name: str) -> None:
        code = getattr(getattr(value, "__func__", value), "__code__", None)
        if code is not None and code.co_filename == module.__file__:
            found.setdefault(code, []).append(name)

    for name, value in vars(module).items():
        if isinstance(value, type) and value.__module__ == module.__name__:
            for attribute, member in vars(value).items():
                note(member, f"{name}.{attribute}")
        else:
            note(value, name)
    return found


def _with_the_books(definition: Definition):
    """A patch for a learner's module: ``definition``, the book's own code, put in place
    of the learner's (compiled in the learner's module, so it uses the learner's Value)."""
    owner, _, name = definition.name.rpartition(".")
    code = compile(definition.source, f"<the book's {definition.name}>", "exec")

    def patch(module: types.ModuleType) -> None:
        if not owner:
            exec(code, module.__dict__)
            return
        cls = vars(module).get(owner)
        if isinstance(cls, type):
            space = dict(vars(cls))
            exec(code, module.__dict__, space)
            setattr(cls, name, space[name])

    return patch


def _passes_up_to(chapter: Path, engine: Path, index: int, patch=None) -> bool:
    book = Notebook(chapter, engine=engine, patch=patch)
    book.run_until(index + 1)
    return book.failure is None


def to_fix(chapter: Path, engine: Path, index: int, error: BaseException) -> str | None:
    """The function of the learner's engine that made check ``index`` fail, by qualified
    name; None if no one function can be named.

    A stub's NotImplementedError names itself. Otherwise the answer is found by
    experiment: the check runs again from the chapter's start, once with a profiler that
    notes which of the engine's functions it calls, then once for each of those (and each
    function of the book's engine that the learner's lacks), with that one function
    replaced by the book's own code. The first whose replacement makes the check pass is
    the one to fix. The innermost engine frame of the error is the answer when none does
    (two bugs at once), or after DIAGNOSIS_BUDGET seconds.
    """
    book_defs = book_definitions()
    book = Notebook(chapter, engine=engine)
    book.run_until(index)
    module = book.engine_module
    if book.failure is not None:
        return None
    functions = _engine_functions(module)
    frames = [f for f, _ in traceback.walk_tb(error.__traceback__)]
    raised = [functions.get(f.f_code, [None])[0] for f in frames if f.f_code in functions]
    raiser = raised[-1] if raised else None
    if isinstance(error, NotImplementedError) and raiser:
        return raiser
    called: dict[str, None] = {}

    def profile(frame, event, _):
        if event == "call" and frame.f_code in functions:
            called.update(dict.fromkeys(functions[frame.f_code]))

    sys.setprofile(profile)
    try:
        book.run_next()
    except Exception:
        pass
    finally:
        sys.setprofile(None)
    missing = [name for name in book_defs if not _defined(module, name)]
    started = time.monotonic()
    for name in dict.fromkeys([*missing, *([raiser] if raiser else []), *called]):
        if time.monotonic() - started > DIAGNOSIS_BUDGET:
            break
        if name in book_defs and _passes_up_to(
            chapter, engine, index, _with_the_books(book_defs[name])
        ):
            return name
    return raiser


def _defined(module: types.ModuleType, name: str) -> bool:
    owner, _, attribute = name.rpartition(".")
    holder = vars(module).get(owner) if owner else module
    return holder is not None and attribute in vars(holder)


def run_chapter(
    chapter: Path, engine: Path, tell, every: bool = False, skip: frozenset[int] = frozenset()
) -> None:
    """Run one chapter against ``engine`` in this process, calling ``tell(**event)`` per
    event: {"start": i}, then {"passed": i} or {"failed": i, ...} (i: a cell's index).
    With ``every``, it runs on past failures, reporting each check. The cells in ``skip``
    are not run (the page's Python cannot run them: tools/site/learner.py)."""
    book = Notebook(chapter, engine=engine)
    while book.next < len(book.cells):
        index = book.next
        if index in skip:
            book.next += 1
            continue
        tell(start=index)
        try:
            book.run_next()
        except KeyboardInterrupt:
            raise
        except BaseException as error:
            fence_line = book.cells[index].line - 1
            tell(failed=index, **_event_of_failure(error, chapter, engine, fence_line))
            if every:
                continue
            return
        tell(passed=index)


def run_chapter_here(chapter: str, engine: str, report: str, every: str = "") -> None:
    """``run_chapter`` in a child process, writing a JSON line per event to ``report``."""
    with open(report, "a", encoding="utf-8") as out:

        def tell(**event):
            out.write(json.dumps(event) + "\n")
            out.flush()

        run_chapter(Path(chapter), Path(engine), tell, every=bool(every))


def diagnosis(chapter: Path, engine: Path, index: int) -> str | None:
    """Run one chapter up to its failing check ``index`` again, and name the function to
    blame for the failure (``to_fix``), if one can be named."""
    book = Notebook(chapter, engine=engine)
    book.run_until(index)
    try:
        book.run_next()
    except Exception as error:
        return to_fix(chapter, engine, index, error)
    return None


def diagnose_here(chapter: str, engine: str, report: str, index: str) -> None:
    """``diagnosis`` in a child process, writing {"fix": name} to ``report`` if it names one."""
    fix = diagnosis(Path(chapter), Path(engine), int(index))
    if fix:
        with open(report, "a", encoding="utf-8") as out:
            out.write(json.dumps({"fix": fix}) + "\n")


CHILD = "import sys; from tools.learner import run_chapter_here; run_chapter_here(*sys.argv[1:])"
DIAGNOSE = "import sys; from tools.learner import diagnose_here; diagnose_here(*sys.argv[1:])"


def _run_child(
    chapter: Path, engine: Path, report: Path, timeout: float, *more: str, script: str = CHILD
) -> str | None:
    """Run one chapter in a child process; None if it ended normally, else why it did not."""
    errors = report.with_suffix(".stderr")
    with errors.open("w", encoding="utf-8") as stderr:
        child = subprocess.Popen(
            [sys.executable, "-c", script, str(chapter), str(engine), str(report), *more],
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


def _events(chapter: Path, engine: Path, timeout: float, *more: str, script: str = CHILD):
    """(the child's events, why it stopped early or None) for one chapter."""
    with tempfile.TemporaryDirectory(prefix="learner-") as scratch:
        report = Path(scratch) / "report.jsonl"
        stopped = _run_child(chapter, engine, report, timeout, *more, script=script)
        events = []
        for line in report.read_text(encoding="utf-8").splitlines() if report.exists() else []:
            with contextlib.suppress(ValueError):  # a line cut off by a timeout
                events.append(json.loads(line))
    return events, stopped


def outcomes(chapter: Path, engine: Path, timeout: float = DEFAULT_TIMEOUT) -> dict[int, bool]:
    """Every check of the chapter run against ``engine``, none stopping the chapter: cell
    index -> passed. (The experiment that ``engine_checks`` agrees with, in the tests.)"""
    events, _ = _events(chapter.resolve(), engine.resolve(), timeout, "every")
    cells = Chapter.read(chapter).cells
    ran = {e.get("passed", e.get("failed")): "passed" in e for e in events if "start" not in e}
    return {i: passed for i, passed in ran.items() if not cells[i].fence.is_engine}


def check_chapter(chapter: Path, engine: Path, timeout: float = DEFAULT_TIMEOUT) -> ChapterResult:
    """Run one chapter's checks against the micrograd.py at ``engine``, in a child process."""
    chapter, engine = chapter.resolve(), engine.resolve()
    events, stopped = _events(chapter, engine, timeout)
    return chapter_result(chapter, events, stopped)


def chapter_result(
    chapter: Path, events: list[dict], stopped: str | None, skipped: frozenset[int] = frozenset()
) -> ChapterResult:
    """A chapter's score from the events its run reported (``run_chapter``), and why the run
    stopped early (a timeout, a crash), if it did. ``skipped``: cells that were not run."""
    book = Chapter.read(chapter).cells
    every = [i for i, cell in enumerate(book) if not cell.fence.is_engine and i not in skipped]
    counted = engine_checks(chapter, engine_names())
    checks = sorted(counted - skipped)
    passed = sum(1 for e in events if "passed" in e and e["passed"] in checks)
    ran = {e.get("passed", e.get("failed")) for e in events} - {None}
    failed = next((e for e in events if "failed" in e), None)
    if failed is not None:
        raised_at = ""
        if "engine_line" in failed:
            raised_at = f"line {failed['engine_line']}, in {failed['function']}"
        failure = Failure(failed["line"], failed["message"], raised_at, failed["kind"])
        failure = dataclasses.replace(failure, index=failed["failed"])
    elif stopped is not None or not set(every) <= ran:
        started = [e["start"] for e in events if "start" in e]
        at = book[started[-1] if started else (every or [0])[0]]
        failure = Failure(at.line - 1, stopped or "the chapter stopped early", kind="stopped")
        ran |= {started[-1]} if started else set()  # the check that never finished
    else:
        failure = None
    not_run = len(set(checks) - ran)
    elsewhere = (len(skipped), len(skipped & counted))
    return ChapterResult(
        chapter, len(checks), passed, failure, not_run, len(every) - len(checks), *elsewhere
    )


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
        results = list(pool.map(lambda c: check_chapter(c, engine, timeout), selected))
    return diagnosed(results, engine, timeout)


def diagnosed(
    results: list[ChapterResult], engine: Path, timeout: float, find=None
) -> list[ChapterResult]:
    """``results`` with the function to fix (``to_fix``) named in the first failure, the one
    *Read next* is about: found in a child process, as the checks are, for that chapter
    alone (finding it reruns the chapter, a few times); or by ``find(chapter, index)``,
    if given (the page, which has no processes: tools/site/learner.py)."""
    first = next((r for r in results if r.failure), None)
    if first is None or first.failure.index is None or first.failure.kind == "EngineImportError":
        return results
    if find is not None:
        fix = find(first.chapter, first.failure.index) or ""
    else:
        index = str(first.failure.index)
        events, _ = _events(first.chapter, engine.resolve(), timeout, index, script=DIAGNOSE)
        fix = next((e["fix"] for e in events if e.get("fix")), "")
    if not fix:
        return results
    named = dataclasses.replace(first, failure=dataclasses.replace(first.failure, fix=fix))
    return [named if r is first else r for r in results]


def progress_table(results: list[ChapterResult], engine_name: str) -> str:
    """What the learner reads: a row per chapter (checks of the engine passing, first
    failing check), why each first failing check failed, and what to read next, in full.

    Only checks of the engine count (``engine_checks``); the checks about the book, which
    pass whatever the engine does, are counted apart, below the table."""
    broken = [r.failure for r in results if r.failure and r.failure.kind == "EngineImportError"]
    width = max([len(r.chapter.name) for r in results] + [len("chapter")])
    if broken:  # every chapter failed the same way before its first check
        said = broken[0].message.removeprefix("EngineImportError: ")
        rows = [f"{r.chapter.name:<{width}}  not run" for r in results]
        return "\n".join([f"No check could run: {said}", "", f"{'chapter':<{width}}", *rows]) + "\n"
    passed, total = sum(r.passed for r in results), sum(r.checks for r in results)
    digits = len(str(total))
    heading = "checks of your engine"
    column = max(len(heading), 2 * digits + 4)
    out = [f"{'chapter':<{width}}  {heading:>{column}}  first failing check"]
    for r in results:
        score = f"{r.passed} of {r.checks:>{digits}}" if r.checks else "none"
        row = f"{r.chapter.name:<{width}}  {score:>{column}}"
        if r.failure:
            row += f"  line {r.failure.line}, section '{heading_above(r.chapter, r.failure.line)}'"
        out.append(row)
    out.append(f"{'all':<{width}}  {f'{passed} of {total}':>{column}}")
    not_run = sum(r.not_run for r in results)
    if not_run:
        out[-1] += f"  ({not_run} not run: a chapter stops at its first failing check)"
    about_book = sum(r.book_checks for r in results)
    if about_book:
        checks = "check" if about_book == 1 else "checks"
        out.append(f"Not counted: {about_book} {checks} about the book, not your engine.")
    elsewhere = sum(r.elsewhere for r in results)
    if elsewhere:
        counted = sum(r.elsewhere_counted for r in results)
        checks = "check" if elsewhere == 1 else "checks"
        out.append(
            f"Not run on this page: {elsewhere} {checks} that need files or processes "
            f"({counted} of your engine); `python3 tools/dev.py learn` runs them in a terminal."
        )
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
    out += ["", *read_next(failing[0])]
    if failing[0].failure.raised_at:
        out.append(f"(raised in {engine_name}, {failing[0].failure.raised_at})")
    return "\n".join(out) + "\n"


def read_next(result: ChapterResult) -> list[str]:
    """Where to read before fixing the first failing check: the section that builds the
    function to fix (``Failure.fix``), and the sections that show its mistakes caught
    (``MISTAKES_SHOWN``); without a function to blame, the failing check's own section.
    Then the check's line, and the whole message (a long one cut in its middle)."""
    failure, chapter = result.failure, result.chapter
    here = where_in_book(chapter, failure.line)
    definition = book_definitions().get(failure.fix)
    if definition is None:
        out = [f"Read next: {here}."]
    else:
        builds = where_in_book(definition.chapter, definition.line)
        out = [f"Read next: {builds}, which builds {failure.fix}, the function to fix."]
        shown = mistake_sections(failure.fix)
        if shown:
            out.append(f"Mistakes in {failure.fix}, shown and caught: {'; '.join(shown)}.")
    source = chapter.read_text(encoding="utf-8").splitlines()[failure.line - 1]
    place = f"{relative(chapter, ROOT)}:{failure.line}"
    if definition is not None:
        section = heading_above(chapter, failure.line)
        place += f" (section '{section}')" if section else ""
    if not source.startswith("```"):  # the failing line itself, not the fence it is in
        out.append(f"The check that failed, {place}:  {source.strip()}")
    elif definition is not None:
        out.append(f"The check that failed: {place}.")
    message = failure.message.splitlines()
    if len(message) > SHOWN_MESSAGE_LINES:  # keep its start and its last lines
        cut = len(message) - SHOWN_MESSAGE_LINES + 1
        head, tail = SHOWN_MESSAGE_LINES // 2, SHOWN_MESSAGE_LINES - SHOWN_MESSAGE_LINES // 2 - 1
        message = [*message[:head], f"... ({cut} lines not shown) ...", *message[-tail:]]
    return out + message


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
