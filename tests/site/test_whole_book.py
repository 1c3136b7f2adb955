"""The whole book as a PDF (tools/publish.py), read back: every fold printed open.

The PDF is printed once, from the site the session built, as `dev.py pdf`, `build --archive`
and the Pages workflow print it: the whole-book page, opened from disk, by headless
Chromium. Its text is read with pypdf, only for the chapters the test looks into (their
pages, from the PDF's outline), and must hold what the book folds away on screen: checks,
solutions, answers and tables of steps. The chapters are found by what they hold
(tools/chapter.py), not by their file names. The pages' text is also read as Chromium drew it.
"""

import re
import shutil
from collections import Counter

import pytest

from tests.helpers.site import PAGES, PRINT_PAGE
from tools.chapter import Chapter
from tools.publish import PDF, has_outline, pages, print_pdf

MARKUP = re.compile(r"[$\\\[\]_|<>]")  # a sentence with math, a link or HTML reads otherwise
MARGIN = 25 / 25.4 * 72  # a page's margin in points (Material's @page: 25 mm): its number's in it
# Chromium's content streams, an operator a line: cm (q saves it), Tm (a line), Tf (font), Tj
DRAWN = re.compile(rb"^(?:([-\d. ]+) (cm|Tm)|([qQ])|/(\w+) ([-\d.]+) Tf|.*<(\w*)> Tj)$", re.M)


@pytest.fixture(scope="module")
def book(built_site, tmp_path_factory):
    """The whole book printed to PDF, and pypdf's reader of it."""
    if shutil.which("chromium") is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    from pypdf import PdfReader

    out = print_pdf(built_site / PRINT_PAGE, tmp_path_factory.mktemp("pdf") / PDF)
    return out, PdfReader(out)


@pytest.fixture(scope="module")
def drawn(book) -> list[list[tuple[float, str, float, int]]]:
    """Each page's pieces of text: height above its foot, font, size (points) and glyphs, from
    its content stream (1.4 CPU-s: pypdf's extract_text takes 18 for the book). No rotation."""
    pages = []
    for page in book[1].pages:
        fonts, (scale, base), saved, out = page["/Resources"]["/Font"], (1.0, 0.0), [], []
        for m in DRAWN.finditer(page.get_contents().get_data()):
            if m[3] == b"q":
                saved.append((scale, base))
            elif m[3]:
                scale, base = saved.pop()
            elif m[2]:  # a line's height and scale (Tm), or the transformation's new ones (cm)
                *_, d, _, f = map(float, m[1].split())
                y, grown = f * scale + base, d * scale
                scale, base = (grown, y) if m[2] == b"cm" else (scale, base)
            elif m[4]:
                font, size = fonts[f"/{m[4].decode()}"]["/BaseFont"].split("+")[-1], float(m[5])
            else:
                out.append((y, font, round(size * grown, 1), len(m[6]) // 4))
        pages.append(out)
    return pages


def chapters_in_outline(reader) -> list[tuple[str, int]]:
    """The outline's top level: each chapter's title and its first page (0-based)."""
    return [
        (item.title, reader.get_destination_page_number(item))
        for item in reader.outline
        if not isinstance(item, list)
    ]


def text_of(reader, chapter: Chapter) -> str:
    """The text of the chapter's pages, its whitespace made single spaces."""
    outline = chapters_in_outline(reader)
    [at] = [k for k, (title, _) in enumerate(outline) if title == chapter.title]
    first = outline[at][1]
    stop = outline[at + 1][1] + 1 if at + 1 < len(outline) else len(reader.pages)
    text = " ".join(reader.pages[k].extract_text() for k in range(first, stop))
    return " ".join(text.split())


def plain(text: str) -> str:
    """Markdown source as it reads when printed: no code or emphasis marks, one space."""
    return " ".join(text.replace("`", "").replace("*", "").split())


def inside(chapter: Chapter, fold) -> str:
    """What the fold holds, to look for: the first sentence of plain words in its prose (no
    math, link or HTML), or else the first line of its first python fence."""
    prose = " ".join(text for line, text in chapter.prose if fold.holds(line))
    for said in re.split(r"(?<=[.:;])\s+", plain(prose)):
        if len(said.split()) >= 6 and not MARKUP.search(said):
            return said
    code = [f.code for f in chapter.fences if f.is_python and fold.holds(f.line)]
    assert code, f"{chapter.path.name}: nothing plain to look for in the fold at {fold.line}"
    return code[0].splitlines()[0]


def defining(name: str) -> Chapter:
    """The chapter whose fences define ``name`` (with ``def`` or ``class``)."""
    found = [
        chapter
        for chapter in map(Chapter.read, PAGES)
        if any(step.defines == name for fence in chapter.fences for step in fence.steps)
    ]
    assert len(found) == 1, f"{name} is defined in {len(found)} chapters, not 1"
    return found[0]


def folded_code(chapter: Chapter, kind: str) -> list[str]:
    """The first line of each python fence in a fold whose summary starts with ``kind``."""
    return [
        fence.code.splitlines()[0]
        for fence in chapter.fences
        if fence.is_python and fence.folded and fence.summary.startswith(kind)
    ]


def test_the_pdf_has_every_heading_in_its_outline_once_in_order(book):
    out, reader = book
    assert has_outline(out), "the PDF has no outline (--generate-pdf-document-outline)"
    words = lambda text: "".join(text.split())  # noqa: E731 Chromium drops the space at a wrap
    flat = lambda items, level=1: [  # noqa: E731
        e for i in items for e in (flat(i, level + 1) if type(i) is list else [(level, i.title)])
    ]  # fmt: skip
    got = [(level, words(title)) for level, title in flat(reader.outline)]
    want = [(h.level, words(h.text)) for page in PAGES for h in Chapter.read(page).headings]
    at = next((k for k, (a, b) in enumerate(zip(got, want)) if a != b), len(want))
    assert len(got) > len(want) and at == len(want), (
        f"the PDF's outline has {got[at : at + 2]} where the book has {want[at : at + 2]}: an "
        "entry a heading, chapters on top, in order (is a heading twice or hidden in print_page?)"
    )
    assert pages(out) == len(reader.pages) > len(PAGES)


def test_the_pdf_prints_answers_checks_solutions_and_steps_open(book):
    _, reader = book
    answers = [c for c in map(Chapter.read, PAGES) if any(f.summary == "Answer" for f in c.folds)]
    assert len(answers) == 1, f"{len(answers)} chapters have folded answers"
    [questions] = answers
    backward = defining("careless_backward")  # chapter 3, whatever its number becomes
    softmax = defining("softmax_ce")  # chapter 6
    wanted = {
        questions: [inside(questions, f) for f in questions.folds if f.summary == "Answer"],
        backward: [
            *folded_code(backward, "Check"),
            *(plain(g.text.strip().splitlines()[0]) for g in backward.generated),
        ],
        softmax: [
            *folded_code(softmax, "Solution"),
            inside(softmax, next(f for f in softmax.folds if f.summary == "Solution")),
        ],
    }
    for chapter, texts in wanted.items():
        assert texts, f"{chapter.path.name}: nothing folded to look for"
        printed = text_of(reader, chapter)
        missing = [text for text in texts if " ".join(text.split()) not in printed]
        assert not missing, (
            f"the PDF's pages of {chapter.title!r} lack what its folds hold: {missing} (folds "
            "print open only where Material's script starts: tools/site/theme/main.html)"
        )


def test_the_pdf_has_no_page_under_half_full_but_a_chapters_last(book, drawn):
    lasts = {first - 1 for _, first in chapters_in_outline(book[1])} | {len(drawn) - 1}
    height = float(book[1].pages[0].mediabox.height)
    ends = [min((y for y, *_ in page if y > MARGIN), default=height) for page in drawn]
    short = [k + 1 for k, end in enumerate(ends) if end > height / 2 and k not in lasts]
    assert not short, (
        f"pages {short} of the PDF end above their middle and no chapter ends there: what "
        "follows is kept whole (break-inside: avoid); let it break (docs/stylesheets/print.css)"
    )


def test_the_pdf_numbers_its_pages_in_the_texts_font_and_size(book, drawn):
    inside = lambda y: MARGIN < y < float(book[1].pages[0].mediabox.height) - MARGIN  # noqa: E731
    glyphs = Counter()  # the prose's font and size: most of the text but code's
    for _, font, size, n in (p for page in drawn for p in page if inside(p[0])):
        glyphs[font, size] += n * ("Mono" not in font)
    body = glyphs.most_common(1)[0][0]
    foot = [[p for p in page if not inside(p[0])] for page in drawn]  # the margins' text
    said = lambda pieces: ({p[1:3] for p in pieces}, sum(p[3] for p in pieces))  # noqa: E731
    wrong = [k + 1 for k, pieces in enumerate(foot) if said(pieces) != ({body}, len(str(k + 1)))]
    assert not wrong, (
        f"pages {wrong[:5]} (of {len(wrong)}) have in their margins not their number in the "
        f"text's font and size {body}, but {foot[wrong[0] - 1]} (print.css's @page)"
    )
