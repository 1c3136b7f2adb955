"""A learner's score: each chapter's checks of the engine run, passed, and its first failure.

``check`` runs every chapter in a child process of its own (child.py), several at once,
and names the function to fix in the first failure (``diagnosed``, diagnose.py).
"""

from __future__ import annotations

import dataclasses
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tools.chapter import Chapter
from tools.learn.child import DEFAULT_TIMEOUT, run_in_child
from tools.learn.counted import engine_checks, engine_names
from tools.learn.diagnose import DIAGNOSE
from tools.learn.places import chapters_named


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


def check_chapter(chapter: Path, engine: Path, timeout: float = DEFAULT_TIMEOUT) -> ChapterResult:
    """Run one chapter's checks against the micrograd.py at ``engine``, in a child process."""
    chapter, engine = chapter.resolve(), engine.resolve()
    events, stopped = run_in_child(chapter, engine, timeout)
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
        events, _ = run_in_child(first.chapter, engine.resolve(), timeout, index, script=DIAGNOSE)
        fix = next((e["fix"] for e in events if e.get("fix")), "")
    if not fix:
        return results
    named = dataclasses.replace(first, failure=dataclasses.replace(first.failure, fix=fix))
    return [named if r is first else r for r in results]
