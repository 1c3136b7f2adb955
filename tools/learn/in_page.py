"""Learner mode in the page's Python: the book's checks against the engine a reader wrote in
the chapter "Rebuild it yourself", run by the same code as in a terminal (tools/learn/),
from the book as one zip (tools/site/learner.py) unpacked beside the page's own Python.
What a browser lacks is all that differs: no processes (each chapter runs in the worker,
which the page ends at its time limit), and no fences that need files or processes.
"""

import json
import os
import re
import sys
from pathlib import Path

from tools import DOCS, ENGINE, relative
from tools.chapter import Chapter, chapters
from tools.learn.best import best_lines, now, remember
from tools.learn.child import DEFAULT_TIMEOUT, diagnosed, run_chapter
from tools.learn.diagnose import diagnosis
from tools.learn.hints import AFTER, LEVELS, hint, next_level, unnamed_hint
from tools.learn.table import Failure, chapter_result, page_table
from tools.notebook import blocked
from tools.page.protocol import check


def _blocked(chapter: Path) -> frozenset[int]:
    """The cells of ``chapter`` that the page's Python cannot run."""
    cells = Chapter.read(chapter).cells
    return frozenset(i for i, why in enumerate(blocked([c.fence for c in cells])) if why)


WORKING = "/tmp/learner"  # in the page's Python: where the learner's micrograd.py is written


def _engine_file(engine: str, folder: str) -> Path:
    """Write the learner's engine where the checks import it from: ``micrograd.py`` in
    ``folder``, made the working folder, so that messages name it as the learner does."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if Path.cwd() != folder:
        sys.path.insert(0, os.getcwd())  # the page's own Python files stay importable
        os.chdir(folder)
    path = Path(ENGINE)
    path.write_text(engine, encoding="utf-8")
    return path


def check_in_page(name: str, engine: str, tell, folder: str = WORKING) -> None:
    """Run chapter ``name`` against the engine's text, calling ``tell(json_text)`` per event
    (tools/learn/child.py's ``run_chapter``), each a "learner event" of tools/page/protocol.py."""
    chapter = DOCS / name
    run_chapter(
        chapter,
        _engine_file(engine, folder),
        lambda **event: tell(json.dumps(check("learner event", event))),
        skip=_blocked(chapter),
    )


def table_in_page(
    runs: str, engine: str, diagnose: bool, kept: str = "null", folder: str = WORKING
) -> str:
    """The table `learn` prints for the chapters run so far, and what the page keeps, as
    JSON: {"rows": the table's rows (``page_table``; none if no check could run), "table":
    the text below them in parts (``linked``), "record": the best scores so far
    (tools/learn/best.py; ``kept``, JSON, is the page's, or null), "fix": the function to
    fix or "", "hints": its hints, each in parts, first to last (tools/learn/hints.py), or
    the one that says why none could be named, "next": the hint to show next, from 1, by
    how many were given already (the page only looks it up)}.
    ``runs`` is JSON, a list of {"chapter": name, "events": [...], "stopped": why or null}.
    With ``diagnose``, the function to fix is found first (rerunning the failing chapter, in
    this process)."""
    asked = [check("learner run", run) for run in json.loads(runs)]  # before anything is done
    path = _engine_file(engine, folder)
    results = []
    for run in asked:
        chapter = DOCS / run["chapter"]
        events, stopped = run["events"], run["stopped"]
        results.append(chapter_result(chapter, events, stopped, _blocked(chapter)))
    if diagnose:  # found in this process: the page has no other
        find = lambda chapter, index, said: diagnosis(chapter, path, index, said)  # noqa: E731
        results = diagnosed(results, path, DEFAULT_TIMEOUT, find=find)
    record = remember(json.loads(kept) or {}, results, now())
    rows, text = page_table(results, ENGINE)
    first = next((r for r in results if r.failure), None)
    fix, gave = first.failure.fix if first else "", record["hints"]  # given before this Check
    fix = fix or ([*gave][-1] if gave and not first else "")  # after success, hints stay
    checked = gave.get(fix, 0) >= LEVELS - 1  # the answer only after a Check since the rule
    if fix:
        failure = first.failure if first else Failure(0, "")
        said = [
            hint(fix, level, seen=failure.seen, compared=failure.compared)
            for level in range(1, LEVELS + 1)
        ]
        said[LEVELS - 2] += [] if checked else [AFTER]
    else:
        said = [unnamed_hint(first)] if first and diagnose else []
    hints = [linked("\n".join(lines)) for lines in said]
    # which hint the Hint button shows next, by how many were given (``next_level``)
    after = [min(next_level(n, checked), len(hints)) for n in range(LEVELS + 1)] if hints else []
    table = linked(text + best_lines(record, results))
    shown = {"table": table, "record": record, "fix": fix, "hints": hints, "next": after}
    return json.dumps(check("learner table", {**shown, **({"rows": rows} if rows else {})}))


def linked(text: str, docs: Path = DOCS) -> list[list]:
    """``text`` in parts, as ``[part, chapter, section]``: a part that names a place of the
    book (as where_in_book writes it, or a chapter and section, or a chapter alone) has its
    chapter's path and its section's heading ("" for the chapter); the other parts have
    None. At each place the longest name is taken, as a reader would read it."""
    places = {}
    for path in chapters(docs):
        chapter, name = Chapter.read(path), relative(path, docs.parent)
        page = f" (page '{chapter.title}')"
        for heading in chapter.headings:
            section = f"{name}, section '{heading.text}'"
            places[section + page] = places[section] = (name, heading.text)
        places[name + page] = places[name] = (name, "")
    longest_first = sorted(places, key=len, reverse=True)
    parts, at = [], 0
    for match in re.finditer("|".join(map(re.escape, longest_first)), text):
        parts += [[text[at : match.start()], None, None], [match[0], *places[match[0]]]]
        at = match.end()
    return [part for part in [*parts, [text[at:], None, None]] if part[0]]
