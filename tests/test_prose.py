"""The prose cannot drift from the code: every number a section states is one its fences give.

Readers trust the sentences more than the code, so a number in the prose of a section
(a decimal, or an integer of two digits or more: in a sentence, a table or $...$ math)
must also stand in one of the python fences of the same section (the text under one
`#` or `##` heading), as a number in the code (a value it computes with, or asserts) or
in the ```output block that checks what a fence prints. Change such a number in the
prose alone and this test names the chapter, the line, and the nearest values the
section's fences do give.

Not checked (each for a stated reason, see NOT_RESULTS): code spans and link targets
(code, not claims), numbered headings, chapter references, version numbers and years.
"""

from __future__ import annotations

import io
import math
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from tools.notebook import cells
from tools.tangle import ROOT, chapters

PAGES = chapters(ROOT / "docs")

# Numbers in prose that are not results of the chapter's code, and why.
NOT_RESULTS = [
    # "chapter 12", "chapters 2 and 5", "Chapter 10": pointers into the book, not values
    r"\b[Cc]hapters?\s+\d+(?:(?:,|\s+and|\s+or)\s+\d+)*",
    r"\b[Ff]igures?\s+\d+",  # "Figure 11": a figure's number, like a chapter's
    # "PyTorch 2.9", "Python 3.11", "JAX v0.6.2": versions of other software
    r"\b(?:Python|PyTorch|JAX|tinygrad|micrograd|pytest|Pyodide|Chromium|release)"
    r"(?:\s+v|\s+version\s+|\s+)\d+(?:\.\d+)+(?:(?:,|\s+to|\s+and|\s+or|-|\u2013)\s*\d+(?:\.\d+)+)*",
    r"\bv?\d+\.\d+\.\d+\b",  # any three-part version number
    r"(?<![\d,.])(?:19|20)\d\d(?![\d,.])",  # a year: "spring 2024", "(2020)"
    r"^\s*#*\s*\d+\.\s",  # the number of a numbered heading or list item, "# 10. Making..."
]
_NOT_RESULTS = re.compile("|".join(f"(?:{p})" for p in NOT_RESULTS), re.M)

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
    values: frozenset[float]  # what it may mean: 99 % is 99 or 0.99


def _claims_in(text: str, line: int) -> list[Claim]:
    """The numbers in ``text`` (which may span lines), ``line`` being its first line."""
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
        values = {value, value / 100} if match["percent"] else {value}
        if match["exponent"]:  # 10^{400} overflows a float; code may write 10.0 ** 400
            values.add(abs(float(match["exponent"][1:])))
        at = line + text.count("\n", 0, match.start())
        found.append(Claim(at, match[0].strip(), frozenset(values)))
    return found


def prose_claims(page: Path) -> list[Claim]:
    """The numbers the prose of a chapter states, with their lines."""
    source = page.read_text(encoding="utf-8").splitlines()
    claims = []
    for token in MarkdownIt("commonmark").parse("\n".join(source)):
        if token.type != "inline" or not token.map:
            continue
        first, last = token.map
        block = "\n".join(source[first:last])  # a reader's view of it: no code, no links
        block = re.sub(r"(`+)[^`]*?\1", lambda m: re.sub(r"[^\n]", " ", m[0]), block)
        block = re.sub(r"\]\([^)]*\)", "]", block)
        block = re.sub(r"<!--.*?-->", " ", block, flags=re.DOTALL)
        claims += _claims_in(block, first + 1)
    return claims


def _numbers_in_code(code: str, first_line: int) -> dict[float, int]:
    values: dict[float, int] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return values
    for token in tokens:
        if token.type == tokenize.NUMBER and not token.string.endswith(("j", "J")):
            text = token.string
            value = float(int(text, 0)) if text[:2].lower() in {"0x", "0o", "0b"} else float(text)
            values.setdefault(value, first_line + token.start[0] - 1)
    return values


def _numbers_in_output(text: str, first_line: int) -> dict[float, int]:
    values: dict[float, int] = {}
    for number, line in enumerate(text.splitlines()):
        for claim in _claims_in(line, first_line + number):
            for value in claim.values:
                values.setdefault(value, claim.line)
        for match in re.finditer(r"(?<![\w.,])\d(?![\w.,])", line):  # single digits too
            values.setdefault(float(match[0]), first_line + number)
    return values


def sections(page: Path) -> list[int]:
    """The first line of each `#` and `##` section of a chapter (1-based), in order."""
    tokens = MarkdownIt("commonmark").parse(page.read_text(encoding="utf-8"))
    heads = [t.map[0] + 1 for t in tokens if t.type == "heading_open" and t.tag in {"h1", "h2"}]
    return [1, *heads]


def section_of(line: int, starts: list[int]) -> int:
    return max(start for start in starts if start <= line)


def fence_values(page: Path) -> dict[int, dict[float, int]]:
    """For each section, every number in its python fences and output blocks, with a line."""
    starts = sections(page)
    values: dict[int, dict[float, int]] = {start: {} for start in starts}
    for cell in cells(page):
        found = values[section_of(cell.line, starts)]
        for value, line in _numbers_in_code(cell.fence.code, cell.line).items():
            found.setdefault(abs(value), line)
        if cell.output:
            for value, line in _numbers_in_output(cell.output.code, cell.output.line).items():
                found.setdefault(value, line)
    return values


def nearest(value: float, values: dict[float, int], count: int = 3) -> str:
    def distance(v: float) -> float:  # how many times larger or smaller
        if not (math.isfinite(v) and math.isfinite(value)) or v == 0 or value == 0:
            return math.inf
        return abs(math.log(abs(v)) - math.log(abs(value)))

    best = sorted(values, key=distance)[:count]
    return ", ".join(f"{v:.12g} (line {values[v]})" for v in best) or "none"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_number_in_the_prose_is_one_the_fences_give(page):
    starts, values = sections(page), fence_values(page)
    unbacked = []
    for claim in prose_claims(page):
        given = values[section_of(claim.line, starts)]
        if not claim.values & given.keys():
            unbacked.append((claim, given))
    name = page.relative_to(ROOT).as_posix()
    assert not unbacked, "\n".join(
        f"{name}:{claim.line}: the prose says {claim.text}, but no python fence of this "
        f"section computes, asserts or prints {claim.text} (nearest: "
        f"{nearest(min(claim.values), given)}). Fix the prose, or check the number in a "
        "fence of this section."
        for claim, given in unbacked
    )
