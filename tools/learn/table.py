"""A learner's score, and the table that shows it: per chapter, the checks of the engine that
passed and the first failing check; then why each failed, and what to read next.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from tools import ROOT, relative
from tools.chapter import Chapter
from tools.learn.counted import engine_checks, engine_names
from tools.learn.places import book_definitions, heading_above, mistake_sections, where_in_book

SHOWN_MESSAGE_LINES = 30  # of a failure's message; a longer one loses its middle


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
