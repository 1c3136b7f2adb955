"""Hints before the answer, one more each time a learner asks (Rustlings' way): first the
section that builds the function to fix; then the rule it must follow, in words, as the book
writes it in a folded block of hints next to the function (``tools.chapter.HINTS``); then
the worked example the hint links to, or else the book's own code for that one function.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path

from tools import DOCS, relative
from tools.chapter import Chapter, Hint, chapters
from tools.learn.places import book_definitions, one_at_a_time, where_in_book

LEVELS = 3


@one_at_a_time
@functools.lru_cache(maxsize=8)
def book_hints(docs: Path = DOCS) -> dict[str, Hint]:
    """Every hint of the book, by the function it is about (the first, if two are)."""
    found: dict[str, Hint] = {}
    for path in chapters(docs):
        for hint in Chapter.read(path).hints:
            found.setdefault(hint.name, hint)
    return found


def section_linked(hint: Hint) -> tuple[Path, int] | None:
    """The chapter and heading line of the first link of ``hint`` to a section of the book
    ("#anchor" in its own chapter, "other.md#anchor" in another), if it has one."""
    for link in hint.links:
        file, _, anchor = link.partition("#")
        path = hint.path.parent / file if file else hint.path
        if not path.is_file():
            continue
        heading = next((h for h in Chapter.read(path).headings if h.anchor == anchor), None)
        if heading is not None:
            return path, heading.line
    return None


_LINK = re.compile(r"\[(?P<label>[^\]]*)\]\((?P<target>[^)\s]*)\)")
_STRONG = re.compile(r"\*\*(?P<text>[^*]+)\*\*|(?<![\w*])\*(?P<em>[^*\s][^*]*)\*(?!\w)")


def plain(hint: Hint) -> str:
    """The hint's text as a terminal, or the page's table, shows it: a link to a section
    written as the table names places (so the page links it again), emphasis unmarked;
    code in backticks and math as written."""

    def place(link: re.Match) -> str:
        found = section_linked(dataclasses.replace(hint, links=(link["target"],)))
        return where_in_book(found[0], found[1] + 1) if found else link["label"]

    text = _LINK.sub(place, hint.text)
    return _STRONG.sub(lambda m: m["text"] or m["em"], text)


def worked(name: str, docs: Path = DOCS) -> str | None:
    """Where the book works through a mistake in ``name``, caught (the section its hint
    links to), as the table names places; None if its hint links to no section."""
    said = book_hints(docs).get(name)
    found = section_linked(said) if said is not None else None
    return where_in_book(found[0], found[1] + 1) if found else None


def hint(name: str, level: int, docs: Path = DOCS) -> list[str]:
    """Hint ``level`` (1 to LEVELS) about the engine's function ``name``, as lines."""
    definition = book_definitions(docs).get(name)
    if definition is None:
        return []
    said = book_hints(docs).get(name)
    head = f"Hint {level} of {LEVELS} for {name}:"
    if level <= 1:
        return [f"{head} read {where_in_book(definition.chapter, definition.line)}."]
    if level == 2 and said is not None:
        return [f"{head} {plain(said)}"]
    example = worked(name, docs)
    if example is not None:
        return [f"{head} the worked example, {example}."]
    place = relative(definition.chapter, docs.parent)
    return [f"{head} the book's own code ({place}):", *definition.source.rstrip().splitlines()]
