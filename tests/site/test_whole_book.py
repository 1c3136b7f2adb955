"""The whole book as a PDF (tools/publish.py), read back: every fold printed open.

The PDF is printed once, from the site the session built, as `dev.py pdf`, `build --archive`
and the Pages workflow print it: the whole-book page, opened from disk, by headless
Chromium. Its text is read with pypdf, only for the chapters the test looks into (their
pages, from the PDF's outline), and must hold what the book folds away on screen: checks,
solutions, answers and tables of steps. The chapters are found by what they hold
(tools/chapter.py), not by their file names.
"""

import re
import shutil

import pytest

from tests.helpers.site import PAGES, PRINT_PAGE
from tools.chapter import Chapter
from tools.publish import PDF, has_outline, pages, print_pdf

MARKUP = re.compile(r"[$\\\[\]_|<>]")  # a sentence with math, a link or HTML reads otherwise


@pytest.fixture(scope="module")
def book(built_site, tmp_path_factory):
    """The whole book printed to PDF, and pypdf's reader of it."""
    if shutil.which("chromium") is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    from pypdf import PdfReader

    out = print_pdf(built_site / PRINT_PAGE, tmp_path_factory.mktemp("pdf") / PDF)
    return out, PdfReader(out)


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


def test_the_pdf_has_every_chapter_in_its_outline(book):
    out, reader = book
    assert has_outline(out), "the PDF has no outline (--generate-pdf-document-outline)"
    titles = [title for title, _ in chapters_in_outline(reader)]
    wanted = [Chapter.read(page).title for page in PAGES]
    assert [t for t in titles if t in wanted] == wanted, (
        f"the PDF's outline lists {titles}, the book's chapters are {wanted}"
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
