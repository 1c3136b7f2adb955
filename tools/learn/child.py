"""Running chapters against a learner's engine: in this process (``run_chapter``, the page's
way), or each in a child process with a time limit, forked from a server that holds the book
parsed (``_run_child``), writing an event a JSON line (``run_in_child``, ``check``), so that
an endless loop costs one chapter its timeout."""

import contextlib
import dataclasses
import json
import multiprocessing
import os
import signal
import tempfile
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tools import ROOT, engine_for
from tools.chapter import Chapter
from tools.learn.counted import engine_checks, engine_names, made_from, names_used, needs_optional
from tools.learn.diagnose import NO_ONE, diagnose_here, needed
from tools.learn.places import chapters_named
from tools.learn.table import ChapterResult, chapter_result
from tools.learn.wording import reprs_only, worded_otherwise
from tools.notebook import EngineImportError, Notebook, OutputMismatchError
from tools.page.kernel import describe

DEFAULT_TIMEOUT = 120.0  # seconds per chapter: many times what the slowest one needs
_ONE = threading.Lock()  # a child's exit code is read from a pipe: by one thread, else 255


def _event_of_failure(error: BaseException, book: Notebook, engine: Path, index: int) -> dict:
    """What the child reports about a failing check: where in the chapter, where in the engine."""
    place = book.runner.kernel.where(error)
    in_engine = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == str(engine)]
    here = place and place[0] == book.runner.chapter  # else the check's own line
    line = place[1] if here else book.cells[index].opening
    event = {"line": line, "kind": type(error).__name__, "message": describe(error)}
    outcome = book.runner.outcomes.get(index)
    printed = outcome.printed if outcome is not None else ""
    if printed and not isinstance(error, OutputMismatchError):  # a mismatch shows it already
        event["printed"] = printed
    if in_engine:
        event["engine_line"], event["function"] = in_engine[-1].lineno, in_engine[-1].name
    return event


def run_chapter(
    chapter: Path,
    engine: Path,
    tell,
    every: bool = False,
    skip: frozenset[int] = frozenset(),
    optional: bool | None = None,
    names: frozenset[str] | None = None,
) -> None:
    """Run one chapter against ``engine`` in this process, calling ``tell(**event)`` per
    event: {"start": i}, then {"passed": i}, {"wording": i} (it differs from the book only
    in the words of an error message or a repr: ``worded_otherwise``) or {"failed": i,
    ...}; or {"waits": i, "on": j} for a check not run, since it reads what failed check j
    left unsure (``names_used``, ``made_from``). Every other check runs after a failure.
    With ``every``, every check runs, whatever failed above it. The cells in ``skip`` are
    not run (the page's Python cannot run them: tools/learn/in_page.py); nor is a check about
    the book no counted check reads ({"aside": i}). The fences that import an OPTIONAL
    module run only if a counted check needs them (``needs_optional``), with ``every``, or
    if ``optional`` says so; ``names``: the engine's (``engine_names``), if known already (of
    its book, else; a child told these two by its parent spares a parse of the book)."""
    file = engine_for(engine)
    optional = needs_optional(chapter, file) if optional is None else optional
    book = Notebook(chapter, engine=engine, optional=every or optional)
    reads = names_used(chapter)
    counted = engine_checks(chapter, names or engine_names(chapter.parent, file), file)
    wanted = set(needed(chapter, *counted))  # the others tell nothing of it: set aside
    classes = frozenset(n for n, v in vars(book.engine_module).items() if isinstance(v, type))
    unsure: dict[int, frozenset[str]] = {}  # a cell that failed or waits -> its names unsure
    root: dict[int, int] = {}  # such a cell -> the failed check it waits on (or itself)
    while book.next < len(book.cells):
        index = book.next
        if index in skip:
            book.next += 1
            continue
        cell = book.cells[index]  # the runner's: line, code
        if not (every or cell.engine or index in wanted):
            tell(aside=index)
            book.next += 1
            continue
        waits = [root[i] for name, i in reads[index].items() if name in unsure.get(i, ())]
        if waits and not every:
            root[index], unsure[index] = min(waits), made_from(cell.code, 0)
            tell(waits=index, on=root[index])
            book.next += 1
            continue
        if cell.blocked:  # it needs what this Python lacks (an optional module); it waits
            # first, if it would, so that a check after it waits alike, whatever is installed
            tell(blocked=index, why=cell.blocked)
            book.next += 1
            continue
        tell(start=index)
        try:
            book.run_next()
        except KeyboardInterrupt:
            raise
        except BaseException as error:
            error = worded_otherwise(book, index, error, classes)
            if error is None:
                tell(wording=index)
                continue
            event = _event_of_failure(error, book, engine, index)
            tell(failed=index, **event)
            if isinstance(error, EngineImportError):
                return  # every check would fail the same way
            line = event["line"] - cell.line + 1  # from its failing statement on, if known
            if isinstance(error, OutputMismatchError) or not 1 <= line <= cell.code.count("\n"):
                line = 0  # all it made is unsure
            made = made_from(cell.code, line)
            if isinstance(error, OutputMismatchError) and reprs_only(book, index, classes):
                made = frozenset()  # only a repr read otherwise: nothing it made is in doubt
            root[index], unsure[index] = index, made
            continue
        tell(passed=index)


def run_chapter_here(chapter: Path, engine: Path, report: Path, **options) -> None:
    """``run_chapter`` in a child process, writing a JSON line per event to ``report``."""
    with open(report, "a", encoding="utf-8") as out:

        def tell(**event):
            out.write(json.dumps(event) + "\n")
            out.flush()

        run_chapter(chapter, engine, tell, **options)


def _forked(target, errors: Path, *args, **options) -> None:
    """``target(*args, **options)`` in a child process, set up as ``_run_child`` says."""
    if os.name == "posix":
        os.setsid()  # a process group of its own, so that a timeout ends what it started, too
    os.chdir(ROOT)
    for fd, path in ((0, os.devnull), (1, os.devnull), (2, errors)):  # what it starts, too
        os.dup2(os.open(path, os.O_RDWR), fd)
    target(*args, **options)


def _run_child(target, errors: Path, timeout: float, *args, **options) -> str | None:
    """``target(*args, **options)`` in a child process, in ROOT, output to nowhere, errors to
    ``errors``: on POSIX forked from a server holding learner mode and the parsed book
    (tools/learn/preload.py), else a new Python. None if it ended well, else why not."""
    from multiprocessing.connection import wait  # not where the page runs this file

    processes = multiprocessing.get_context("forkserver" if os.name == "posix" else "spawn")
    processes.set_forkserver_preload(["tools.learn.preload"])
    child = processes.Process(target=_forked, args=(target, errors, *args), kwargs=options)
    errors.touch()
    with _ONE:  # a start polls the children other threads started: each reads its end once
        child.start()
    wait([child.sentinel], timeout)
    with _ONE:
        code = child.exitcode
    if code is None:  # timed out: end it, and on POSIX what it started
        with contextlib.suppress(AttributeError, ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        child.kill()
        child.join()
        longer = f"give it longer: --timeout {2 * timeout:g}"
        return f"timed out after {timeout:g} s: the chapter did not finish; {longer}"
    if code == 0:
        return None
    tail = errors.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-3:]
    return "\n".join([f"the process running the chapter stopped (exit code {code})", *tail])


def run_in_child(chapter, engine, timeout, *more, target=run_chapter_here, **options):
    """(the child's events, why it stopped early or None) for one chapter: ``target``'s,
    called with it, the engine, a report file, ``more`` and ``options``."""
    with tempfile.TemporaryDirectory(prefix="learner-") as scratch:
        report = Path(scratch) / "report.jsonl"
        args = (chapter, engine, report, *more)
        stopped = _run_child(target, report.with_suffix(".stderr"), timeout, *args, **options)
        events = []
        for line in report.read_text(encoding="utf-8").splitlines() if report.exists() else []:
            with contextlib.suppress(ValueError):  # a line cut off by a timeout
                events.append(json.loads(line))
    return events, stopped


def check_chapter(chapter: Path, engine: Path, timeout: float = DEFAULT_TIMEOUT) -> ChapterResult:
    """Run one chapter's checks against the micrograd.py at ``engine``, in a child process;
    a chapter without checks of the engine (``engine_checks``) is not run."""
    chapter, file = chapter.resolve(), engine_for(engine)
    names = engine_names(engine=file)
    if not engine_checks(chapter, names, file):  # nothing of it to check
        cells = Chapter.read(chapter).cells
        return ChapterResult(chapter, 0, 0, book_checks=sum(not c.fence.is_engine for c in cells))
    optional = needs_optional(chapter, file)
    found = run_in_child(chapter, engine.resolve(), timeout, optional=optional, names=names)
    return chapter_result(chapter, *found, file=file)


def check(
    engine: Path,
    selected: list[Path] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    jobs: int | None = None,
    progress=None,
    named=None,
) -> list[ChapterResult]:
    """Every chapter's checks (or those of ``selected`` chapters) against ``engine``, each
    chapter in a process of its own, ``jobs`` at a time. ``progress(result)`` is called
    for each chapter, in reading order, as soon as it and those before it are done. The
    function to fix in the first failing chapter is looked for as soon as that chapter
    is known to be the first, while the later ones run; ``named(result)``, if given, is
    called with that chapter's result as soon as it is found, even before the others end."""
    if not engine.is_file():
        raise FileNotFoundError(
            f"{engine}: no such file (write one with `python3 tools/dev.py skeleton`)"
        )
    selected = selected or chapters_named([])
    results, looking = [], None
    with (
        ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool,
        ThreadPoolExecutor(max_workers=1) as doctor,
    ):
        runs = [pool.submit(check_chapter, c, engine, timeout) for c in selected]
        for run in runs:
            results.append(run.result())
            if progress is not None:
                progress(results[-1])
            if looking is None and results[-1].failure is not None:
                looking = doctor.submit(diagnosed, list(results), engine, timeout)
                if named is not None:
                    looking.add_done_callback(lambda done: named(done.result()[-1]))
        if looking is None:
            return results
        named = looking.result()[-1]
    return [named if r.chapter == named.chapter else r for r in results]


def diagnosed(
    results: list[ChapterResult], engine: Path, timeout: float, find=None
) -> list[ChapterResult]:
    """``results`` with the function to fix (``to_fix``) named in the first failure, the one
    *Read next* is about: found in a child process, as the checks are, for that chapter
    alone; or by ``find(chapter, index, said)``, if given (the page, which has no processes:
    tools/learn/in_page.py)."""
    first = next((r for r in results if r.failure), None)
    if first is None or first.failure.kind == "EngineImportError":
        return results
    said = first.failure.message.split("\n")[0]
    if first.failure.index is None:  # no check failed: the chapter stopped
        found = {"why": f"no check failed: the chapter stopped ({said})"}
    elif find is not None:
        found = find(first.chapter, first.failure.index, said) or {}
    else:
        asked = (first.chapter, engine.resolve(), timeout, first.failure.index, said)
        events, stopped = run_in_child(*asked, target=diagnose_here)
        found = next(
            (e for e in events if "fix" in e),
            {"why": f"looking for it {stopped or 'ended without an answer'}"},
        )
    told = {
        "fix": found.get("fix", ""),
        "seen": found.get("seen"),
        "unnamed": "" if found.get("fix") else found.get("why") or NO_ONE,
        "compared": tuple(tuple(row) for row in found.get("compared", ())),
    }
    named = dataclasses.replace(first, failure=dataclasses.replace(first.failure, **told))
    return [named if r is first else r for r in results]
