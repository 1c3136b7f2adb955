"""The math font as the site serves it: STIX Two Math cut down to what the built pages'
math shows.

The whole font (``docs/stylesheets/fonts/``, 403 kB) would be a third of a chapter page's
weight, for the hundred or so characters the book's math uses. fontTools' subsetter keeps
those glyphs and, through the OpenType MATH table it also keeps, their size variants and
assemblies (sums with limits, stretchy parentheses, radicals, accents), and every layout
feature: the subset lays out the book's MathML as the whole font does. The same pages and
the same fontTools give the same bytes (the head table's date is left as it was).
"""

import html
import io
import re
import unicodedata
from pathlib import Path

FONT = Path("stylesheets/fonts/STIXTwoMath-Regular.woff2")  # in docs/, and in the site
_MATH = re.compile(r"<math\b.*?</math>", re.DOTALL)
_ANNOTATION = re.compile(r"<annotation\b.*?</annotation>", re.DOTALL)  # TeX: not drawn
_ONE_LETTER = re.compile(r"<mi>([^<]*)</mi>")  # no mathvariant: italic if one letter
_ROOT = re.compile(r"<m(sq)?root\b")
_TAG = re.compile(r"<[^>]*>")
# FreeType's autohinter, with which Chromium draws text on Linux, measures the heights of a
# script on these letters of the font (its blue zones, src/autofit/afblue.dat: Latin,
# Greek): without the Greek ones, an inline δ sat a pixel off where the whole font puts it.
MEASURED = set("THEZOCQSLUfijkdbhxzroescpqgjy") | set("ΓΒΕΖΘΟΩΔΞβθδζλξαειοπστωγημρφχψ")


def italic(char: str) -> str | None:
    """The letter MathML Core draws for a one-letter ``<mi>``: its mathematical italic
    (for x, U+1D465 MATHEMATICAL ITALIC SMALL X), or None if it has none."""
    if char == "h":
        return "\u210e"  # PLANCK CONSTANT, where MATHEMATICAL ITALIC SMALL H would be
    name = re.sub("LATIN |GREEK |LETTER |LUNATE ", "", unicodedata.name(char, ""))
    try:
        return unicodedata.lookup(f"MATHEMATICAL ITALIC {name}")
    except KeyError:
        return None


def characters(page: str) -> set[str]:
    """Every character the MathML of the HTML ``page`` draws: the text of its ``<math>``
    elements but their TeX annotations, the italic of each one-letter ``<mi>``, and the
    radical sign of a root (``<msqrt>`` holds no text for it)."""
    found = set()
    for math in _MATH.findall(page):
        math = _ANNOTATION.sub("", math)
        found |= set(html.unescape(_TAG.sub("", math)))
        if _ROOT.search(math):
            found.add("\u221a")  # RADICAL SIGN
        letters = (html.unescape(mi) for mi in _ONE_LETTER.findall(math))
        found |= {italic(mi) for mi in letters if len(mi) == 1} - {None}
    return found


def subset(font: bytes, chars: set[str]) -> bytes:
    """``font`` (WOFF2) cut down to ``chars`` and the letters the autohinter measures, with
    their MATH variants and layout features."""
    try:
        from fontTools import subset as subsetter
        from fontTools.ttLib import TTFont

        whole = TTFont(io.BytesIO(font), recalcTimestamp=False)
    except ImportError as missing:
        raise ImportError(
            f"the site's math font needs fontTools with WOFF2 support ({missing}): "
            "pip install 'fonttools[woff]', as pyproject.toml's site extra does"
        ) from None
    options = subsetter.Options(layout_features=["*"], name_IDs=["*"], flavor="woff2")
    cut = subsetter.Subsetter(options)
    cut.populate(unicodes=sorted(map(ord, chars | MEASURED)))
    cut.subset(whole)
    out = io.BytesIO()
    whole.save(out)
    return out.getvalue()


def install_font(site: Path, docs: Path) -> None:
    """Serve, in place of the whole math font in ``docs``, the subset the pages need (the
    site pass's tree: Markdown whose math is MathML)."""
    if not (docs / FONT).exists():
        return
    pages = sorted(site.rglob("*.md"))
    chars = set().union(*(characters(p.read_text(encoding="utf-8")) for p in pages))
    (site / FONT).write_bytes(subset((docs / FONT).read_bytes(), chars))
