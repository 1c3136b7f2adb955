"""The book as a reader sees it: results in the reading flow, checks folded, figures in place.

A chapter's checks are its tests, but a reader should meet results, not scaffolding:
checks live in folded `<details markdown="1">` blocks, which the site, VS Code's preview
and GitHub all render closed. These tests count what stays in the reading flow, make
sure what a reader sees can be copied and run outside this repository (it imports only
micrograd and the standard library), and that every figure a chapter shows exists, has a
text alternative, and is one the figure tool draws.
"""

import re
import sys
from pathlib import Path

import pytest

from tools import ENGINES, ROOT
from tools.chapter import OUTPUT, Chapter, Fence, chapter_number, chapters, is_python
from tools.figures.from_chapters import FIGURES, FOLDER

ENGINE_MODULES = {Path(name).stem for name in ENGINES}  # micrograd, tensor
PAGES = chapters(ROOT / "docs")
VISIBLE_CHECKS_BUDGET = 50  # assert / pytest.raises lines left in the reading flow, book-wide
CHECK_LINE = re.compile(r"^\s*(assert\b|with pytest\.raises\b)")
IMAGE = re.compile(r"!\[(?P<alt>[^\]]*)\]\((?P<src>[^)\s]+)\)")


def python_fences(page: Path) -> list[Fence]:
    """The chapter's python fences (each knows whether it sits in a folded <details> block)."""
    return [cell.fence for cell in Chapter.read(page).cells]


def visible_checks(page: Path) -> list[str]:
    return [
        f"{page.name}:{fence.line + i}"
        for fence in python_fences(page)
        if not fence.folded
        for i, line in enumerate(fence.code.splitlines())
        if CHECK_LINE.match(line)
    ]


def test_figures_are_numbered_in_reading_order():
    numbers = [
        (page.name, int(match[1]))
        for page in PAGES
        for match in re.finditer(r"^\*Figure (\d+)\.", page.read_text(encoding="utf-8"), re.M)
    ]
    assert [n for _, n in numbers] == list(range(1, len(numbers) + 1)), (
        f"figure captions should count 1, 2, 3... through the book: {numbers}"
    )


def test_checks_stay_out_of_the_reading_flow():
    visible = [where for page in PAGES for where in visible_checks(page)]
    assert len(visible) <= VISIBLE_CHECKS_BUDGET, (
        f"{len(visible)} assert/pytest.raises lines are in the reading flow (budget "
        f'{VISIBLE_CHECKS_BUDGET}); fold checks into a <details markdown="1"> block: '
        + ", ".join(visible)
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_what_a_reader_sees_imports_only_the_engines_and_the_standard_library(page):
    for fence in python_fences(page):
        if fence.folded:
            continue
        assert fence.names.parses, f"{page.name}:{fence.opening}: a fence that does not parse"
        for name in fence.names.imports:  # a method alone is read too (tools/chapter.py)
            top = name.split(".")[0]
            assert top in ENGINE_MODULES or top in sys.stdlib_module_names, (
                f"{page.name}:{fence.opening}: a fence in the reading flow imports {name}; "
                "a reader copying it has only the engines and the standard library "
                "(move it into a folded check, or draw it as a figure)"
            )


# What a folded fence may import beyond the engines and the standard library: its checks use
# pytest, a comparison with PyTorch, folded under exactly this summary, uses torch, and
# property-based checks, under theirs, use Hypothesis (each is skipped, saying why, where
# it is not installed: tools/notebook.py's OPTIONAL).
FOLDED_IMPORTS = {
    "pytest": None,
    "torch": "The same in PyTorch",
    "hypothesis": "Property-based checks, with Hypothesis",
}


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_a_folded_fence_imports_pytest_torch_and_hypothesis_only_where_it_says_so(page):
    for fence in python_fences(page):
        if not fence.folded:
            continue  # the test above
        for name in fence.names.imports:
            top = name.split(".")[0]
            if top in ENGINE_MODULES or top in sys.stdlib_module_names:
                continue
            assert top in FOLDED_IMPORTS, (
                f"{page.name}:{fence.opening}: a folded fence imports {name}; the book's "
                "fences import only the engines, the standard library, pytest in checks, "
                f"torch under <summary>{FOLDED_IMPORTS['torch']}</summary> and hypothesis "
                f"under <summary>{FOLDED_IMPORTS['hypothesis']}</summary>"
            )
            wanted = FOLDED_IMPORTS[top]
            assert wanted is None or fence.summary == wanted, (
                f"{page.name}:{fence.opening}: a fence imports {name} in a folded block "
                f"whose summary is {fence.summary!r}; fold it under "
                f"<summary>{wanted}</summary>, which tells the reader what it needs"
            )


def figures_shown() -> list[tuple[Path, int, str, str]]:
    found = []
    for page in PAGES:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            found += [(page, number, m["alt"], m["src"]) for m in IMAGE.finditer(line)]
    return found


def test_every_figure_shown_exists_has_a_text_alternative_and_is_drawn_by_the_tool():
    shown = figures_shown()
    for page, line, alt, src in shown:
        where = f"{page.name}:{line}"
        assert src.startswith("figures/") and src.endswith(".svg"), f"{where}: {src}"
        name = Path(src).stem
        assert name in FIGURES, f"{where}: {src} is not a figure tools/figures/ draws"
        assert page.name in (FIGURES[name].chapter, "index.md"), (
            f"{where}: {src} is drawn from {FIGURES[name].chapter}, not from this chapter"
        )
        assert (FOLDER / f"{name}.svg").exists(), f"{where}: {src} does not exist"
        assert len(alt.split()) >= 8, (
            f"{where}: give {src} a text alternative that says what it shows"
        )
    in_chapters = {Path(src).stem for page, *_, src in shown if page.name != "index.md"}
    unused = set(FIGURES) - in_chapters
    assert not unused, f"figures drawn but shown by no chapter: {sorted(unused)}"
    assert len(in_chapters) >= 14, f"only {len(in_chapters)} figures in the chapters"


def test_home_page_lists_every_chapter_in_order():
    tokens = Chapter.read(ROOT / "docs" / "index.md").tokens
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


# The book's shape (issues 26 and 40): no numbered chapter longer than a reader takes in at
# a sitting, and the chapter that builds `Value` runs a working `backward()` within its first
# BACKWARD_SEEN_BY lines a reader sees (``Chapter.shown``: folds closed, blank lines and
# fence backticks not counted), before it hardens the engine.
CHAPTER_LINES = 700
BACKWARD_SEEN_BY = 150
VALUE_CHAPTER = ROOT / "docs" / "02-the-value-atom.md"


def test_no_numbered_chapter_is_over_700_lines():
    sizes = {page.name: len(Chapter.read(page).lines) for page in PAGES if chapter_number(page)}
    assert len(sizes) >= 16
    too_long = {name: lines for name, lines in sizes.items() if lines > CHAPTER_LINES}
    assert not too_long, (
        f"chapters over {CHAPTER_LINES} lines: {too_long}: split the chapter, or cut checks "
        "that an output block already makes"
    )


def first_backward_run(chapter: Chapter) -> tuple[int, int]:
    """The line of `def backward(` in the chapter's engine fences, and the last line of the
    first experiment after it that calls backward() where a reader sees it (its output
    block included)."""
    defined = next(
        fence.line + i
        for fence in chapter.engine_fences
        for i, text in enumerate(fence.code.splitlines())
        if text.startswith("    def backward(")
    )
    cell = next(
        c
        for c in chapter.cells
        if c.line > defined
        and not c.fence.is_engine
        and not c.fence.folded
        and "backward" in c.fence.names.calls
    )
    return defined, (cell.output or cell.fence).end


def test_shown_counts_what_a_reader_sees_with_folds_closed(tmp_path):
    text = (
        "# Title\n"  # 1
        "\n"
        "Prose.\n"  # 3
        "```python\n"
        "x = 1\n"  # 5
        "\n"
        "```\n"
        "\n"
        "<!-- a comment -->\n"
        "\n"
        '<details markdown="1">\n'
        "<summary>Checks</summary>\n"  # 12: a closed fold shows its summary
        "\n"
        "```python\n"
        "assert x\n"
        "```\n"
        "\n"
        '<details markdown="1">\n'
        "<summary>Inner</summary>\n"  # inside a closed fold: not seen
        "\n"
        "Hidden.\n"
        "\n"
        "</details>\n"
        "\n"
        "</details>\n"
        "\n"
        "```output\n"
        "1\n"  # 28: an output block is seen
        "```\n"
    )
    assert Chapter.read(tmp_path / "02-x.md", text).shown == [1, 3, 5, 12, 28]


def test_chapter_2_runs_backward_within_its_first_150_lines_a_reader_sees():
    chapter = Chapter.read(VALUE_CHAPTER)
    defined, ran = first_backward_run(chapter)
    seen = [n for n in chapter.shown if n <= ran]
    assert len(seen) <= BACKWARD_SEEN_BY, (
        f"{VALUE_CHAPTER.name}:{ran}: backward() (defined at line {defined}) first runs "
        f"where a reader sees it in a fence that ends after "
        f"{len(seen)} lines a reader sees (folds closed, blank lines not counted), more than "
        f"{BACKWARD_SEEN_BY}: move what a reader does not need before the first gradient "
        "(checks, refusals, hardening) after it, or fold it"
    )
    figure = next(n for n, text in enumerate(chapter.lines, 1) if text.startswith("!["))
    first_heading_after = next(h.line for h in chapter.headings if h.line > ran)
    assert figure < first_heading_after, (
        f"{VALUE_CHAPTER.name}:{figure}: draw the gradients of the first backward() as a "
        "figure right after it, before the next section"
    )


# Lines of visible code per line of visible prose, at most (``balance``): a chapter
# teaches in sentences, with code beside them; the appendix, which measures, may show more.
CODE_PER_PROSE = 1.2
CODE_PER_PROSE_IN = {"appendix-making-it-fast.md": 2.0}
_OPENS, _CLOSES = re.compile(r"<details\b"), re.compile(r"</details>")


def balance(chapter: Chapter) -> tuple[int, int]:
    """What a reader meets outside folded ``<details>`` blocks, in non-blank source lines:
    code (every fence but ```output blocks, which are results) and prose (not the blocks
    a tool wrote)."""
    lines, depth, code, prose = chapter.lines, 0, 0, 0
    written = [range(g.line, g.end or len(lines) + 1) for g in chapter.generated]

    def counted(start: int, stop: int) -> int:
        return sum(1 for text in lines[start:stop] if text.strip())

    for token in chapter.tokens:
        if token.type in ("html_block", "html_inline"):
            depth += len(_OPENS.findall(token.content)) - len(_CLOSES.findall(token.content))
        elif depth or not token.map:
            continue
        elif token.type == "fence" and token.info.strip() != OUTPUT:
            code += counted(token.map[0] + 1, token.map[1] - 1)
        elif token.type == "inline" and not any(token.map[0] + 1 in w for w in written):
            prose += counted(*token.map)
    return code, prose


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_visible_code_is_balanced_by_prose(page):
    code, prose = balance(Chapter.read(page))
    ratio, limit = code / max(prose, 1), CODE_PER_PROSE_IN.get(page.name, CODE_PER_PROSE)
    assert ratio <= limit, (
        f"{page.name}: {code} lines of code in the reading flow against "
        f"{prose} of prose ({ratio:.2f} a line, at most {limit}): explain "
        "the code in sentences, cut what repeats an earlier chapter, or fold checks into a "
        '<details markdown="1"> block'
    )


PLAIN_PYTHON_INFO = re.compile(r'python(\s+[A-Za-z_][\w-]*="[^"]*")*')
SITE_ONLY_BLOCK = re.compile(r"(!!!|\?\?\?\+?|===\+?)\s")  # admonitions, details, tabs


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_chapter_is_plain_markdown(page):
    tokens = Chapter.read(page).tokens
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
