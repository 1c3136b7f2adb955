"""Marks a page gets while the site is built, which plain Markdown cannot carry: a class on
each folded block from what its summary says (``label_folds``), and the links to
micrograd.py offered as a download (``offer_download``).
"""

import re

from tools import ENGINES

# the first word of a summary -> the kind of fold (a figure's fold holds its steps)
KINDS = {"Checks": "checks", "Check": "checks", "Solution": "solution", "Answer": "answer"}
KINDS |= {"Figure": "steps"}

_FOLD = re.compile(r'<details(?P<md> markdown="1")?>(\s*<summary>)(?P<word>\w+)')


def label_folds(html_text: str) -> str:
    """``html_text`` (a chapter, or its HTML) with each <details> classed by the first word
    of its summary."""

    def label(match: re.Match) -> str:
        kind = KINDS.get(match["word"])
        if kind is None:
            return match[0]
        return f'<details class="fold-{kind}"{match["md"] or ""}>{match[2]}{match["word"]}'

    return _FOLD.sub(label, html_text)


_FILES = "|".join(map(re.escape, ENGINES))
_ENGINE_LINK = re.compile(rf"\[(?P<text>[^\]\n]*)\]\((?:\.\./)*(?P<file>{_FILES})\)")


def offer_download(markdown: str) -> str:
    """``markdown`` (a chapter) with each link to an engine file made a link to the site's
    copy marked ``download``, so a click saves micrograd.py (tensor.py) instead of showing it."""
    return _ENGINE_LINK.sub(r'<a download href="\g<file>">\g<text></a>', markdown)
