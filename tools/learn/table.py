"""The progress table a learner reads: a row per chapter, and what to read next."""

from __future__ import annotations

from tools import ROOT, relative
from tools.learn.places import book_definitions, heading_above, mistake_sections, where_in_book
from tools.learn.score import ChapterResult

SHOWN_MESSAGE_LINES = 30  # of a failure's message; a longer one loses its middle


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
