"""A learner's score, and the table that shows it: per chapter, the checks of the engine that
passed and the first failing check; then why each failed, and what to read next.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tools import ENGINE, ROOT, relative
from tools.chapter import Chapter
from tools.learn.compare import compared_lines
from tools.learn.counted import engine_checks, engine_names
from tools.learn.hints import shown_where
from tools.learn.mistakes import mistake
from tools.learn.places import book_definitions, heading_above, where_in_book

SHOWN_MESSAGE_LINES = 30  # of a failure's message; a longer one loses its middle


@dataclass(frozen=True)
class Failure:
    """A failing check of a chapter (or where the chapter stopped)."""

    line: int  # in the chapter: the check's, its opening backticks (every report's kind)
    message: str  # "Type: message", possibly several lines
    raised_at: str = ""  # "my-engine/micrograd.py:18, in __init__", if raised in the engine
    kind: str = ""  # the exception's type name
    fix: str = ""  # the engine's function to blame (``to_fix``), qualified: Value._backward
    index: int | None = None  # the failing check's cell index, if it failed (not stopped)
    printed: str = ""  # what the check printed before it failed (a mismatch shows its own)
    seen: dict | None = None  # the mistake made in ``fix`` (tools/learn/mistakes.py ``seen``)
    unnamed: str = ""  # why no function could be named, once the diagnosis looked
    compared: tuple = ()  # (what the check read, yours, the book's) (tools/learn/compare.py)
    at: int = 0  # the chapter line of the statement that failed, if known: quoted, not named
    engine: str = ENGINE  # the engine file ``fix`` is a function of (tensor.py)


@dataclass(frozen=True)
class ChapterResult:
    chapter: Path
    checks: int  # the chapter's checks of the engine (engine_checks): what the score counts
    passed: int  # of those, the ones that passed (wording apart, see ``worded``)
    failure: Failure | None = None  # the chapter's first failing check, counted or not
    not_run: int = 0  # checks of the engine not run: they wait on a failure, or time ran out
    book_checks: int = 0  # checks about the book, not the engine: not counted
    elsewhere: int = 0  # checks not run here, since the page's Python cannot run them
    elsewhere_counted: int = 0  # of those, checks of the engine
    lacking: tuple[str, ...] = ()  # why each check of the engine this Python cannot run was not
    failed: int = 0  # checks of the engine that failed
    worded: tuple[int, ...] = ()  # lines of passing checks worded otherwise than the book
    waiting: tuple[tuple[int, int], ...] = ()  # (a check's line, the failure's line) not run


def chapter_result(
    chapter: Path, events: list[dict], stopped: str | None, skipped=frozenset(), file=ENGINE
) -> ChapterResult:
    """A chapter's score from the events its run reported (``run_chapter``), and why the run
    stopped early (a timeout, a crash), if it did. ``skipped``: cells not run; ``file``: the
    engine file the learner's stands for."""
    book = Chapter.read(chapter).cells
    counted = engine_checks(chapter, engine_names(engine=file), file)
    lacking = {e["blocked"]: e["why"] for e in events if "blocked" in e}  # an optional module
    every = [i for i, cell in enumerate(book) if not cell.fence.is_engine and i not in skipped]
    checks = sorted(counted - skipped - set(lacking))
    done = {kind: {e[kind]: e for e in events if kind in e} for kind in _ENDS}
    passed = sum(1 for i in checks if i in done["passed"] or i in done["wording"])
    failures = {i: _failure(e, book[i].opening, file) for i, e in done["failed"].items()}
    ended = set().union(*done.values(), lacking)
    if stopped is not None or not set(every) <= ended:
        started = [e["start"] for e in events if "start" in e and e["start"] not in ended]
        at = started[-1] if started else next((i for i in every if i not in ended), every[-1])
        why = stopped or "the chapter stopped early"
        failures.setdefault(at, Failure(book[at].opening, why, kind="stopped"))
        ended.add(at)
    failure = failures[min(failures)] if failures else None
    failed_line = {i: f.line for i, f in failures.items()}
    waiting = tuple(
        (book[i].opening, failed_line[e["on"]])
        for i, e in sorted(done["waits"].items())
        if i in counted and e["on"] in failed_line
    )
    worded = tuple(book[i].opening for i in sorted(done["wording"]) if i in counted)
    return ChapterResult(
        chapter,
        len(checks),
        passed,
        failure,
        not_run=len(set(checks) - (ended - set(done["waits"]))),
        book_checks=len(set(every) - counted),
        elsewhere=len(skipped),
        elsewhere_counted=len(skipped & counted),
        failed=sum(1 for i in failures if i in counted),
        worded=worded,
        waiting=waiting,
        lacking=tuple(why for i, why in lacking.items() if i in counted),  # of the engine
    )


_ENDS = ("passed", "wording", "failed", "waits", "aside")  # how a check's turn ends


def _failure(event: dict, opening: int, file: str = ENGINE) -> Failure:
    raised_at = ""
    if "engine_line" in event:
        raised_at = f"line {event['engine_line']}, in {event['function']}"
    at = event["line"] if event["line"] > opening else 0  # else no statement was found
    return Failure(
        opening,
        event["message"],
        raised_at,
        event["kind"],
        index=event["failed"],
        printed=event.get("printed", ""),
        at=at,
        engine=file,
    )


@dataclass(frozen=True)
class Layout:
    """The table's columns, known before any chapter has run (rows are printed as chapters
    finish): the widest chapter name, and the digits of the total."""

    width: int
    digits: int

    @classmethod
    def of(cls, chapters: list[Path], total: int) -> Layout:
        return cls(max([len(c.name) for c in chapters] + [len("chapter")]), len(str(total)))

    @property
    def column(self) -> int:
        return max(len(HEADING), 2 * self.digits + 4)


HEADING = "checks of your engine"
COLUMNS = ("chapter", HEADING, "first failing check")


def table_head(layout: Layout) -> str:
    return f"{COLUMNS[0]:<{layout.width}}  {COLUMNS[1]:>{layout.column}}  {COLUMNS[2]}\n"


def row_cells(r: ChapterResult, digits: int = 1) -> tuple[str, str, str, str]:
    """A chapter's cells: name, score, first failing check ("": none), and that check's section."""
    score = f"{r.passed} of {r.checks:>{digits}}" if r.checks else "none"
    section = heading_above(r.chapter, r.failure.line) if r.failure else ""
    failing = f"line {r.failure.line}, section '{section}'" if r.failure else ""
    return r.chapter.name, score, failing, section


def table_row(r: ChapterResult, layout: Layout) -> str:
    """A chapter's line: its score, and its first failing check."""
    name, score, failing, _ = row_cells(r, layout.digits)
    row = f"{name:<{layout.width}}  {score:>{layout.column}}"
    return row + (f"  {failing}" if failing else "") + "\n"


def all_cells(results: list[ChapterResult]) -> tuple[str, str, str]:
    """The row under the chapters': every chapter's score, and how many failed or waited."""
    passed, total = sum(r.passed for r in results), sum(r.checks for r in results)
    failed, not_run = sum(r.failed for r in results), sum(r.not_run for r in results)
    said = [f"{failed} failed"] if failed else []
    said += [f"{not_run} not run: each uses what a failed check left unsure"] if not_run else []
    return "all", f"{passed} of {total}", ", ".join(said)


def page_table(results: list[ChapterResult], engine_name: str) -> tuple[dict | None, str]:
    """The page's table (in_page.py): rows of ``row_cells``, ``all_cells``, in ``linked``'s parts
    (a chapter links to its page, its failing check to its section); the text below them."""
    if _broken(results):
        return None, progress_table(results, engine_name)
    row = lambda *cells: dict(zip(("chapter", "score", "failing"), cells))  # noqa: E731
    plain = lambda *texts: row(*([[text, None, None]] if text else [] for text in texts))  # noqa: E731
    body = []
    for r in results:
        (name, score, failing, section), place = row_cells(r), relative(r.chapter, ROOT)
        at = [[failing, place, section]] if failing else []
        body.append(row([[name, place, ""]], [[score, None, None]], at))
    head, foot = plain(*COLUMNS), plain(*all_cells(results))
    caption = "Checks of your engine that pass, chapter by chapter"
    text = table_tail(results, engine_name, Layout(0, 0)).split("\n", 1)[1]  # but the "all" row
    return {"caption": caption, "head": head, "body": body, "foot": foot}, text.lstrip("\n")


def _broken(results: list[ChapterResult]) -> list[Failure]:  # if the engine did not import
    return [r.failure for r in results if r.failure and r.failure.kind == "EngineImportError"]


def progress_table(results: list[ChapterResult], engine_name: str) -> str:
    """What the learner reads: a row per chapter (checks of the engine passing, first
    failing check), why each first failing check failed, and what to read next, in full.

    Only checks of the engine count (``engine_checks``); the checks about the book, which
    pass whatever the engine does, are counted apart, below the table. ``table_head``,
    then ``table_row`` for each chapter, then ``table_tail``: the whole, in order."""
    layout = Layout.of([r.chapter for r in results], sum(r.checks for r in results))
    broken = _broken(results)
    rows = "" if broken else table_head(layout) + "".join(table_row(r, layout) for r in results)
    return rows + table_tail(results, engine_name, layout)  # broken: the tail says why


def table_tail(results: list[ChapterResult], engine_name: str, layout: Layout) -> str:
    """All below the chapters' rows: the totals, what was not counted or not run, why each
    chapter's first failing check failed, and what to read next."""
    width = layout.width
    if broken := _broken(results):  # every chapter failed the same way before its first check
        said = broken[0].message.removeprefix("EngineImportError: ")
        rows = [f"{r.chapter.name:<{width}}  not run" for r in results]
        return "\n".join([f"No check could run: {said}", "", f"{'chapter':<{width}}", *rows]) + "\n"
    name, score, said = all_cells(results)
    all_row = f"{name:<{width}}  {score:>{layout.column}}" + (f"  ({said})" if said else "")
    out = []  # then what was not counted or not run (below the table, in a page)
    worded = [(r, line) for r in results for line in r.worded]
    if worded:
        places = ", ".join(_places(worded))
        out.append(
            f"Passing, worded otherwise than the book (an error message or a repr): {places}."
        )
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
    lacking = [why for r in results for why in r.lacking]
    if lacking:
        checks = "check" if len(lacking) == 1 else "checks"
        out.append(f"Not run here: {len(lacking)} {checks} ({lacking[0]}).")
    failing = [r for r in results if r.failure]
    if not failing:
        return "\n".join([all_row, *out, "", f"Every check passes against {engine_name}."]) + "\n"
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
    first = failing[0]
    waiting = [line for line, on in first.waiting if on == first.failure.line]
    if waiting:
        lines = ", ".join(map(str, waiting))
        checks = "check waits" if len(waiting) == 1 else "checks wait"
        out.append(f"Not run until it passes: {len(waiting)} {checks} on it (lines {lines}).")
    return "\n".join([all_row, *out]) + "\n"


def _places(found: list[tuple[ChapterResult, int]]) -> list[str]:
    """docs/02-the-value-atom.md:81 and 107 ...: lines grouped by chapter."""
    by_chapter: dict[Path, list[int]] = {}
    for r, line in found:
        by_chapter.setdefault(r.chapter, []).append(line)
    return [f"{relative(c, ROOT)}:{', '.join(map(str, lines))}" for c, lines in by_chapter.items()]


def read_next(result: ChapterResult) -> list[str]:
    """Where to read before fixing the first failing check: the section that builds the
    function to fix (``Failure.fix``), and the section that shows a mistake in it caught
    (its hint's worked example); without a function to blame, the failing check's own
    section.
    Then the check's line, the whole message (a long one cut in its middle), and what
    the check printed before it failed."""
    failure, chapter = result.failure, result.chapter
    here = where_in_book(chapter, failure.line)
    definition = book_definitions(engine=failure.engine).get(failure.fix)
    if definition is None:
        out = [f"Read next: {here}."]
    else:
        builds = where_in_book(definition.chapter, definition.line)
        out = [f"Read next: {builds}, which builds {failure.fix}, the function to fix."]
        made = mistake(failure.seen["mistake"]) if failure.seen else None
        if made is not None:
            out.append(f"The mistake, as a small program shows it: your {failure.fix} {made.what}.")
        shown = shown_where(failure.fix, failure.seen, engine=failure.engine)
        if shown:
            out.append(f"A mistake in {failure.fix}, shown and caught: {shown}.")
    place = f"{relative(chapter, ROOT)}:{failure.line}"
    if definition is not None:
        section = heading_above(chapter, failure.line)
        place += f" (section '{section}')" if section else ""
    if failure.at:  # the failing statement, quoted: the check is named by its own line
        source = chapter.read_text(encoding="utf-8").splitlines()[failure.at - 1]
        out.append(f"The check that failed, {place}, at:  {source.strip()}")
    elif definition is not None:
        out.append(f"The check that failed: {place}.")
    out += _cut(failure.message.splitlines())
    out += compared_lines(failure.compared) if failure.kind != "OutputMismatchError" else []
    if failure.printed:
        out += ["The check printed, before it failed:", *_cut(failure.printed.splitlines())]
    return out


def _cut(lines: list[str]) -> list[str]:
    """``lines``, a long text losing its middle: its start and its last lines are kept."""
    if len(lines) <= SHOWN_MESSAGE_LINES:
        return lines
    cut = len(lines) - SHOWN_MESSAGE_LINES + 1
    head, tail = SHOWN_MESSAGE_LINES // 2, SHOWN_MESSAGE_LINES - SHOWN_MESSAGE_LINES // 2 - 1
    return [*lines[:head], f"... ({cut} lines not shown) ...", *lines[-tail:]]
