"""The woven engines (engine.md, tensor-engine.md: tools/site/weave.py) as the built site
shows them: each engine file whole, chunk by chunk under links to the sections they come
from, an index of names where each is defined and used, and under each engine fence of a
chapter, the later chapters that use it. The HTML is the session's build (conftest.py).
"""

import ast
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from tests.helpers.site import ENGINE_PAGE, PAGES, built_file, url_path
from tools import ENGINES, ROOT
from tools.chapter import Chapter
from tools.site.weave import OPERATORS, page_for

ENGINE = ROOT / "micrograd.py"
MARKER = re.compile(r"\s*# --- (docs/[^#]+)\.md#(\S+?)(, engine fence \d+)? ---")


class Outline(HTMLParser):
    """The parts of a built page that the woven engine adds: ids, code, links, index rows."""

    def __init__(self, html: str):
        super().__init__()
        self.ids: set[str] = set()
        self.code: list[str] = []  # the text of each highlighted python block
        self.chunk_links: list[str] = []  # the link in each h3 heading
        self.used_in: list[list[str]] = []  # the links of each p.used-in
        self.rows: list[list[str]] = []  # the cells of each table body row
        self.row_links: list[list[str]] = []
        self._tags: list[tuple[str, set[str]]] = []
        self.feed(html)

    def _inside(self, tag: str, cls: str = "") -> bool:
        return any(t == tag and (not cls or cls in c) for t, c in self._tags)

    def handle_starttag(self, tag, attrs):
        attr = {name: value or "" for name, value in attrs}
        classes = set(attr.get("class", "").split())
        if "id" in attr:
            self.ids.add(attr["id"])
        if tag == "code" and self._inside("div", "highlight"):
            self.code.append("")
        if tag == "p" and "used-in" in classes:
            self.used_in.append([])
        if tag == "tr" and self._inside("tbody"):
            self.rows.append([])
            self.row_links.append([])
        if tag == "td":
            self.rows[-1].append("")
        if tag == "a" and "headerlink" not in classes:
            if self._inside("h3"):
                self.chunk_links.append(attr["href"])
            if self._inside("p", "used-in"):
                self.used_in[-1].append(attr["href"])
            if self._inside("td"):
                self.row_links[-1].append(attr["href"])
        if tag not in {"br", "img", "input", "meta", "link", "hr"}:
            self._tags.append((tag, classes))

    def handle_endtag(self, tag):
        while self._tags and self._tags.pop()[0] != tag:
            pass

    def handle_data(self, data):
        if self._inside("code") and self._inside("div", "highlight") and self.code:
            self.code[-1] += data
        if self._inside("td"):
            self.rows[-1][-1] += data


def outline(site: Path, page: Path) -> Outline:
    return Outline(built_file(site, page).read_text(encoding="utf-8"))


def engine_chunks_on_disk(engine: Path = ENGINE) -> list[tuple[str, list[str]]]:
    """(marker, code lines) of each chunk of ``engine``, read from the file alone."""
    chunks = []
    for line in engine.read_text(encoding="utf-8").splitlines():
        if MARKER.fullmatch(line):
            chunks.append((line.strip(), []))
        elif chunks:
            chunks[-1][1].append(line)
    return [(marker, "\n".join(code).rstrip("\n").split("\n")) for marker, code in chunks]


def target(page: Path, href: str) -> tuple[str, str]:
    """The site path and the fragment that a link on ``page`` leads to."""
    url = urlsplit(urljoin(f"http://site{url_path(page)}", href))
    return url.path, url.fragment


@pytest.mark.parametrize("engine", ENGINES)
def test_engine_page_shows_its_file_whole_under_links_to_the_book(built_site, engine):
    woven = Path(page_for(engine))
    page = outline(built_site, woven)
    chunks = engine_chunks_on_disk(ROOT / engine)
    assert [code.rstrip("\n").split("\n") for code in page.code] == [c for _, c in chunks], (
        f"{woven} should show exactly the chunks of {engine}, in order"
    )
    assert len(page.chunk_links) == len(chunks)
    for (marker, _), href in zip(chunks, page.chunk_links):
        chapter, anchor = MARKER.fullmatch(marker).group(1, 2)
        path, fragment = target(woven, href)
        assert (path, fragment) == (url_path(Path(chapter + ".md")), anchor), (marker, href)
        assert anchor in outline(built_site, Path(chapter + ".md")).ids, (
            f"{marker}: the chapter's page has no heading with id {anchor!r}"
        )


def test_engine_index_lists_every_public_name_and_method_where_defined(built_site):
    tree = ast.parse(ENGINE.read_text(encoding="utf-8"))
    expected = {}  # name -> line, from micrograd.py alone
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
            expected[node.name] = node.lineno
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    expected[f"{node.name}.{item.name}"] = item.lineno
        if isinstance(node, ast.Assign):
            expected |= {t.id: node.lineno for t in node.targets if not t.id.startswith("_")}
    page = outline(built_site, ENGINE_PAGE)
    listed = {row[0]: int(row[2]) for row in page.rows}
    assert expected.items() <= listed.items(), set(expected.items()) - set(listed.items())
    assert {"Value.backward", "Value.__add__", "MLP", "graph_dot"} <= listed.keys()
    chunks = engine_chunks_on_disk()
    starts = [
        i for i, line in enumerate(ENGINE.read_text().splitlines(), 1) if MARKER.fullmatch(line)
    ]
    for row, links in zip(page.rows, page.row_links):
        name, line = row[0], int(row[2])
        marker = chunks[sum(start < line for start in starts) - 1][0]
        chapter, anchor = MARKER.fullmatch(marker).group(1, 2)
        assert target(ENGINE_PAGE, links[0]) == (url_path(Path(chapter + ".md")), anchor), row
        word = re.escape(name.rpartition(".")[2])
        owner, _, method = name.rpartition(".")
        for href in links[1:]:  # each chapter said to use the name uses it, as Python would
            used = ROOT / "docs" / (Path(target(ENGINE_PAGE, href)[0]).stem + ".md")
            fences = [cell.fence.names for cell in Chapter.read(used).cells]
            if method in OPERATORS:  # x * y calls Value.__mul__: the chapter applies `*`
                applied = set().union(*(names.operators for names in fences))
                assert OPERATORS[method] in applied, (name, used, "never applies the operator")
            elif method == "__init__":  # Value(...) calls Value.__init__
                assert any(owner in names.called for names in fences), (name, used)
            elif not method.startswith("__"):
                assert re.search(rf"\b{word}\b", used.read_text(encoding="utf-8")), (name, used)
    (backward,) = [
        links for row, links in zip(page.rows, page.row_links) if row[0] == "Value.backward"
    ]
    assert url_path(Path("03-backward.md")) in [target(ENGINE_PAGE, h)[0] for h in backward[1:]]


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_each_engine_fence_says_which_later_chapters_use_it(built_site, page):
    """Under each engine fence (micrograd.py's, tensor.py's): the later chapters that use
    it, and a link to its chunk on its own engine's woven page."""
    engine_fences = [f for f in Chapter.read(page).fences if f.engine]
    lines = outline(built_site, page).used_in
    assert len(lines) == len(engine_fences), (
        f"{page.name}: {len(engine_fences)} engine fences but {len(lines)} used-in lines"
    )
    later = {url_path(p) for p in PAGES[PAGES.index(page) + 1 :]}
    for fence, links in zip(engine_fences, lines):
        *chapters_used, whole = links
        assert {target(page, href)[0] for href in chapters_used} <= later, links
        woven = Path(page_for(fence.engine))
        assert target(page, whole)[0] == url_path(woven), (fence.engine, whole)
        assert target(page, whole)[1] in outline(built_site, woven).ids
