"""MkDocs hooks for the book's site (named under ``hooks:`` in mkdocs.yml).

* Math: ``pymdownx.arithmatex`` (generic mode) marks ``$...$`` and ``$$...$$`` as
  ``<span class="arithmatex">\\(...\\)</span>`` and ``<div class="arithmatex">\\[...\\]</div>``;
  this hook replaces each with MathML from latex2mathml, so math needs no JavaScript.
  LaTeX that latex2mathml cannot convert, or passes through as text (an unknown command
  such as ``\\foo``), is a build warning: an error under --strict.
* Pictures: puts the repository root on ``sys.path`` so that fences run by markdown-exec
  can ``import micrograd`` and ``import tools.pictures``.
"""

from __future__ import annotations

import html
import logging
import re
import sys
from pathlib import Path

from latex2mathml.converter import convert

ROOT = Path(__file__).resolve().parent.parent
log = logging.getLogger("mkdocs.hooks.site_hooks")

_MATH = re.compile(
    r'<span class="arithmatex">\\\((?P<inline>.*?)\\\)</span>'
    r'|<div class="arithmatex">\\\[(?P<block>.*?)\\\]</div>',
    re.DOTALL,
)
_MTEXT = re.compile(r"(<mtext[^>]*>)(.*?)(</mtext>)", re.DOTALL)
_TEXT_ESCAPE = re.compile(r"\\([_&%$#{}])")  # \_ in \text{one\_hot}, which latex2mathml keeps


def mathml(latex: str, display: str) -> str:
    """MathML for ``latex``; ValueError if latex2mathml cannot convert all of it."""
    out = convert(latex, display=display)
    out = _MTEXT.sub(
        lambda m: m[1] + _TEXT_ESCAPE.sub(lambda e: html.escape(e[1]), m[2]) + m[3], out
    )
    if "\\" in out:
        raise ValueError("latex2mathml does not know a command here")
    return out


def on_config(config):
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return config


def on_page_content(html_text, page, **_):
    def to_mathml(match: re.Match) -> str:
        block = match["block"] is not None
        latex = html.unescape(match["block"] if block else match["inline"]).strip()
        try:
            return mathml(latex, display="block" if block else "inline")
        except Exception as error:
            log.warning(
                "%s: cannot convert math %r to MathML: %s", page.file.src_path, latex, error
            )
            return match[0]

    return _MATH.sub(to_mathml, html_text)
