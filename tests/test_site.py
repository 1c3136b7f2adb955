"""The chapters as the site shows them, and as plain Markdown shows them.

Site checks read the HTML that `mkdocs build --strict` wrote (built once, see conftest.py):
every python fence became highlighted code, engine fences carry their title, math became
MathML without known markup slips and in the shipped math font, nothing loads from the
network, the navigation follows the reading order, every link works from disk (file://),
and the whole-book print page holds every chapter.
Plain-Markdown checks parse each chapter as CommonMark, as VS Code's preview and GitHub
do, and refuse what only the site would render.
"""

from __future__ import annotations

import html as html_text
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest
from latex2mathml import commands
from latex2mathml.converter import convert
from markdown_it import MarkdownIt

from tools.tangle import ROOT, chapters, is_python, read_fences

PAGES = chapters(ROOT / "docs")  # index.md first, then the chapters in reading order
_ids = [page.name for page in PAGES]

TITLE = re.compile(r'\btitle="([^"]*)"')
PLAIN_PYTHON_INFO = re.compile(r'python(\s+[A-Za-z_][\w-]*="[^"]*")*')
SITE_ONLY_BLOCK = re.compile(r"(!!!|\?\?\?\+?|===\+?)\s")  # admonitions, details, tabs
FETCHING_LINKS = {"stylesheet", "preload", "modulepreload", "icon", "prefetch", "manifest"}
NOT_PROSE = {"pre", "code", "script", "style", "math", "svg", "textarea"}
PYTHON_CLASSES = {"language-python", "language-py", "language-python3"}
REMOTE_IN_CSS = re.compile(r"""(url\(\s*["']?|@import\s+["']?)(https?:)?//""", re.I)


PRINT_PAGE = Path("print_page.html")  # the whole book on one page (mkdocs-print-site-plugin)


def url_path(page: Path) -> str:
    """Where a chapter lands on the site, from its root: ``/index.html``,
    ``/02-the-value-atom.html``. mkdocs.yml sets ``use_directory_urls: false`` so that
    links work from ``file://`` too. Other tests import this: ``from test_site import url_path``.
    """
    return f"/{page.stem}.html"


def built_file(site: Path, page: Path) -> Path:
    """The HTML file of ``page`` in the built ``site``."""
    return site / url_path(page).lstrip("/")


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


@pytest.mark.parametrize("page", [*PAGES, PRINT_PAGE], ids=[*_ids, PRINT_PAGE.name])
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


def test_two_builds_give_byte_identical_pages(built_site, site_builder, tmp_path):
    again = site_builder(tmp_path / "again")
    assert again.returncode == 0, again.stdout + again.stderr
    first = {p.relative_to(built_site): p for p in built_site.rglob("*.html")}
    second = {p.relative_to(again.site): p for p in again.site.rglob("*.html")}
    assert first.keys() == second.keys(), first.keys() ^ second.keys()
    differ = [
        str(name) for name, page in first.items() if page.read_bytes() != second[name].read_bytes()
    ]
    assert not differ, (
        f"two builds in a row gave different HTML for {differ}: something the site shows "
        "is not a function of the sources (a time, a random id, an unordered set?)"
    )


# --- Math: the shipped font, and MathML without latex2mathml's known slips -------------

MATHML_NS = "{http://www.w3.org/1998/Math/MathML}"
MATH_ELEMENT = re.compile(r"<math\b.*?</math>", re.DOTALL)
FUNCTION_NAMES = {name.lstrip("\\") for name in commands.FUNCTIONS}  # \cos -> <mi>cos</mi>
APPLY = "\u2061"  # FUNCTION APPLICATION
SIGNS = {"\u2212", "+"}
CLOSERS = set(")]}|\u2016\u27e9!\u2032")
ACCENTS = set("\u02d9\u00a8\u00af^\u02c6~\u02dc\u00b4`\u02d8\u02c7\u02da\u2192")
ROWS = {"math", "mrow", "mstyle", "mtd", "msqrt", "mpadded", "mphantom", "menclose", "semantics"}
SCRIPTS = {"msub", "msup", "msubsup", "munder", "mover", "munderover"}
FONT_FACE = re.compile(r"@font-face\s*{(?P<body>[^}]*)}")
CSS_RULE = re.compile(r"(?P<selector>[^{}]+){(?P<body>[^{}]*)}")


def _tag(element: ET.Element) -> str:
    return element.tag.removeprefix(MATHML_NS)


def _chars(element: ET.Element) -> str:
    return (element.text or "").strip()


def _is_function_name(element: ET.Element) -> bool:
    tag = _tag(element)
    if tag in SCRIPTS:
        return len(element) > 0 and _is_function_name(element[0])
    name = _chars(element)
    return (tag == "mi" and name in FUNCTION_NAMES) or (
        tag == "mo" and len(name) > 1 and name.isalpha()
    )


def math_slips(mathml: str) -> list[str]:
    """What in one <math> element reads wrong in a browser's MathML layout."""
    slips = []
    for element in ET.fromstring(mathml).iter():
        tag, kids = _tag(element), list(element)
        if tag in {"mi", "mo", "mn"} and len(kids):
            slips.append(f"<{tag}> holds elements (invalid MathML; \\mathrel{{+}}= shows '+ =')")
        if tag == "mover" and len(kids) == 2 and _tag(kids[1]) == "mo":
            accent = _chars(kids[1])
            if accent in ACCENTS and element.get("accent") != "true":
                slips.append(f'accent {accent!r} without accent="true" (drawn tiny, too high)')
            one_letter = _tag(kids[0]) in {"mi", "mn"} and len(_chars(kids[0])) == 1
            if accent in ACCENTS and one_letter and kids[1].get("stretchy") == "true":
                slips.append(f"stretchy accent {accent!r} over one letter (\\bar stretches)")
        if tag not in ROWS:
            continue
        left = None
        for at, kid in enumerate(kids):
            after = kids[at + 1] if at + 1 < len(kids) else None
            if _is_function_name(kid) and after is not None and _chars(after) != APPLY:
                name = "".join(kid.itertext())
                slips.append(f"function {name!r} runs into its argument (no &#x2061;)")
            if _tag(kid) == "mspace":
                continue
            sign = _tag(kid) == "mo" and _chars(kid) in SIGNS
            after_operator = left is None or (_tag(left) == "mo" and _chars(left) not in CLOSERS)
            if sign and after_operator and kid.get("form") != "prefix":
                before = "the start" if left is None else repr(_chars(left))
                slips.append(
                    f'sign {_chars(kid)!r} after {before} lacks form="prefix" '
                    "(spaced as a subtraction)"
                )
            left = kid
    return slips


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


@pytest.mark.parametrize(
    ("latex", "slip"),
    [
        (r"\cos t", "runs into its argument"),
        (r"\log p_t", "runs into its argument"),
        (r"\max(0, a)", "runs into its argument"),
        (r"r = -0.4", "spaced as a subtraction"),
        (r"(-1, 1)", "spaced as a subtraction"),
        (r"\bar{u} \mathrel{+}= v", "holds elements"),
        (r"\dot{x}", "without accent"),
        (r"\bar{v}", "without accent"),
    ],
)
def test_math_slips_are_found_in_raw_latex2mathml_output(latex, slip):
    """The site check below can fail: latex2mathml alone makes each of these slips."""
    found = math_slips(convert(latex))
    assert any(slip in text for text in found), f"{latex}: expected {slip!r}, found {found}"
    assert not math_slips(convert("a - b = c")), "a subtraction is not a slip"


@pytest.mark.parametrize("page", PAGES, ids=_ids)
def test_math_has_no_markup_slips(built_site, page):
    slips, latex = [], ""
    for match in MATH_ELEMENT.finditer(rendered(built_site, page).html):
        source = re.search(r'encoding="application/x-tex">(.*?)</annotation>', match[0], re.DOTALL)
        latex = html_text.unescape(source[1]) if source else latex  # split formulas: the first
        where = _source_line(page, latex)
        slips += [f"{where}: ${latex}$: {slip}" for slip in math_slips(match[0])]
    assert not slips, (
        "MathML that reads wrong in the browser (fix the conversion in tools/mathml.py, or "
        "write the LaTeX another way):\n" + "\n".join(slips)
    )


@pytest.mark.parametrize("page", PAGES, ids=_ids)
def test_display_math_scrolls_within_its_column(built_site, page):
    """Display math sits in div.arithmatex, which Material lets scroll sideways."""
    html = rendered(built_site, page).html
    display = len(re.findall(r'<math\b[^>]*display="block"', html))
    wrapped = len(re.findall(r'<div class="arithmatex"><math\b[^>]*display="block"', html))
    assert display == wrapped, (
        f"{page.name}: {display - wrapped} of {display} display formulas are not directly in "
        '<div class="arithmatex"> (see tools/site_hooks.py), so a wide one widens the page'
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


# --- Offline: links that work from disk, and the whole book on one page -----------------


@pytest.mark.parametrize("page", PAGES, ids=_ids)
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


def test_print_page_holds_every_chapter_in_order_with_its_math(built_site):
    html = (built_site / PRINT_PAGE).read_text(encoding="utf-8")
    sections = re.findall(r'<section class="print-page" id="([^"]+)"', html)
    assert sections == [page.stem for page in PAGES], (
        f"{PRINT_PAGE} should hold every page of docs/ in reading order, holds {sections}"
    )
    chapters_math = sum(len(rendered(built_site, page).math) for page in PAGES)
    printed_math = len(RenderedPage(html, f"/{PRINT_PAGE}").math)
    assert printed_math == chapters_math, (
        f"{PRINT_PAGE} has {printed_math} <math> elements, the pages {chapters_math}: the print "
        "plugin copied pages before tools/site_hooks.py turned their LaTeX into MathML?"
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
