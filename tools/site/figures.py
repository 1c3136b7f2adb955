"""The book's figures in its pages: each figure's SVG put into the page, in place of its <img>,
so it takes the page's colours, its text alternative becomes its label, and the data of a
control under it can find it by name (``with_data``). A figure drawn again for a phone
(``<name>.narrow.svg``) follows it, its ids made ``data-id`` (the page's ids stay unique),
and book.css shows one or the other.
"""

import html
import re
from pathlib import Path

from tools.figures.from_chapters import NARROW, STANDALONE_STYLE
from tools.site import page_data

_WIDTH = re.compile(r'<svg [^>]*?\bwidth="(?P<width>[\d.]+(?:pt|px)?)"')
_IMG = re.compile(r"^!\[(?P<alt>[^\]]*)\]\((?P<src>(?:\.\./)*figures/[\w-]+\.svg)\)$", re.M)


def inline(svg_file: str, alt: str, name: str) -> str:
    """A figure file as an element of a page: the page's colours, its text alternative,
    and its name."""
    svg = svg_file.strip().replace(STANDALONE_STYLE, "", 1)
    label = html.escape(alt, quote=True)
    width = _WIDTH.match(svg)
    if width:  # book.css sizes it from its drawn width on a phone
        drawn = width["width"] if width["width"][-1].isalpha() else width["width"] + "px"
        svg = svg.replace("height: auto", f"height: auto; --picture-width: {drawn}", 1)
    attributes = f'data-figure="{name}" role="img" aria-label="{label}" data-search-exclude=""'
    return svg.replace("<svg ", f"<svg {attributes} ", 1)


def inline_figures(markdown: str, docs: Path) -> str:
    """``markdown`` (a chapter) with each image of a figure in ``docs``/figures, a line of
    its own, replaced by a paragraph of its SVG (raw HTML: markdown="0" inside a fold)."""

    def to_svg(match: re.Match) -> str:
        file, alt = docs / "figures" / Path(match["src"]).name, match["alt"]
        svg = inline(file.read_text(encoding="utf-8"), alt, file.stem)
        narrow = file.with_suffix(NARROW + ".svg")
        if narrow.exists():
            phone = inline(narrow.read_text(encoding="utf-8"), alt, file.stem)
            phone = phone.replace('data-figure="', 'data-narrow="', 1)
            phone = phone.replace('class="picture"', 'class="picture-narrow"', 1)
            svg += re.sub(r'(?<![\w-])id="', 'data-id="', phone)
        return f'<p markdown="0">{svg}</p>'

    return _IMG.sub(to_svg, markdown)


def with_data(html_text: str, name: str, kind: str, data: dict) -> str | None:
    """``html_text`` with ``data`` as a hidden element (page_data.py) (``data-KIND="NAME"``) right
    after the SVG of figure ``name``: a step-through's, a nudge control's; None if the page
    does not show that figure."""
    start = html_text.find(f'<svg data-figure="{name}"')
    end = html_text.find("</svg>", start)
    if min(start, end) < 0:
        return None
    end += len("</svg>")
    return html_text[:end] + page_data.element(data, **{f"data_{kind}": name}) + html_text[end:]
