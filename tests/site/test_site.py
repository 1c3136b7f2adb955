"""The chapters as the site shows them, and as plain Markdown shows them.

Site checks read the HTML that `mkdocs build --strict` wrote, once a session
(tests/site/conftest.py): every python fence became highlighted code, engine fences carry
their title, math became MathML without known markup slips and in the shipped math font,
nothing loads from the network, the navigation follows the reading order, every link
works from disk (file://), and the whole-book print page holds every chapter (the woven
engine page: tests/site/test_engine_page.py). Plain-Markdown checks parse each chapter as
CommonMark, as VS Code's preview and GitHub do, and refuse what only the site would render.
"""

import html as html_text
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

from tests.helpers.site import (
    MATHML_NS,
    PAGES,
    PRINT_PAGE,
    SITE_PAGES,
    built_file,
    math_slips,
    url_path,
)
from tools import ROOT
from tools.chapter import Chapter
from tools.site.mathfont import FONT
from tools.site.page_data import read as read_data

_ids = [page.name for page in PAGES]
_site_ids = [page.name for page in SITE_PAGES]

TITLE = re.compile(r'\btitle="([^"]*)"')
FETCHING_LINKS = {"stylesheet", "preload", "modulepreload", "icon", "prefetch", "manifest"}
NOT_PROSE = {"pre", "code", "script", "style", "math", "svg", "textarea"}
PYTHON_CLASSES = {"language-python", "language-py", "language-python3"}
REMOTE_IN_CSS = re.compile(r"""(url\(\s*["']?|@import\s+["']?)(https?:)?//""", re.I)


class RenderedPage(HTMLParser):
    """The facts of one built page that the tests look at."""

    def __init__(self, html: str, path: str):
        super().__init__()
        self.html = html
        self.path = path
        self.code_titles: list[str | None] = []  # one per highlighted python block
        self.text: list[str] = []  # what a reader sees as prose (no code, math, pictures)
        self.resources: list[str] = []  # URLs the page makes the browser fetch
        self.styles: list[str] = []  # inline CSS
        self.nav: list[str] = []  # pages linked from the navigation sidebar, in order
        self.footer: dict[str, str] = {}  # "prev"/"next" -> page
        self.math: list[str] = []  # the text of each <math> element (not its LaTeX source)
        self.links: list[str] = []  # every <a href>, as written
        self._skip = self._in_math = self._in_annotation = 0
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
        if tag == "annotation":
            self._in_annotation += 1
        if tag == "a" and "href" in attr:
            self.links.append(attr["href"])
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
        if tag == "annotation":
            self._in_annotation -= 1
        if tag == "span":
            self._in_title = False
        if tag == "style":
            self._in_style = False

    def handle_data(self, data):
        if self._in_title:
            self.code_titles[-1] += data.strip()
        if self._in_style:
            self.styles.append(data)
        if self._in_math and not self._in_annotation:
            self.math[-1] += data
        if not self._skip:
            self.text.append(data)


def rendered(site: Path, page: Path) -> RenderedPage:
    html_file = built_file(site, page)
    if not html_file.is_file():
        pytest.fail(
            f"the built site has no {url_path(page)} for {page.name}: mkdocs.yml should keep "
            "use_directory_urls: false (links that work from file://)",
            pytrace=False,
        )
    return RenderedPage(html_file.read_text(encoding="utf-8"), url_path(page))


def commonmark(page: Path):
    return Chapter.read(page).tokens


def test_site_builds_strictly(site_build):
    log = (site_build.stdout + site_build.stderr).splitlines()
    problems = [line for line in log if line.startswith(("ERROR", "WARNING", "Aborted"))]
    assert site_build.returncode == 0, "`mkdocs build --strict` failed:\n" + "\n".join(
        problems or log[-40:]
    )


@pytest.mark.parametrize("page", PAGES, ids=_ids)
def test_python_fences_became_highlighted_code(built_site, page):
    expected = []  # the title bar each shown python fence should get (None: no title)
    for fence in Chapter.read(page).fences:
        if fence.is_python:
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


@pytest.mark.parametrize("page", [*SITE_PAGES, PRINT_PAGE], ids=[*_site_ids, PRINT_PAGE.name])
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
    assert nav == [url_path(page) for page in SITE_PAGES], (
        "the site's navigation should list every page of docs/ in file order, then the woven engine"
    )


@pytest.mark.parametrize("page", SITE_PAGES, ids=_site_ids)
def test_footer_links_previous_and_next_page(built_site, page):
    at = SITE_PAGES.index(page)
    expected = {}
    if at > 0:
        expected["prev"] = url_path(SITE_PAGES[at - 1])
    if at + 1 < len(SITE_PAGES):
        expected["next"] = url_path(SITE_PAGES[at + 1])
    assert rendered(built_site, page).footer == expected


# --- Math: the shipped font, and MathML without latex2mathml's known slips -------------

FONT_FACE = re.compile(r"@font-face\s*{(?P<body>[^}]*)}")
CSS_RULE = re.compile(r"(?P<selector>[^{}]+){(?P<body>[^{}]*)}")
MATH_ELEMENT = re.compile(r"<math\b.*?</math>", re.DOTALL)


def _source_line(page: Path, latex: str) -> str:
    """``chapter.md:LINE`` where ``latex`` is written (as ``$latex$`` if it can), for messages."""
    source = page.read_text(encoding="utf-8")
    at = source.find(f"${latex}$")
    if at < 0 and latex:  # display math: $$ on a line of its own
        at = source.find(latex.splitlines()[0].strip())
    return f"{page.name}:{source.count(chr(10), 0, at) + 1}" if at >= 0 else page.name


def _css_rules(css: str) -> list[tuple[str, str]]:
    """(selector, declarations) of each rule, comments removed, @media blocks flattened."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)
    return [(m["selector"].strip(), m["body"]) for m in CSS_RULE.finditer(css)]


def _media_print(css: str) -> str:
    """The insides of every ``@media print { ... }`` block of ``css``."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)
    blocks = []
    for start in re.finditer(r"@media\s+print\s*{", css):
        depth, at = 1, start.end()
        while depth and at < len(css):
            depth += {"{": 1, "}": -1}.get(css[at], 0)
            at += 1
        blocks.append(css[start.end() : at - 1])
    return "\n".join(blocks)


def _stylesheets(site: Path, page: Path) -> list[Path]:
    """The site's own CSS files that ``page`` links, as files of the built site."""
    base = f"http://site{url_path(page)}"
    return [
        site / unquote(urlsplit(urljoin(base, href)).path).lstrip("/")
        for href in rendered(site, page).resources
        if href.endswith(".css")
    ]


@pytest.mark.parametrize("page", PAGES, ids=_ids)
def test_math_has_no_markup_slips(built_site, page):
    slips, latex = [], ""
    for match in MATH_ELEMENT.finditer(rendered(built_site, page).html):
        source = re.search(r'encoding="application/x-tex">(.*?)</annotation>', match[0], re.DOTALL)
        latex = html_text.unescape(source[1]) if source else latex  # split formulas: the first
        where = _source_line(page, latex)
        slips += [f"{where}: ${latex}$: {slip}" for slip in math_slips(match[0])]
    assert not slips, (
        "MathML that reads wrong in the browser (fix the conversion in tools/site/mathml.py, or "
        "write the LaTeX another way):\n" + "\n".join(slips)
    )


@pytest.mark.parametrize("page", PAGES, ids=_ids)
def test_display_math_scrolls_within_its_column(built_site, page):
    """Display math sits in div.arithmatex, which Material lets scroll sideways."""
    html = rendered(built_site, page).html
    display = len(re.findall(r'<math\b[^>]*display="block"', html))
    wrapped = len(re.findall(r'<div class="arithmatex"[^>]*><math\b[^>]*display="block"', html))
    assert display == wrapped, (
        f"{page.name}: {display - wrapped} of {display} display formulas are not directly in "
        '<div class="arithmatex"> (see tools/site/mathml.py), so a wide one widens the page'
    )


def test_math_font_ships_with_the_site_and_math_uses_it(built_site):
    families = {}  # font-family -> the font file of its @font-face, in the built site
    for css_file in _stylesheets(built_site, PAGES[0]):
        css = css_file.read_text(encoding="utf-8")
        for face in FONT_FACE.finditer(css):
            family = re.search(r"font-family:\s*[\"']?([^\"';]+)", face["body"])
            source = re.search(r"url\(\s*[\"']?([^\"')]+)", face["body"])
            if family and source:
                families[family[1]] = css_file.parent / source[1]
        for selector, body in _css_rules(css):
            used = re.search(r"font-family:\s*[\"']?([^\"',;]+)", body)
            if "math" in re.split(r"[\s,]+", selector) and used and used[1] in families:
                font = families[used[1]]
                assert font.is_file(), f"{css_file.name}: {used[1]} comes from {font}: missing"
                assert font.read_bytes()[:4] == b"wOF2", f"{font.name} is not a WOFF2 font"
                licence = font.parent / "OFL.txt"
                assert licence.is_file(), f"the font {font.name} ships without its licence"
                assert "SIL OPEN FONT LICENSE" in licence.read_text(encoding="utf-8").upper()
                return
    pytest.fail(
        "no stylesheet of the site sets a shipped @font-face font on `math` elements: "
        "see docs/stylesheets/math.css and extra_css in mkdocs.yml"
    )


def _italic(char: str) -> str:
    """The letter MathML Core draws for a one-letter <mi>: its mathematical italic, from
    the layout of Unicode's blocks (the site's own mapping is tools/site/mathfont.py's)."""
    if char in ("h", "\u2202"):  # Planck's constant; the partial sign
        return {"h": "\u210e", "\u2202": "\U0001d715"}[char]
    for first, last, italic in (
        ("a", "z", 0x1D44E),
        ("A", "Z", 0x1D434),
        ("\u03b1", "\u03c9", 0x1D6FC),
        ("\u0391", "\u03a9", 0x1D6E2),
    ):
        if first <= char <= last:
            return chr(italic + ord(char) - ord(first))
    return char


def test_the_math_font_served_is_cut_to_what_the_math_draws_and_keeps_its_math_table(built_site):
    from fontTools.ttLib import TTFont  # the site extra's

    whole, served = ROOT / "docs" / FONT, built_site / FONT
    drawn = set()  # read here from the MathML's elements, token by token
    for page in built_site.rglob("*.html"):
        for math in MATH_ELEMENT.findall(page.read_text(encoding="utf-8")):
            for element in ET.fromstring(math).iter():
                tag, text = element.tag.removeprefix(MATHML_NS), element.text or ""
                if tag != "annotation":
                    drawn |= set(text)
                if tag == "mi" and len(text) == 1 and "mathvariant" not in element.attrib:
                    drawn.add(_italic(text))
    assert {"\u2211", "\U0001d465"} <= drawn, "no sum and no italic x in the book's math?"
    has = {chr(code) for code in TTFont(whole).getBestCmap()}
    cut = TTFont(served)
    missing = (drawn & has) - {chr(code) for code in cut.getBestCmap()}
    assert not missing, f"the site's math font lacks {sorted(missing)}: see tools/site/mathfont.py"
    assert served.stat().st_size < whole.stat().st_size / 10, "the math font is not cut down"
    # Its MATH table, with every size of the sum and the parentheses that the whole font
    # has: they grow with what they hold (a display sum, \bigl( and \bigr), a fraction).
    assert "MATH" in cut, "the math font lost its MATH table: MathML would lay out as text"
    for char in "\u2211()":
        sizes = [len(_sizes(font, char)) for font in (TTFont(whole), cut)]
        assert sizes[0] > 1 and sizes[1] == sizes[0], f"{char!r}: sizes whole, served: {sizes}"


def _sizes(font, char: str) -> list:
    """The sizes of ``char`` in the MATH table of ``font``, from the text size up."""
    variants = font["MATH"].table.MathVariants
    constructions = dict(zip(variants.VertGlyphCoverage.glyphs, variants.VertGlyphConstruction))
    construction = constructions.get(font.getBestCmap().get(ord(char)))
    return construction.MathGlyphVariantRecord if construction else []


# --- Offline: links that work from disk, and the whole book on one page -----------------


@pytest.mark.parametrize("page", SITE_PAGES, ids=_site_ids)
def test_links_work_from_disk(built_site, page):
    """From file:// a link to a folder shows a directory listing: every link names a file."""
    here = built_file(built_site, page)
    broken = []
    for href in rendered(built_site, page).links:
        url = urlsplit(href)
        if url.scheme or url.netloc or not url.path:  # other sites, or #anchors on this page
            continue
        target = (here.parent / unquote(url.path)).resolve()
        if not target.is_file():
            broken.append(href)
    assert not broken, (
        f"{page.name}: links that do not name a file of the built site, so they break when "
        f"it is opened from disk (keep use_directory_urls: false in mkdocs.yml): {broken}"
    )


def test_print_styles_keep_code_indentation_and_hide_buttons(built_site):
    print_rules = []
    for css_file in _stylesheets(built_site, PRINT_PAGE):
        print_rules += _css_rules(_media_print(css_file.read_text(encoding="utf-8")))

    def declared(selector_part: str, declaration: str) -> bool:
        return any(
            selector_part in selector and re.search(declaration, body)
            for selector, body in print_rules
        )

    missing = [
        what
        for what, selector, declaration in [
            ("code wraps keeping its indentation", "pre > code", r"white-space:\s*pre-wrap"),
            ("copy buttons hidden", ".md-clipboard", r"display:\s*none"),
            ("navigation hidden", ".md-sidebar", r"display:\s*none"),
            ("header hidden", ".md-header", r"display:\s*none"),
            ("wide display math shown whole", "div.arithmatex", r"overflow:\s*visible"),
        ]
        if not declared(selector, declaration)
    ]
    assert not missing, (
        f"{PRINT_PAGE}'s stylesheets lack print rules: {missing} "
        "(see docs/stylesheets/print.css and extra_css in mkdocs.yml)"
    )


def test_each_stepped_figure_carries_its_recorded_steps(built_site):  # whole book: test_prepare
    from tools.figures.from_chapters import FIGURES, recorded
    from tools.page.steps import page_data

    for name, tracks in recorded().items():
        page = ROOT / "docs" / FIGURES[name].chapter
        html = built_file(built_site, page).read_text(encoding="utf-8")
        found = read_data(html, f'data-steps="{name}"')
        assert len(found) == 1, f"{page.name}: {len(found)} step data for {name}'s SVG"
        assert f'</svg><span class="page-data" hidden data-steps="{name}"' in html, name
        [data] = found
        assert data == page_data(name, tracks, FIGURES[name].key), (
            f"{page.name}: {name}'s steps are stale"
        )
        assert html.index(f'id="{name}-graph0"') < html.index(f'data-steps="{name}"')


def test_every_address_of_the_site_is_one_mkdocs_yml_sets_and_none_is_a_placeholder(built_site):
    """The header's repository link, each page's canonical URL and the sitemap's addresses
    come from repo_url and site_url in mkdocs.yml, the one place for them; unset (no public
    address yet), the site has none of them."""
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    repo, site = config.get("repo_url"), config.get("site_url")
    for address in (repo, site):
        assert not address or not re.search(r"example\.(org|com|net)", address), address
    sitemap = (built_site / "sitemap.xml").read_text(encoding="utf-8")
    locs = re.findall(r"<loc>([^<]*)</loc>", sitemap)
    assert all(site and loc.startswith(site) for loc in locs), f"sitemap.xml lists {locs[:3]}"
    assert bool(locs) == bool(site), f"site_url is {site!r}; sitemap.xml lists {len(locs)}"
    for page in [*SITE_PAGES, PRINT_PAGE]:
        text = built_file(built_site, page).read_text(encoding="utf-8")
        canonical = re.findall(r'<link rel="canonical" href="([^"]*)"', text)
        assert all(site and c.startswith(site) for c in canonical), (page.name, canonical)
        assert bool(canonical) == bool(site) or page == PRINT_PAGE, (page.name, canonical)
        sources = re.findall(r'<a href="([^"]*)"[^>]*class="md-source"', text)
        assert sources == ([repo] if repo else []), (page.name, sources)
        assert not re.search(r"https?://example\.(org|com|net)", text), (
            f"{page.name}: a placeholder"
        )
