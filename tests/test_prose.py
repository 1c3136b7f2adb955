"""The prose cannot drift from the code: every number a paragraph states, its fences give.

Readers trust the sentences more than the code, so a number in the prose (a decimal, or an
integer of two digits or more: in a sentence, a table or $...$ math) must also stand in the
python fences next to it: the run of fences just before the paragraph or the one just after
it, in the same `#` or `##` section (a run is fences with no prose between them, such as a
demonstration and its folded checks). It may stand there as a number in the code (a value
it computes with, or asserts) or in the ```output block that checks what a fence prints.
A sign is part of a number: "-0.8" in the prose needs -0.8 in those fences (a literal
after a unary minus, or -0.8 printed), and "0.8" needs 0.8 there, so a minus dropped or
added in the prose alone is caught. One exception, which a reader sees as plain English:
an unsigned number may quote the size of a negative value where the words just before it
say so (SIZE_WORDS): "falls by 0.33", "a step of magnitude 0.33", "an absolute value of
0.33". Anywhere else, say the sign ("the gradient is -0.33") or say it is a size.
Prose describes the code beside it, so it can quote few numbers, and changing one in the
prose alone almost always leaves one no neighbouring fence gives; this test then names the
chapter, the line, and the nearest values those fences do give. A change can still slip
through when the new number is one the neighbouring fences also use (0.5 into 0.6 where
both are inputs); tying each number to code by name would close that, at the cost of
markup in the Markdown, which readers would see.

A number in a code span of the prose is checked like any other (`Value(-8.0) ** (1 / 3)`
needs -8.0 in those fences): a reader may type it, so the code beside it must give it.
Not checked (each for a stated reason, see NOT_RESULTS): link targets (not read), numbered
headings, chapter references, version numbers, years and arXiv identifiers; nor the blocks
a tool writes into a chapter, such as the table of a figure's steps (they are not prose:
tools/chapter.py leaves them out, and tests/test_steps.py compares each with what its tool
writes now, as an output block is compared with what its fence prints).
"""

import io
import keyword
import math
import re
import shutil
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

from tools import ROOT
from tools.chapter import Chapter, chapters

PAGES = chapters(ROOT / "docs")

# Numbers in prose that are not results of the chapter's code, and why.
NOT_RESULTS = [
    # "chapter 13", "chapters 2 and 6", "Chapter 11": pointers into the book, not values
    r"\b[Cc]hapters?\s+\d+(?:(?:,|\s+and|\s+or)\s+\d+)*",
    r"\b[Ff]igures?\s+\d+",  # "Figure 11": a figure's number, like a chapter's
    # "PyTorch 2.9", "Python 3.11", "JAX v0.6.2": versions of other software
    r"\b(?:Python|PyTorch|JAX|tinygrad|micrograd|pytest|Pyodide|Chromium|release)"
    r"(?:\s+v|\s+version\s+|\s+)\d+(?:\.\d+)+(?:(?:,|\s+to|\s+and|\s+or|-|\u2013)\s*\d+(?:\.\d+)+)*",
    r"\bv?\d+\.\d+\.\d+\b",  # any three-part version number
    r"\barXiv:?\s*\d{4}\.\d{4,5}",  # a paper's arXiv identifier, "arXiv 1502.05767"
    r"(?<![\d,.])(?:19|20)\d\d(?![\d,.])",  # a year: "spring 2024", "(2020)"
    r"^\s*#*\s*\d+\.\s",  # the number of a numbered heading or list item, "# 10. Making..."
]
_NOT_RESULTS = re.compile("|".join(f"(?:{p})" for p in NOT_RESULTS), re.M)

# Words that, just before an unsigned number, say it quotes a size, so that it may stand
# for a negative value too: "by" ("falls by 0.33", "rises by 0.08"), "magnitude", "size",
# "absolute value", each optionally followed by a few small words ("of", "about", "only"...)
# and the opening of math ("by $0.33$"). Nothing else makes a sign optional.
SIZE_WORDS = re.compile(
    r"\b(?:by|magnitudes?|sizes?|absolute(?:\s+values?)?)"
    r"(?:\s+(?:of|is|are|about|only|roughly|nearly|almost|just|some|exactly|around))*"
    r"\s*\$?\s*$",
    re.I,
)

# A number as prose writes it: 1,000,002 or 0.109 or 1e-12 or 99 %; signs are ignored.
_NUMBER = re.compile(
    r"(?<![\w.^_{])(?P<digits>\d{1,3}(?:,\d{3})+|\d+)(?P<fraction>\.\d+)?"
    r"(?P<exponent>[eE][-+]?\d+)?(?P<percent>\s?%)?x?(?![\w])"  # 3.4x: 3.4 times
)
# Powers of ten in math: 2 \times 10^{-6}, 10^{-4}, 10^6
_POWER = re.compile(r"(?:(\d+(?:\.\d+)?)\s*\\times\s*)?10\^\{?(-?\d+)\}?")


@dataclass(frozen=True)
class Claim:
    line: int  # 1-based line in the chapter
    text: str  # as written
    values: frozenset[float]  # what it may mean: 99 % is 99 or 0.99; -0.8 is -0.8 only


def _negated(text: str, start: int) -> bool:
    """Whether the number at ``start`` has a minus sign of its own ("= -0.4", "$-0.8$"),
    not one of a subtraction ("1 - 0.4") or a range ("2-3")."""
    if start == 0 or text[start - 1] not in "-\u2212":
        return False
    return start == 1 or not (text[start - 2].isalnum() or text[start - 2] in ")]}.")


def quotes_a_size(text: str, start: int) -> bool:
    """Whether the words just before the number at ``start`` say it is a size (SIZE_WORDS)."""
    return bool(SIZE_WORDS.search(" ".join(text[max(0, start - 60) : start].split())))


def _claims_in(text: str, line: int, sizes: bool = True) -> list[Claim]:
    """The numbers in ``text`` (which may span lines), ``line`` being its first line; with
    ``sizes``, an unsigned number that quotes a size may also mean its negative."""
    found = []
    text = _POWER.sub(lambda m: f"{m[1] or 1}e{m[2]}", text)  # 10^{-4}: read as 1e-4
    skipped = [range(*m.span()) for m in _NOT_RESULTS.finditer(text)]
    for match in _NUMBER.finditer(text):
        if any(match.start() in span for span in skipped):
            continue
        digits = match["digits"].replace(",", "")
        if not (match["fraction"] or match["exponent"] or len(digits) >= 2):
            continue  # single digits are everywhere in prose: indices, counts in words
        value = float(digits + (match["fraction"] or "") + (match["exponent"] or ""))
        if _negated(text, match.start()):
            value = -value
        values = {value, value / 100} if match["percent"] else {value}
        if sizes and value > 0 and quotes_a_size(text, match.start()):
            values |= {-v for v in values}
        if match["exponent"]:  # 10^{400} overflows a float; code may write 10.0 ** 400
            values.add(abs(float(match["exponent"][1:])))
        at = line + text.count("\n", 0, match.start())
        sign = "-" if value < 0 else ""
        found.append(Claim(at, sign + match[0].strip(), frozenset(values)))
    return found


def prose_claims(page: Path) -> list[Claim]:
    """The numbers the prose of a chapter states, with their lines."""
    claims = []
    for first, block in Chapter.read(page).prose:  # a reader's view of it: no link targets
        block = re.sub(r"\]\([^)]*\)", "]", block)
        block = re.sub(r"<!--.*?-->", " ", block, flags=re.DOTALL)
        claims += _claims_in(block, first)
    return claims


def _starts_a_term(before: list[tokenize.TokenInfo]) -> bool:
    """Whether a minus after these tokens is a sign (``x = -1``) rather than a subtraction."""
    if not before:
        return True
    last = before[-1]
    if last.type == tokenize.OP:
        return last.string not in ")]}"
    return last.type == tokenize.NAME and keyword.iskeyword(last.string)  # return -1


def _numbers_in_code(code: str, first_line: int) -> dict[float, int]:
    """Every number literal, with its sign: negated after a unary minus (``-0.8``), not after
    a subtraction (``x - 0.8``)."""
    values: dict[float, int] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return values
    meaningful = [t for t in tokens if t.type not in (tokenize.NL, tokenize.COMMENT)]
    for i, token in enumerate(meaningful):
        if token.type == tokenize.NUMBER and not token.string.endswith(("j", "J")):
            text = token.string
            value = float(int(text, 0)) if text[:2].lower() in {"0x", "0o", "0b"} else float(text)
            if i and meaningful[i - 1].string == "-" and _starts_a_term(meaningful[: i - 1]):
                value = -value  # x = -0.8: the code says -0.8, not 0.8
            values.setdefault(value, first_line + token.start[0] - 1)
    return values


def _numbers_in_output(text: str, first_line: int) -> dict[float, int]:
    values: dict[float, int] = {}
    for number, line in enumerate(text.splitlines()):
        for claim in _claims_in(line, first_line + number, sizes=False):
            for value in claim.values:  # -0.8 printed backs "-0.8" in the prose, not "0.8"
                values.setdefault(value, claim.line)
        for match in re.finditer(r"(?<![\w.,])\d(?![\w.,])", line):  # single digits too
            values.setdefault(float(match[0]), first_line + number)
    return values


def sections(page: Path) -> list[int]:
    """The first line of each `#` and `##` section of a chapter (1-based), in order."""
    return [1, *(h.line for h in Chapter.read(page).headings if h.level <= 2)]


def section_of(line: int, starts: list[int]) -> int:
    return max(start for start in starts if start <= line)


_NOT_PROSE = re.compile(r"\s*(?:</?details[^>]*>|<summary>.*</summary>)?\s*")


def fence_runs(page: Path) -> list[tuple[int, int, dict[float, int]]]:
    """Runs of python fences with no prose between them (a demonstration and its folded
    checks, say), each as (first line, last line, every number in the code and outputs)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    runs: list[tuple[int, int, dict[float, int]]] = []
    for cell in Chapter.read(page).cells:
        found: dict[float, int] = {}
        for value, line in _numbers_in_code(cell.fence.code, cell.line).items():
            found.setdefault(value, line)
        last = cell.end
        if cell.output:
            for value, line in _numbers_in_output(cell.output.code, cell.output.line).items():
                found.setdefault(value, line)
            last = cell.output.line + cell.output.code.count("\n")
        between = lines[runs[-1][1] : cell.line - 2] if runs else ["prose"]
        if all(_NOT_PROSE.fullmatch(text) for text in between):
            first, _, before = runs.pop()
            found = {**found, **before}
        else:
            first = cell.line
        runs.append((first, last, found))
    return runs


def neighbours(line: int, starts: list[int], runs) -> dict[float, int]:
    """The numbers of the runs of fences either side of prose at ``line``, in its section."""
    section = section_of(line, starts)
    given: dict[float, int] = {}
    before = [run for run in runs if run[1] < line and section_of(run[0], starts) == section]
    after = [run for run in runs if run[0] > line and section_of(run[0], starts) == section]
    for _, _, found in before[-1:] + after[:1]:
        for value, at in found.items():
            given.setdefault(value, at)
    return given


def nearest(value: float, values: dict[float, int], count: int = 3) -> str:
    def distance(v: float) -> float:  # how many times larger or smaller
        if not (math.isfinite(v) and math.isfinite(value)) or v == 0 or value == 0:
            return math.inf
        return abs(math.log(abs(v)) - math.log(abs(value)))

    best = sorted(values, key=distance)[:count]
    return ", ".join(f"{v:.12g} (line {values[v]})" for v in best) or "none"


def drifts(page: Path, name: str) -> list[str]:
    """What the prose of ``page`` states that the fences next to it do not give."""
    starts, runs = sections(page), fence_runs(page)
    found = []
    for claim in prose_claims(page):
        given = neighbours(claim.line, starts, runs)
        if claim.values & given.keys():
            continue
        flipped = {-value for value in claim.values} & given.keys()
        if flipped:
            value = min(flipped, key=abs)
            fix = (
                f"The fences give {value:.12g} (line {given[value]}): say the sign the code "
                "gives"
                + (
                    ", or, if the sentence quotes a size, say so ('falls by', 'of magnitude')."
                    if value < 0
                    else "."
                )
            )
        else:
            fix = "Fix the prose, or check the number in a fence next to it."
        found.append(
            f"{name}:{claim.line}: the prose says {claim.text}, but none of the python "
            "fences next to it (those just before it and just after it, in this section) "
            f"computes, asserts or prints {claim.text} (nearest: "
            f"{nearest(min(claim.values), given)}). {fix}"
        )
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_number_in_the_prose_is_one_its_fences_give(page):
    found = drifts(page, page.relative_to(ROOT).as_posix())
    if found:  # the messages alone: they say where and what to do, once
        pytest.fail("\n".join(found), pytrace=False)


# Edits of the prose alone, each of a number the code beside it computes, that must be caught:
# one the section's other fences happen to use (0.1, 30), one given a minus sign, a minus
# dropped (q's gradient, -1.75; and in a code span, -8.0) and one added (the loss, 0.109).
DRIFTS = [
    ("10-two-moons.md", "to 0.109 at the last step", "to 0.1 at the last step", "0.1"),
    ("03-backward.md", "on to $x$: 36 in all", "on to $x$: 30 in all", "30"),
    ("05-a-scalar-neuron.md", "$\\partial L / \\partial p = 2r = -0.8$",
     "$\\partial L / \\partial p = 2r = -0.6$", "-0.6"),
    ("05-a-scalar-neuron.md", "at $q = 2$ is $-1.75$", "at $q = 2$ is $1.75$", "1.75"),
    ("10-two-moons.md", "to 0.109 at the last step", "to -0.109 at the last step", "-0.109"),
    ("04-the-other-operations.md", "such as `Value(-8.0) **", "such as `Value(8.0) **", "8.0"),
]  # fmt: skip


def skip_if_it_drifts(chapter: str) -> None:
    """A test that edits a chapter's prose is skipped while the chapter fails its own check:
    that failure is reported once, by test_every_number_in_the_prose_is_one_its_fences_give."""
    if drifts(ROOT / "docs" / chapter, f"docs/{chapter}"):
        pytest.skip(f"docs/{chapter} fails its own prose check: see that failure first")


@pytest.mark.parametrize(("chapter", "old", "new", "said"), DRIFTS, ids=lambda v: str(v)[:12])
def test_a_number_changed_in_the_prose_alone_is_caught(tmp_path, chapter, old, new, said):
    skip_if_it_drifts(chapter)
    text = (ROOT / "docs" / chapter).read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{chapter} no longer says {old!r}: update DRIFTS"
    page = tmp_path / chapter
    page.write_text(text.replace(old, new), encoding="utf-8")
    line = text[: text.index(old)].count("\n") + 1
    found = drifts(page, f"docs/{chapter}")
    assert len(found) == 1 and found[0].startswith(f"docs/{chapter}:{line}: ")
    assert f"the prose says {said}," in found[0]
    if said.startswith("-") or "-" + said not in text[text.index(old) : text.index(old) + 200]:
        return
    assert "say the sign the code gives" in found[0]  # a dropped minus says so


@pytest.mark.parametrize(("sentence", "negative"), [
    *((sentence, True) for sentence in ("the loss falls by 0.33 in one step",
      "a step of magnitude 0.33", "its size is about 0.33", "an absolute value of $0.33$")),
    *((sentence, False) for sentence in ("x gets half of it, 0.33", "the gradient is 0.33",
      "$\\partial L / \\partial q = 0.33$")),
])  # fmt: skip
def test_an_unsigned_number_means_a_negative_only_where_it_quotes_a_size(sentence, negative):
    (claim,) = _claims_in(sentence, 1)
    assert (-0.33 in claim.values) is negative and 0.33 in claim.values
    (printed,) = _claims_in(sentence, 1, sizes=False)  # what a fence prints is exact
    assert printed.values == {0.33}


def test_a_size_quoted_as_a_size_passes(tmp_path):
    skip_if_it_drifts("05-a-scalar-neuron.md")
    text = (ROOT / "docs" / "05-a-scalar-neuron.md").read_text(encoding="utf-8")
    old = "at $q = 2$ is $-1.75$"
    assert text.count(old) == 1, f"05-a-scalar-neuron.md no longer says {old!r}"
    page = tmp_path / "05-a-scalar-neuron.md"
    page.write_text(text.replace(old, "at $q = 2$ is negative, of magnitude $1.75$"), "utf-8")
    assert not drifts(page, "docs/05-a-scalar-neuron.md")


pytest_plugins = ["pytester"]


def test_a_wrong_prose_number_fails_one_test_and_says_so_once(pytester):
    """This file run on a copy of the book with one number of chapter 5's prose changed:
    one test fails, its message is printed once, and the tests that edit that chapter's
    prose themselves are skipped (a copy of a wrong chapter fails their checks too)."""
    shutil.copytree(ROOT / "docs", pytester.path / "docs", ignore=shutil.ignore_patterns("*.svg"))
    chapter = pytester.path / "docs" / "05-a-scalar-neuron.md"
    old, new = "$\\partial L / \\partial p = 2r = -0.8$", "$\\partial L / \\partial p = 2r = -0.6$"
    assert chapter.read_text(encoding="utf-8").count(old) == 1, f"chapter 5 no longer says {old}"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    pytester.makeconftest(  # tools.ROOT is the copy's folder when the copy imports it
        f"import pathlib, sys\nsys.path.insert(0, {str(ROOT)!r})\nimport tools\n"
        "tools.ROOT = pathlib.Path(__file__).parent\n"
    )
    pytester.makepyfile(test_copy=Path(__file__).read_text(encoding="utf-8"))
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-rN", "-k", "not wrong_prose_number"
    )
    outcomes = result.parseoutcomes()
    assert (outcomes.get("failed"), outcomes.get("skipped")) == (1, 3), result.outlines
    said = [line for line in result.outlines if "the prose says -0.6," in line]
    assert len(said) == 1 and said[0].startswith("docs/05-a-scalar-neuron.md:13: "), said
