"""The chapters as the site shows them, and as plain Markdown shows them.

Site checks read the HTML that `mkdocs build --strict` wrote (built once, see conftest.py):
every python fence became highlighted code, engine fences carry their title, math became
MathML, nothing loads from the network, and the navigation follows the reading order.
Plain-Markdown checks parse each chapter as CommonMark, as VS Code's preview and GitHub
do, and refuse what only the site would render.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from markdown_it import MarkdownIt

from tools.tangle import ROOT, chapters, is_python, read_fences, runs_at_build

PAGES = chapters(ROOT / "docs")  # index.md first, then the chapters in reading order
_ids = [page.name for page in PAGES]

SOURCE_SHOWN = re.compile(r"\bsource=")  # markdown-exec shows the code only if asked to
TITLE = re.compile(r'\btitle="([^"]*)"')
PLAIN_PYTHON_INFO = re.compile(r'python(\s+[A-Za-z_][\w-]*="[^"]*")*')
SITE_ONLY_BLOCK = re.compile(r"(!!!|\?\?\?\+?|===\+?)\s")  # admonitions, details, tabs
FETCHING_LINKS = {"stylesheet", "preload", "modulepreload", "icon", "prefetch", "manifest"}
NOT_PROSE = {"pre", "code", "script", "style", "math", "svg", "textarea"}
PYTHON_CLASSES = {"language-python", "language-py", "language-python3"}
REMOTE_IN_CSS = re.compile(r"""(url\(\s*["']?|@import\s+["']?)(https?:)?//""", re.I)


def url_path(page: Path) -> str:
    """Where a chapter lands on the site (use_directory_urls: false, so links work from disk)."""
    return f"/{page.stem}.html"


class RenderedPage(HTMLParser):
    """The facts of one built page that the tests look at."""

    def __init__(self, html: str, path: str):
        super().__init__()
        self.path = path
        self.code_titles: list[str | None] = []  # one per highlighted python block
        self.text: list[str] = []  # what a reader sees as prose (no code, math, pictures)
        self.resources: list[str] = []  # URLs the page makes the browser fetch
        self.styles: list[str] = []  # inline CSS
        self.nav: list[str] = []  # pages linked from the navigation sidebar, in order
        self.footer: dict[str, str] = {}  # "prev"/"next" -> page
        self.math: list[str] = []  # the text of each <math> element
        self._skip = self._in_math = 0
        self._in_title = self._in_style = False
        self.feed(html)

    def _page(self, href: str) -> str:
        return urlsplit(urljoin(f"http://site{self.path}", href)).path

    def handle_starttag(self, tag, attrs):
        attr = {name: value or "" for name, value in attrs}
        classes = attr.get("class", "").split()
        if tag in NOT_PROSE:
            self._skip += 1
        if tag == "math":
            self.math.append("")
            self._in_math += 1
        if tag == "style":
            self._in_style = True
        if "style" in attr:
            self.styles.append(attr["style"])
        if tag == "div" and "highlight" in classes and PYTHON_CLASSES & set(classes):
            self.code_titles.append(None)
        if tag == "span" and "filename" in classes and self.code_titles:
            self.code_titles[-1] = ""
            self._in_title = True
        if tag in {"script", "img", "iframe", "source", "audio", "video", "embed"}:
            self.resources += [attr["src"]] if attr.get("src") else []
        if tag == "link" and FETCHING_LINKS & set(attr.get("rel", "").lower().split()):
            self.resources.append(attr.get("href", ""))
        linked = self._page(attr.get("href", "#"))
        if tag == "a" and "md-nav__link" in classes and "#" not in attr["href"][:1]:
            self.nav += [] if linked in self.nav else [linked]
        for direction in ("prev", "next"):
            if tag == "a" and f"md-footer__link--{direction}" in classes:
                self.footer[direction] = linked

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag in NOT_PROSE:
            self._skip -= 1

    def handle_endtag(self, tag):
        if tag in NOT_PROSE:
            self._skip -= 1
        if tag == "math":
            self._in_math -= 1
        if tag == "span":
            self._in_title = False
        if tag == "style":
            self._in_style = False

    def handle_data(self, data):
        if self._in_title:
            self.code_titles[-1] += data.strip()
        if self._in_style:
            self.styles.append(data)
        if self._in_math:
            self.math[-1] += data
        if not self._skip:
            self.text.append(data)


def rendered(site: Path, page: Path) -> RenderedPage:
    html_file = site / url_path(page).lstrip("/")
    return RenderedPage(html_file.read_text(encoding="utf-8"), url_path(page))


def commonmark(page: Path):
    return MarkdownIt("commonmark").parse(page.read_text(encoding="utf-8"))


def test_site_builds_strictly(site_build):
    log = (site_build.stdout + site_build.stderr).splitlines()
    problems = [line for line in log if line.startswith(("ERROR", "WARNING", "Aborted"))]
    assert site_build.returncode == 0, "`mkdocs build --strict` failed:\n" + "\n".join(
        problems or log[-40:]
    )


@pytest.mark.parametrize("page", PAGES, ids=_ids)
def test_python_fences_became_highlighted_code(built_site, page):
    expected = []  # the title bar each shown python fence should get (None: no title)
    for fence in read_fences(page):
        shown = not runs_at_build(fence.info) or SOURCE_SHOWN.search(fence.info)
        if fence.is_python and shown:
            title = TITLE.search(fence.info)
            expected.append(title[1] if title else None)
    shown = rendered(built_site, page).code_titles
    assert shown == expected, (
        f"{page.name}: the site shows {len(shown)} highlighted python blocks with titles "
        f"{shown}, but the chapter has {len(expected)} python fences with titles {expected}. "
        "A fence whose info string has bare words after `python` (e.g. `python notest`) "
        'is rendered as a paragraph: use key="value" attributes only.'
    )


@pytest.mark.parametrize("page", PAGES, ids=_ids)
def test_math_became_mathml(built_site, page):
    html = rendered(built_site, page)
    prose = " ".join(html.text)
    for leftover in ("$", "\\(", "\\["):
        at = prose.find(leftover)
        assert at < 0, f"{page.name}: unrendered math in the text: {prose[at - 60 : at + 60]!r}"
    has_math = any(
        "$" in child.content
        for token in commonmark(page)
        if token.type == "inline"
        for child in token.children or []
        if child.type == "text"
    )
    assert html.math or not has_math, f"{page.name}: has $ math but no <math> element"
    unknown = [text for text in html.math if "\\" in text]
    assert not unknown, f"{page.name}: LaTeX that latex2mathml left as text: {unknown}"


@pytest.mark.parametrize("page", PAGES, ids=_ids)
def test_page_loads_nothing_from_the_network(built_site, page):
    html = rendered(built_site, page)
    remote = [url for url in html.resources if urlsplit(url).netloc or url.startswith("//")]
    assert not remote, f"{page.name} fetches from the network: {remote}"
    remote_css = [css for css in html.styles if REMOTE_IN_CSS.search(css)]
    assert not remote_css, f"{page.name}: inline CSS fetches from the network: {remote_css}"


def test_shipped_css_loads_nothing_from_the_network(built_site):
    for css in built_site.rglob("*.css"):
        match = REMOTE_IN_CSS.search(css.read_text(encoding="utf-8"))
        assert not match, f"{css.relative_to(built_site)} fetches from the network: {match[0]}…"


def test_nav_lists_every_page_in_reading_order(built_site):
    nav = rendered(built_site, PAGES[0]).nav
    assert nav == [url_path(page) for page in PAGES], (
        "the site's navigation should list every page of docs/ in file order"
    )


@pytest.mark.parametrize("page", PAGES, ids=_ids)
def test_footer_links_previous_and_next_page(built_site, page):
    at = PAGES.index(page)
    expected = {}
    if at > 0:
        expected["prev"] = url_path(PAGES[at - 1])
    if at + 1 < len(PAGES):
        expected["next"] = url_path(PAGES[at + 1])
    assert rendered(built_site, page).footer == expected


def test_home_page_lists_every_chapter_in_order():
    tokens = commonmark(ROOT / "docs" / "index.md")
    headings = [i for i, t in enumerate(tokens[:-1]) if t.type == "heading_open"]
    section = next((i + 1 for i in headings if tokens[i + 1].content == "Chapters"), None)
    assert section is not None, "docs/index.md has no `## Chapters` section"
    linked = []  # the .md pages the section links, in order
    for token in tokens[section + 1 :]:
        if token.type == "heading_open":
            break
        for child in token.children or []:
            href = str(child.attrs.get("href", ""))
            if href.endswith(".md") and href not in linked:
                linked.append(href)
    expected = [page.name for page in PAGES[1:]]
    missing = [name for name in expected if name not in linked]
    assert linked == expected, (
        f"docs/index.md's Chapters section should link every chapter in order; "
        f"missing {missing}, linked {linked}"
    )


@pytest.mark.parametrize("page", PAGES, ids=_ids)
def test_chapter_is_plain_markdown(page):
    tokens = commonmark(page)
    lines = page.read_text(encoding="utf-8").splitlines()
    in_fence = set()
    for token in tokens:
        where = f"{page.name}:{token.map[0] + 1 if token.map else '?'}"
        assert token.type != "code_block", (
            f"{where}: indented code block; use a ``` fence (indented code is not run or "
            "highlighted, and inside a list it may be a fence's indentation gone wrong)"
        )
        if token.type != "fence":
            continue
        in_fence.update(range(token.map[0], token.map[1]))
        if is_python(token.info):
            assert PLAIN_PYTHON_INFO.fullmatch(token.info.strip()), (
                f"{where}: fence info {token.info!r}: write `python` then only "
                'key="value" attributes (bare words break the site\'s rendering)'
            )
            assert token.level == 0, f"{where}: python fence inside a list or quote"
    for number, line in enumerate(lines):
        assert number in in_fence or not SITE_ONLY_BLOCK.match(line), (
            f"{page.name}:{number + 1}: {line!r} is site-only syntax "
            "(admonition or tab) that VS Code and GitHub show as text"
        )


def test_pictures_are_inline_svg_in_the_page_colours():
    from tools.pictures import line_plot_svg, scatter_svg, svg_from_dot

    pictures = [
        svg_from_dot("digraph { a -> b }"),
        line_plot_svg({"loss": [3.0, 2.0, 1.5], "accuracy": [0.1, 0.5, 0.9]}),
        scatter_svg([(0, 0), (1, 2), (2, 1)], [1, -1, 1], boundary=lambda x, y: x - y),
    ]
    for svg in pictures:
        assert svg.startswith('<svg class="picture"') and svg.endswith("</svg>"), svg[:80]
        assert "<style" not in svg and "<!DOCTYPE" not in svg, "not fit to sit in a page"
        assert not re.search(r'"(black|white|#000000|#ffffff)"', svg), "fixed page colours"
    with pytest.raises(ValueError, match="syntax error"):
        svg_from_dot("digraph {")
