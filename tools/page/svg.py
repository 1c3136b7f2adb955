"""A drawing's SVG as the book shows it, whether Graphviz ran at build time or in the page:
black made the page's text colour, a transparent background, the book's font, and ids
made of the DOT names (``node-a0``), under the figure's name (``unique_ids``).
"""

import html
import re

FONT = "Helvetica"  # graphviz-pure measures it like Arial; browsers map it to Liberation Sans
# The attributes every graph is drawn with, written into its DOT (dot_for_graphviz): at
# build time (tools/figures/from_chapters.py), and in the page, where Graphviz runs as WebAssembly.
GRAPHVIZ_ATTRIBUTES = (
    f'graph [fontname="{FONT}", bgcolor="transparent"]; node [fontname="{FONT}"]; '
    f'edge [fontname="{FONT}"];'
)


def inline(svg: str, attributes: str = "") -> str:
    """Trim a standalone SVG file to an element that sits in an HTML page."""
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<!--.*?-->\n?|\s*<metadata>.*?</metadata>", "", svg, flags=re.DOTALL)
    root = '<svg class="picture" fill="currentColor" style="max-width: 100%; height: auto" '
    return svg.replace("<svg ", root + attributes, 1).strip()


def dot_for_graphviz(dot_text: str) -> str:
    """``dot_text`` with GRAPHVIZ_ATTRIBUTES as its first statements (as -G, -N and -E
    options would set them; viz.js 3.25's own options reach only what the DOT has not
    declared yet)."""
    opening = dot_text.index("{") + 1
    return f"{dot_text[:opening]}\n  {GRAPHVIZ_ATTRIBUTES}{dot_text[opening:]}"


def from_graphviz(svg: str) -> str:
    """Graphviz's SVG as the book shows it: black made the page's text colour, each group
    named after its DOT names, no tooltips, trimmed to sit in a page."""
    svg = re.sub(r'(fill|stroke)="black"', r'\1="currentColor"', svg)
    svg = _ids_from_names(svg)
    svg = re.sub(r"<title>.*?</title>\n?", "", svg)  # "n0->n1" tooltips mean nothing to a reader
    return inline(svg)


_GROUP = re.compile(
    r'<g id="(?:node|edge|clust)\d+" class="(?P<kind>node|edge|cluster)">\n'
    r"<title>(?P<name>.*?)</title>"
)


def _ids_from_names(svg: str) -> str:
    """Give each node, edge and cluster of a Graphviz SVG an id made of its DOT names
    (``node-a0``, ``edge-x0-a0``, a second arrow between the same two ``edge-x0-a0-2``,
    ``cluster-cluster_0``) instead of Graphviz's count (``node3``), so that a page can find
    the box of a node it knows (steps.py)."""
    taken: dict[str, int] = {}

    def named(match: re.Match) -> str:
        name = re.sub(r"[^\w-]", "_", html.unescape(match["name"]).replace("->", "-"))
        found = f"{match['kind']}-{name}"
        taken[found] = taken.get(found, 0) + 1
        if taken[found] > 1:
            found += f"-{taken[found]}"
        return f'<g id="{found}" class="{match["kind"]}">\n<title>{match["name"]}</title>'

    return _GROUP.sub(named, svg)


def unique_ids(svg: str, name: str) -> str:
    """Prefix every id in the SVG with the figure's name: several figures share a page."""
    for old in set(re.findall(r'\bid="([^"]+)"', svg)):
        svg = re.sub(rf'(\bid="|#){re.escape(old)}(?=[")])', rf"\g<1>{name}-{old}", svg)
    return svg
