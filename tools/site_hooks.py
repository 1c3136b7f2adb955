"""MkDocs hooks for the book's site (named under ``hooks:`` in mkdocs.yml).

* Math: ``pymdownx.arithmatex`` (generic mode) marks ``$...$`` and ``$$...$$`` as
  ``<span class="arithmatex">\\(...\\)</span>`` and ``<div class="arithmatex">\\[...\\]</div>``;
  this hook replaces each with MathML from ``tools/mathml.py``, so math needs no JavaScript.
  Display math stays in its ``div.arithmatex``, which scrolls sideways on a narrow screen.
  LaTeX that latex2mathml cannot convert, or passes through as text (an unknown command
  such as ``\\foo``), is a build warning: an error under --strict. The hook runs before
  other plugins see a page's HTML (the print page copies it), hence its event priority.
* The engine, downloadable: ``micrograd.py`` (the committed file, from the repository's
  root) is copied into the site, and the chapters' links to ``../micrograd.py`` (right on
  GitHub and in VS Code) are pointed at that copy.
* The home page is "Home" in the navigation, so the book's title is not repeated there.
* Puts the repository root on ``sys.path``, for ``tools.mathml``.
"""

from __future__ import annotations

import html
import logging
import re
import sys
from pathlib import Path

from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # for tools.mathml below
    sys.path.insert(0, str(ROOT))

from tools.mathml import mathml  # noqa: E402  (needs ROOT on sys.path)

log = logging.getLogger("mkdocs.hooks.site_hooks")

_MATH = re.compile(
    r'<span class="arithmatex">\\\((?P<inline>.*?)\\\)</span>'
    r'|<div class="arithmatex">\\\[(?P<block>.*?)\\\]</div>',
    re.DOTALL,
)


ENGINE = "micrograd.py"


def on_files(files, config, **_):
    from mkdocs.structure.files import File

    files.append(File.generated(config, ENGINE, abs_src_path=str(ROOT / ENGINE)))
    return files


def on_page_markdown(markdown, page, **_):
    if page.file.src_uri == "index.md":
        page.meta.setdefault("title", "Home")
    return markdown.replace(f"](../{ENGINE})", f"]({ENGINE})")


@event_priority(50)  # before the print-site plugin copies the page (default priority: 0)
def on_page_content(html_text, page, **_):
    def to_mathml(match: re.Match) -> str:
        block = match["block"] is not None
        latex = html.unescape(match["block"] if block else match["inline"]).strip()
        try:
            if block:
                return f'<div class="arithmatex">{mathml(latex, display="block")}</div>'
            return mathml(latex, display="inline")
        except Exception as error:
            log.warning(
                "%s: cannot convert math %r to MathML: %s", page.file.src_path, latex, error
            )
            return match[0]

    return _MATH.sub(to_mathml, html_text)
