"""The whole book on one page, as the site pass makes it (tools/site/prepare.py), read from
its Markdown: no generator started, so it runs in `check`. The site tier prints it to PDF
(tests/site/test_whole_book.py) and renders it (tests/site/test_site.py)."""

import re

import pytest

from tests.helpers.site import PAGES, SITE_PAGES
from tests.site.test_engine_page import engine_chunks_on_disk
from tools import DOCS, ENGINES, ROOT
from tools.chapter import Chapter
from tools.figures.from_chapters import FIGURES
from tools.site import lab, learner
from tools.site.prepare import WHOLE_BOOK, _with_used_in, page_markdown, whole_book
from tools.site.weave import engine_page, weave


@pytest.fixture(scope="module")
def woven() -> list:
    return [weave(DOCS, engine=engine) for engine in ENGINES]


@pytest.fixture(scope="module")
def book(woven) -> tuple[dict, str]:
    """Each page as the whole book holds it, and the whole book."""
    pages = {path: page_markdown(path, DOCS, woven, None, pytest.fail) for path in PAGES}
    pages |= {DOCS / engine.page: engine_page(engine) for engine in woven}
    return pages, whole_book(pages)


def test_tensor_py_is_woven_on_its_own_page_and_under_its_fences(woven):
    tensor = woven[list(ENGINES).index("tensor.py")]
    page = engine_page(tensor)
    blocks = re.findall(r"^```python\n(.*?)\n```$", page, re.S | re.M)
    on_disk = engine_chunks_on_disk(ROOT / "tensor.py")
    assert len(on_disk) == len(tensor.tangled.chunks) > 10, "tensor.py's chunks, on disk"
    assert [block.split("\n") for block in blocks] == [code for _, code in on_disk]
    anchors = {h.anchor for h in Chapter.read(DOCS / tensor.page, page).headings}
    (row,) = [line for line in page.splitlines() if line.startswith("| `Tensor.__matmul__` |")]
    assert "[20](20-a-network-on-tensors.md" in row, f"chapter 20 applies @: {row}"
    for chapter in (p for p in PAGES if p.name[:2] in ("17", "18", "19", "20")):
        read = Chapter.read(chapter)
        shown = _with_used_in(read.text, read, woven, pytest.fail)
        fences = [f for f in read.fences if f.engine == "tensor.py"]
        links = re.findall(r'href="([^"#]+)#([^"]+)">in the whole engine', shown)
        assert fences and len(links) == len(fences), f"{chapter.name}: {len(fences)} fences"
        assert {href for href, _ in links} == {"tensor-engine.html"}, (chapter.name, links)
        assert {anchor for _, anchor in links} <= anchors, f"{chapter.name}: {links}"


def test_the_whole_book_holds_every_page_in_order_each_heading_once(book):
    pages, whole = book
    sections = re.findall(r'<section class="print-page" id="([^"]+)" markdown="1">', whole)
    assert sections == [page.stem for page in SITE_PAGES], sections
    headings = Chapter.read(DOCS / WHOLE_BOOK, whole.split("---\n", 2)[2]).headings
    own = [
        (h.level, h.text) for page, text in pages.items() for h in Chapter.read(page, text).headings
    ]
    assert [(h.level, h.text) for h in headings] == own, "the PDF's outline: a heading each"
    titles = [h.text for h in headings if h.level == 1]
    assert titles == [Chapter.read(page, text).title for page, text in pages.items()], titles
    anchors = [h.anchor for h in headings]
    assert len(set(anchors)) == len(anchors), "the headings' ids are unique over the book"
    ids = re.findall(r'(?<![\w-])id="([^"]+)"', whole)  # the figures', shown twice too
    assert not [i for i in set(ids) if ids.count(i) > 1], "ids twice in the whole book"
    used = set(re.findall(r'(?:url\(#|href="#)([^")]+)', whole))
    assert used <= set(ids), f"references to no id of the whole book: {sorted(used - set(ids))}"


def test_every_link_within_the_book_goes_to_the_whole_books_own_anchor(book):
    _, whole = book
    anchors = {
        h.anchor for h in Chapter.read(DOCS / WHOLE_BOOK, whole.split("---\n", 2)[2]).headings
    }
    inner = re.findall(r"\]\(#([\w-]+)\)|^\[[^\]]+\]: *#([\w-]+)", whole, re.M)
    assert len(inner) > 50, f"only {len(inner)} links within the book"
    missing = sorted({a or b for a, b in inner} - anchors)
    assert not missing, f"links within the whole book to no heading of it: {missing}"
    to_pages = re.findall(r"\]\(([\w.-]+\.md[^)]*)\)", whole)
    assert not to_pages, f"links out of the whole book to its own pages: {to_pages}"


def test_the_whole_book_has_the_math_and_figures_and_no_controls(book):
    pages, whole = book
    assert whole.count("<math") == sum(text.count("<math") for text in pages.values()) > 1000
    assert "$$" not in re.sub(r"```.*?```|`[^`]*`", "", whole, flags=re.S), "LaTeX left"
    drawn = {
        n
        for n, figure in FIGURES.items()
        if f"figures/{n}.svg" in "".join(page.read_text(encoding="utf-8") for page in PAGES)
    }
    shown = set(re.findall(r'<svg data-figure="([\w-]+)"', whole))
    assert drawn and shown == drawn, f"figures not inline: {drawn - shown}"
    for control in ("data-steps=", "data-nudges=", "notebook-fences", "python-start"):
        assert control not in whole, f"{WHOLE_BOOK} shows the book as drawn: no {control}"
    assert lab.PLACEHOLDER in whole and learner.PLACEHOLDER in whole, "placeholders stay"
    assert 'class="lab"' not in whole and 'class="learner"' not in whole
