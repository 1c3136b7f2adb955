"""Marks a page gets while the site is built, which plain Markdown cannot carry.

* The book's folded blocks, told apart: a class on each <details> from what its summary
  says (label_folds).
* The links to the engine, ``micrograd.py``, offered as a download (offer_download).

A chapter folds four kinds of things (plain ``<details>`` with a ``<summary>``, so the
Markdown carries no classes): the book's checks ("Checks", "Checks of ...", "Check: ..."),
a solution to an exercise ("Solution"), an answer ("Answer"), and a figure's table of steps
("Figure 3, step by step: ..."). Each gets ``fold-<kind>``, which book.css gives a look of
its own; a summary that starts otherwise is left as it is.
"""

from __future__ import annotations

import re

from tools import ENGINE

KINDS = {  # the first word of a summary -> the kind of fold
    "Checks": "checks",
    "Check": "checks",
    "Solution": "solution",
    "Answer": "answer",
    "Figure": "steps",
}

_FOLD = re.compile(r"<details>(\s*<summary>)(?P<word>\w+)")


def label_folds(html_text: str) -> str:
    """``html_text`` with each <details> classed by the first word of its summary."""

    def label(match: re.Match) -> str:
        kind = KINDS.get(match["word"])
        if kind is None:
            return match[0]
        return f'<details class="fold-{kind}">{match[1]}{match["word"]}'

    return _FOLD.sub(label, html_text)


_ENGINE_LINK = re.compile(rf'<a href="((?:\.\./)*{re.escape(ENGINE)})"')


def offer_download(html_text: str) -> str:
    """``html_text`` with each link to the site's copy of the engine marked ``download``,
    so a click saves micrograd.py instead of showing it."""
    return _ENGINE_LINK.sub(r'<a download href="\1"', html_text)
