"""Hints before the answer, one more each time a learner asks (Rustlings' way), three
distinct rungs, never counted out loud (telling learners how many remain invites clicking
through to the last: Guo, Heffernan and Beck): first where to look, the section that builds
the function to fix and what to compare there; then the rule it must follow, in words, as
the book writes it in a folded block of hints next to the function (``tools.chapter.HINTS``);
then, once the checks ran again since the rule (``next_level``), a worked example of the
learner's own mistake: the program of the mistake the diagnosis saw (tools/learn/mistakes.py)
and where the book works that one through, or else the check's own input with the book's
value and theirs and the rule as the why; or, with neither, the book's own code for that one
function. Math reads as text (``readable``). When no function could be named, the hint says
why, and what to try (``unnamed``).
"""

import ast
import dataclasses
import functools
import re
from pathlib import Path

from tools import DOCS, ENGINE, relative
from tools.chapter import Chapter, Hint, chapters
from tools.learn.compare import compared_lines
from tools.learn.mistakes import MISTAKES, mistake
from tools.learn.places import book_definitions, one_at_a_time, section_showing, where_in_book

LEVELS = 3
_COMPARE = (  # the first rung's comparison, when no mistake was seen
    "what your {short} does with what the section's code does, step by step, on the input "
    "of the check that failed"
)


@one_at_a_time
@functools.lru_cache(maxsize=8)
def book_hints(docs: Path = DOCS, engine: str = ENGINE) -> dict[str, Hint]:
    """Every hint of the book about ``engine``'s functions, by function (the first of two)."""
    found: dict[str, Hint] = {}
    for path in chapters(docs):
        for hint in Chapter.read(path).hints:
            if (hint.fence.engine if hint.fence else ENGINE) == engine:
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


_WORKED = re.compile(r"\s*Worked: \[[^\]]*\]\([^)]*\)\.?\s*$")


def plain(hint: Hint) -> str:
    """The hint's text as a terminal, or the page's table, shows it: a link to a section
    written as the table names places (so the page links it again), emphasis unmarked;
    code in backticks and math as written."""

    def place(link: re.Match) -> str:
        found = section_linked(dataclasses.replace(hint, links=(link["target"],)))
        return where_in_book(found[0], found[1] + 1) if found else link["label"]

    text = _LINK.sub(place, hint.text)
    return readable(_STRONG.sub(lambda m: m["text"] or m["em"], text))


_TEX = {"partial": "∂", "cdot": "·", "times": "\u00d7", "sum": "Σ", "log": "log", "top": "ᵀ"}
_TEX |= {"alpha": "\u03b1", "theta": "θ", "sigma": "\u03c3", "varepsilon": "ε", "infty": "∞"}


def readable(text: str) -> str:
    """``$…$`` math as a terminal can show it: symbols for commands, x^(n-1) for
    x^{n-1}, (a)/(b) for \\frac{a}{b}, the dollars gone."""

    def math(found: re.Match) -> str:
        tex = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)", found[1])
        word = r"\\([A-Za-z]+)( ?)"  # a space after a word (log) kept, after a symbol not
        tex = re.sub(word, lambda m: (s := _TEX.get(m[1], m[1])) + m[2] * (len(s) > 1), tex)
        tex = re.sub(r"\^\{([^{}]*)\}", r"^(\1)", tex)
        return re.sub(r"_\{([^{}]*)\}", r"_\1", tex).replace("{", "").replace("}", "")

    return re.sub(r"\$([^$]+)\$", math, text)


def rule(hint: Hint) -> str:
    """The rule of ``hint`` in words (``plain``), without the link to its worked example,
    which the last rung gives."""
    return plain(dataclasses.replace(hint, text=_WORKED.sub("", hint.text)))


def worked(name: str, docs: Path = DOCS, engine: str = ENGINE) -> str | None:
    """Where the book works through a mistake in ``name``, caught (the section its hint
    links to), as the table names places; None if its hint links to no section."""
    said = book_hints(docs, engine).get(name)
    found = section_linked(said) if said is not None else None
    return where_in_book(found[0], found[1] + 1) if found else None


def shown_where(name: str, seen: dict | None, docs=DOCS, engine=ENGINE) -> str | None:
    """Where the book shows the mistake ``seen`` in ``name`` (or, if none was seen, the
    one its hint links to)."""
    made = mistake(seen["mistake"]) if seen else None
    if made is not None:
        return section_showing(made.shown_by, docs)
    if any(name in m.functions for m in MISTAKES):  # told apart, and none of them: the
        return None  # hint's example shows another mistake
    return worked(name, docs, engine)


def hint(
    name: str, level: int, docs=DOCS, seen: dict | None = None, compared=(), engine=ENGINE
) -> list[str]:
    """Hint ``level`` (1 to LEVELS) about the engine's function ``name``, as lines;
    ``seen``: the mistake the diagnosis saw in it (tools/learn/mistakes.py ``seen``);
    ``compared``: what the failing check read, with the learner's engine and the book's
    (tools/learn/compare.py), the example of the last rung when no mistake was seen."""
    definition = book_definitions(docs, engine).get(name)
    if definition is None:
        return []
    said = book_hints(docs, engine).get(name)
    made = mistake(seen["mistake"]) if seen else None
    head = f"Hint {level} for {name}:"
    short = name.rpartition(".")[2]
    if level <= 1:
        compare = made.compare if made else _COMPARE.format(short=short)
        return [
            f"{head} read {where_in_book(definition.chapter, definition.line)}; compare {compare}."
        ]
    if level == 2:
        if said is not None:
            return [f"{head} {rule(said)}"]
        node = ast.parse(definition.source).body[0]
        defines = isinstance(node, ast.FunctionDef | ast.ClassDef)
        doc = (ast.get_docstring(node) if defines else "") or ""
        if doc:
            return [f"{head} {doc.splitlines()[0]}"]
    if made is not None:
        return [
            f"{head} a worked example of your mistake: your {short} {made.what}. This program",
            *(f"    {line}" for line in seen["code"].splitlines()),
            f"  with the book's engine gives {seen['book']};",
            f"  with yours it {_gives(seen['yours'])}.",
            f"Why: {made.why}. The book works it through in {shown_where(name, seen, docs)}.",
        ]
    if compared and said is not None:  # the check's own input is the example; the rule, why
        lines = compared_lines(compared)
        example = f"{head} a worked example of your mistake, the check that failed. {lines[0]}"
        return [example, *lines[1:], f"Why: your {short} breaks the rule: {rule(said)}"]
    place = relative(definition.chapter, docs.parent)
    code = [f"the book's own code ({place}):", *definition.source.rstrip().splitlines()]
    return [f"{head} {code[0]}", *code[1:]]


def _gives(said: str) -> str:
    return said if said.startswith("raises ") else f"gives {said}"


def next_level(given: int, checked: bool = True) -> int:
    """The hint to give after ``given`` were: the next, until the last, which stays; the
    last (the answer) only if the checks ran again since the one before it (``checked``)."""
    return min(given + 1, LEVELS if checked or given >= LEVELS else LEVELS - 1)


AFTER = "The last hint comes once you have run the checks again."


def unnamed_hint(result) -> list[str]:
    """The hint when no function of the learner's engine could be named for the first
    failing check of ``result`` (a ChapterResult): why, and what to try."""
    failure = result.failure
    why = failure.unnamed or "no function was looked for"
    where = f"line {failure.line} of {where_in_book(result.chapter, failure.line)}"
    return [
        f"No hint about one function: {why}.",
        f"Try: read the check that failed, {where}; run its code yourself against your "
        "engine and the book's, and compare what each gives, value by value; fix what "
        "differs first, then run learn again (it names the function once one change makes "
        "the check pass).",
    ]
