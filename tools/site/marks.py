"""Marks a page gets while the site is built, which plain Markdown cannot carry: a class on
each folded block from what its summary says (``label_folds``), and the links to
micrograd.py offered as a download (``offer_download``).
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
