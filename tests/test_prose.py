"""The prose cannot drift from the code: every number a paragraph states, its fences give.

Readers trust the sentences more than the code, so a number in the prose (a decimal, or an
integer of two digits or more: in a sentence, a table or $...$ math) must also stand in the
python fences next to it: the run of fences just before the paragraph or the one just after
it, in the same `#` or `##` section (a run is fences with no prose between them, such as a
demonstration and its folded checks). It may stand there as a number in the code (a value
it computes with, or asserts) or in the ```output block that checks what a fence prints.
A minus sign of the number's own counts: "-0.8" in the prose needs -0.8 in those fences
(a number without one may be a magnitude, "x gets half of it, 0.33", so it may stand
for -0.33 as well).
Prose describes the code beside it, so it can quote few numbers, and changing one in the
prose alone almost always leaves one no neighbouring fence gives; this test then names the
chapter, the line, and the nearest values those fences do give. A change can still slip
through when the new number is one the neighbouring fences also use (0.5 into 0.6 where
both are inputs); tying each number to code by name would close that, at the cost of
markup in the Markdown, which readers would see.

Not checked (each for a stated reason, see NOT_RESULTS): code spans and link targets
(code, not claims), numbered headings, chapter references, version numbers and years; nor
the blocks a tool writes into a chapter, such as the table of a figure's steps (they are not
prose: tools/chapter.py leaves them out, and tests/test_steps.py compares each with what
its tool writes now, as an output block is compared with what its fence prints).
"""

from __future__ import annotations

import io
import keyword
import math
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

from tools import ROOT
from tools.chapter import Chapter, chapters

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
    values: frozenset[float]  # what it may mean: 99 % is 99 or 0.99; -0.8 is -0.8


def _negated(text: str, start: int) -> bool:
    """Whether the number at ``start`` has a minus sign of its own ("= -0.4", "$-0.8$"),
    not one of a subtraction ("1 - 0.4") or a range ("2-3")."""
    if start == 0 or text[start - 1] not in "-\u2212":
        return False
    return start == 1 or not (text[start - 2].isalnum() or text[start - 2] in ")]}.")


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
        if _negated(text, match.start()):
            value = -value
        values = {value, value / 100} if match["percent"] else {value}
        if match["exponent"]:  # 10^{400} overflows a float; code may write 10.0 ** 400
            values.add(abs(float(match["exponent"][1:])))
        at = line + text.count("\n", 0, match.start())
        sign = "-" if value < 0 else ""
        found.append(Claim(at, sign + match[0].strip(), frozenset(values)))
    return found


def prose_claims(page: Path) -> list[Claim]:
    """The numbers the prose of a chapter states, with their lines."""
    claims = []
    for first, block in Chapter.read(page).prose:  # a reader's view of it: no code, no links
        block = re.sub(r"(`+)[^`]*?\1", lambda m: re.sub(r"[^\n]", " ", m[0]), block)
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
    """Every number literal, as written and, after a unary minus, negated too."""
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
            values.setdefault(value, first_line + token.start[0] - 1)
            if i and meaningful[i - 1].string == "-" and _starts_a_term(meaningful[: i - 1]):
                values.setdefault(-value, first_line + token.start[0] - 1)
    return values


def _numbers_in_output(text: str, first_line: int) -> dict[float, int]:
    values: dict[float, int] = {}
    for number, line in enumerate(text.splitlines()):
        for claim in _claims_in(line, first_line + number):
            for value in claim.values:  # -0.8 printed backs "-0.8" and "0.8" in the prose
                values.setdefault(value, claim.line)
                values.setdefault(abs(value), claim.line)
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
        if not claim.values & given.keys():
            found.append(
                f"{name}:{claim.line}: the prose says {claim.text}, but none of the python "
                "fences next to it (those just before it and just after it, in this section) "
                f"computes, asserts or prints {claim.text} (nearest: "
                f"{nearest(min(claim.values), given)}). Fix the prose, or check the number "
                "in a fence next to it."
            )
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_number_in_the_prose_is_one_its_fences_give(page):
    found = drifts(page, page.relative_to(ROOT).as_posix())
    assert not found, "\n".join(found)


# Edits of the prose alone, each of a number the code beside it computes, that must be caught:
# one the section's other fences happen to use (0.1, 30), and one given a minus sign.
DRIFTS = [
    ("09-two-moons.md", "to 0.109 at the last step", "to 0.1 at the last step", "0.1"),
    ("03-backward.md", "on to $x$: 36 in all", "on to $x$: 30 in all", "30"),
    (
        "04-a-scalar-neuron.md",
        "$\\partial L / \\partial p = 2r = -0.8$",
        "$\\partial L / \\partial p = 2r = -0.6$",
        "-0.6",
    ),
]


@pytest.mark.parametrize(("chapter", "old", "new", "said"), DRIFTS, ids=lambda v: str(v)[:12])
def test_a_number_changed_in_the_prose_alone_is_caught(tmp_path, chapter, old, new, said):
    if drifts(ROOT / "docs" / chapter, f"docs/{chapter}"):  # reported once, by the test above
        pytest.skip(f"docs/{chapter} fails its own prose check: see that failure first")
    text = (ROOT / "docs" / chapter).read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{chapter} no longer says {old!r}: update DRIFTS"
    page = tmp_path / chapter
    page.write_text(text.replace(old, new), encoding="utf-8")
    line = text[: text.index(old)].count("\n") + 1
    found = drifts(page, f"docs/{chapter}")
    assert len(found) == 1 and found[0].startswith(f"docs/{chapter}:{line}: ")
    assert f"the prose says {said}," in found[0]
