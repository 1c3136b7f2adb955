"""LaTeX math to MathML that reads well in a browser's native MathML layout.

``latex2mathml`` converts the book's ``$...$`` math at build time; ``mathml()`` then mends
the markup slips in its element tree that no font can fix (``mend``). The LaTeX goes
along as an ``application/x-tex`` annotation, left out of search.
"""

import html
import itertools
import re
from collections.abc import Callable
from xml.etree.ElementTree import Element, SubElement, tostring
from xml.sax.saxutils import unescape

from latex2mathml import commands
from latex2mathml.converter import convert_to_element

# Function names that latex2mathml writes as <mi>cos</mi>; \max, \min, \lim and
# \operatorname{...} come out as an <mo> of letters instead.
FUNCTION_NAMES = frozenset(name.lstrip("\\") for name in commands.FUNCTIONS)
APPLY = "\u2061"  # FUNCTION APPLICATION, the invisible operator between f and its argument
THIN_SPACE = "0.1667em"  # TeX's \, : the space after an operator name before its argument
THICK_SPACE = "0.2778em"  # TeX's space around a relation
SIGNS = frozenset("\u2212+")  # minus (latex2mathml writes - as U+2212) and plus
# After these a sign is infix (subtraction): the left operand ends with them.
CLOSERS = frozenset(")]}|\u2016\u27e9!\u2032")
OPENERS = frozenset("([{|\u2016\u27e8")
# Accents latex2mathml puts over a base: dot, double dot, bar (macron), hat, tilde,
# acute, grave, breve, check, ring, vector arrow.
ACCENTS = frozenset("\u02d9\u00a8\u00af^\u02c6~\u02dc\u00b4`\u02d8\u02c7\u02da\u2192")
STRETCHY_ACCENT_OVER_ONE_LETTER = frozenset("\u00af~\u02dc^\u02c6\u2192")
# relations: = < > ≠ ≤ ≥ ≈ ≡ \sim ≃ ∝ ∈ ∉ ⊂ ⊆ → ← ↦ :
RELATIONS = frozenset("=<>\u2260\u2264\u2265\u2248\u2261\u223c\u2243\u221d\u2208\u2209")
RELATIONS |= frozenset("\u2282\u2286\u2192\u2190\u21a6:")
ROWS = frozenset({"math", "mrow", "mstyle", "mtd", "msqrt", "mpadded", "mphantom", "menclose"})
TOKENS = frozenset({"mi", "mo", "mn", "mtext"})
_MTEXT = re.compile(r"(<mtext[^>]*>)(.*?)(</mtext>)", re.DOTALL)
_TEXT_ESCAPE = re.compile(r"\\([_&%$#{}])")  # \_ in \text{one\_hot}, which latex2mathml keeps


EXCLUDED = "data-search-exclude"  # Material's search leaves such an element out
# Operators that a line of text spaces around, as one would type them.
SPACED = RELATIONS | frozenset("+\u2212\u00d7\u00b7\u00b1\u2213\u21d2\u2218")
INVISIBLE = frozenset("\u2061\u2062\u2063\u2064")  # function application, times, ...


def search_text(latex: str) -> str:
    """The formula as a line of text for the search index and its snippets: tokens spaced
    as one would type them, scripts as <sub> and <sup> (which search keeps), a fraction
    as (a)/(b), a root as √(a); never the LaTeX."""
    math = convert_to_element(latex, display="inline")
    mend(math)
    return re.sub(r"\s+", " ", _linear(math)).strip()


def _grouped(element: Element) -> str:
    """``element`` as text, in parentheses if it is more than one token."""
    said = _linear(element).strip()
    return said if len(list(element.iter())) <= 2 and " " not in said else f"({said})"


def _linear(element: Element) -> str:
    tag = element.tag.rpartition("}")[2]
    kids = list(element)
    if tag in ("mi", "mn", "mtext", "ms"):
        return html.escape(text(element), quote=False)
    if tag == "mo":
        sign = text(element).strip()
        if sign in INVISIBLE:
            return " " if sign == "\u2061" else ""
        spaced = sign in SPACED and element.get("form") != "prefix"
        return f" {html.escape(sign, quote=False)} " if spaced else html.escape(sign, quote=False)
    if tag == "mspace":
        return " "
    if tag in ("msub", "munder") and len(kids) == 2:
        return f"{_linear(kids[0])}<sub>{_linear(kids[1]).strip()}</sub>"
    if tag in ("msup", "mover") and len(kids) == 2:
        if element.get("accent") == "true":
            return _linear(kids[0]) + _linear(kids[1]).strip()
        return f"{_linear(kids[0])}<sup>{_linear(kids[1]).strip()}</sup>"
    if tag in ("msubsup", "munderover") and len(kids) == 3:
        base, below, above = (_linear(kid).strip() for kid in kids)
        return f"{base}<sub>{below}</sub><sup>{above}</sup>"
    if tag == "mfrac" and len(kids) == 2:
        return f"{_grouped(kids[0])}/{_grouped(kids[1])}"
    if tag == "msqrt":
        return f"√({''.join(_linear(kid) for kid in kids).strip()})"
    if tag == "mroot" and len(kids) == 2:
        return f"<sup>{_linear(kids[1]).strip()}</sup>√({_linear(kids[0]).strip()})"
    if tag == "mtr":
        return ", ".join(_linear(kid).strip() for kid in kids) + "; "
    if tag == "annotation":
        return ""
    return "".join(_linear(kid) for kid in kids)


_MATH = re.compile(  # a fence or a code span (left as they are), $$...$$ on lines of its own,
    r"^ *(?P<ticks>`{3,}|~{3,})[^\n]*\n.*?^ *(?P=ticks)[`~]*[ \t]*$|(?P<tick>`+)(?!`).+?(?<!`)"
    r"(?P=tick)(?!`)|^\$\$(?P<block>.+?)\$\$[ \t]*$"  # and $...$ as arithmatex finds it
    r"|(?<![\\$])\$(?!\s)(?P<inline>(?:\\.|[^\\$])+?)(?<!\s)\$",
    re.M | re.S,
)
_INERT = {ord(c): f"&#{ord(c)};" for c in "\\`*_[]$~^|"}  # Markdown marks, a table cell end


def math_in_markdown(text: str, warn: Callable[[str, Exception], object]) -> str:
    """``text`` (a chapter) with its math as MathML: ``$$...$$`` a block of HTML, its
    ``div.arithmatex`` scrolling sideways on a narrow screen; ``$...$`` inline HTML whose
    text Markdown's marks cannot reach. LaTeX that cannot be converted is left as it was,
    and ``warn(latex, error)`` is called. Search indexes a hidden line of text beside each
    formula (``search_text``), not the MathML, whose tokens it would run together."""

    def to_mathml(match: re.Match) -> str:
        if match["block"] is None and match["inline"] is None:
            return match[0]  # code
        block = match["block"] is not None
        latex = (match["block"] if block else match["inline"]).strip()
        try:
            if block:
                shown = f'<div class="arithmatex" {EXCLUDED}>{mathml(latex, display="block")}</div>'
                return f'{shown}\n\n<p class="math-search" hidden="">{search_text(latex)}</p>'
            shown = f"<span {EXCLUDED}>{mathml(latex, display='inline')}</span>"
            shown += f'<span class="math-search" hidden="">{search_text(latex)}</span>'
            return re.sub(r">([^<]+)<", lambda m: f">{m[1].translate(_INERT)}<", shown)
        except Exception as error:
            warn(latex, error)
            return match[0]

    return _MATH.sub(to_mathml, text)


def mathml(latex: str, display: str = "inline") -> str:
    """MathML for ``latex``; ValueError if latex2mathml cannot convert all of it.

    Inline math comes back as one ``<math>`` per stretch between relations (``a = b = c``
    gives ``a =``, ``b =``, ``c``), since a browser cannot break a line inside a ``<math>``
    element; TeX breaks inline math after a relation too. The first one carries the
    LaTeX source.
    """
    math = convert_to_element(latex, display=display)
    mend(math)
    pieces = [math] if display == "block" else _split_after_relations(math)
    out = [_serialize(piece) for piece in pieces]
    if any("\\" in piece for piece in out):
        raise ValueError("latex2mathml does not know a command here")
    return _annotate(out[0], latex) + "".join(out[1:])


def mend(math: Element) -> None:
    """Fix latex2mathml's markup slips in place, as TeX lays the math out: a function name
    is applied (``\\cos t`` does not read "cost"); a sign after an operator is a prefix;
    ``\\mathrel{+}=`` is one ``+=``; ``\\dot`` and ``\\bar`` are accents; ``/``,
    ``\\partial`` and dots are ordinary symbols, ``:`` and ``;`` operators."""
    flattened = {element for element in list(math.iter()) if _flatten_token(element)}
    for element in list(math.iter()):
        if element.tag in ROWS:
            _merge_class_operators(element, flattened)
            _apply_functions(element)
            _mark_prefix_signs(element)
            _symbol_classes(element)
        if element.tag == "mover":
            _accent(element)


def text(element: Element) -> str:
    """The characters of a token element (latex2mathml stores ``&#x02212;`` as text)."""
    return html.unescape(element.text or "")


def _set_text(element: Element, value: str) -> None:
    element.text = "".join(c if c.isalnum() else f"&#x{ord(c):04X};" for c in value)


def _flatten_token(element: Element) -> bool:
    """``\\mathrel{+}`` gives ``<mo><mrow><mo>+</mo></mrow></mo>``: keep the outer token
    with the characters of what it wraps. True if it did."""
    if element.tag not in TOKENS or not len(element):
        return False
    value = "".join(html.unescape(part) for part in element.itertext())
    for child in list(element):
        element.remove(child)
    _set_text(element, value)
    return True


def _merge_class_operators(row: Element, flattened: set[Element]) -> None:
    """A flattened ``\\mathrel{+}`` followed by ``=`` is the one operator ``+=``."""
    kids = list(row)
    for this, after in itertools.pairwise(kids):
        if this in flattened and this.tag == "mo" and after.tag == "mo" and text(after) == "=":
            _set_text(this, text(this) + "=")
            row.remove(after)


def is_function_name(element: Element) -> bool:
    """``<mi>cos</mi>``, ``<mo>max</mo>``, or either with a script (``\\log_2``)."""
    if element.tag in {"msub", "msup", "msubsup", "munder", "mover", "munderover"}:
        return len(element) > 0 and is_function_name(element[0])
    value = text(element)
    if element.tag == "mi":
        return value in FUNCTION_NAMES
    return element.tag == "mo" and len(value) > 1 and value.isalpha()


def _apply_functions(row: Element) -> None:
    kids = list(row)
    for at, element in enumerate(kids):
        if not is_function_name(element):
            continue
        base = element if element.tag in {"mi", "mo"} else element[0]
        if base.tag == "mo" and element.tag not in {"munder", "munderover"}:
            base.tag = "mi"  # an operator name is an identifier unless it takes limits
        after = kids[at + 1] if at + 1 < len(kids) else None
        if after is None or (after.tag == "mo" and text(after) == APPLY):
            continue  # the name alone ("the function $\tanh$"), or already applied
        apply = Element("mo")
        _set_text(apply, APPLY)
        if not (after.tag == "mo" and text(after) in OPENERS):
            apply.set("rspace", THIN_SPACE)
        row.insert(list(row).index(element) + 1, apply)


def _mark_prefix_signs(row: Element) -> None:
    left = None  # the nearest element to the left, spaces skipped
    for element in row:
        if element.tag == "mspace":
            continue
        is_sign = element.tag == "mo" and text(element) in SIGNS
        if is_sign and (left is None or (left.tag == "mo" and text(left) not in CLOSERS)):
            element.set("form", "prefix")
        left = element


def _symbol_classes(row: Element) -> None:
    """TeX's classes for symbols latex2mathml marks the other way round."""
    for element in row:
        if element.tag == "mo" and text(element) == "/":  # ordinary: no space around it
            element.attrib.update(lspace="0", rspace="0")
        if element.tag == "mo" and text(element) in ("\u2202", "\u2026", "\u22ef"):
            element.tag = "mi"  # ordinary, like a letter: ∂, and \dots and \cdots in a list
        if element.tag == "mi" and text(element) == ":":  # a relation: f : A -> B
            element.tag = "mo"
            element.attrib.update(lspace=THICK_SPACE, rspace=THICK_SPACE)
        if element.tag == "mi" and text(element) == ";":  # punctuation
            element.tag = "mo"


def _accent(mover: Element) -> None:
    if len(mover) != 2 or mover[1].tag != "mo" or text(mover[1]) not in ACCENTS:
        return
    base, accent = mover
    if base.tag == "mrow" and len(base) == 1:  # <mrow><mi>x</mi></mrow>: accent the letter
        mover.remove(base)
        base = base[0]
        mover.insert(0, base)
    mover.set("accent", "true")
    one_letter = base.tag in TOKENS and len(text(base)) == 1
    if one_letter and text(accent) in STRETCHY_ACCENT_OVER_ONE_LETTER:
        accent.set("stretchy", "false")


def _split_after_relations(math: Element) -> list[Element]:
    row = math[0]  # latex2mathml puts everything in one <mrow>
    pieces, current = [], []
    for element in row:
        current.append(element)
        if element.tag == "mo" and is_relation(text(element)):
            pieces.append(current)
            current = []
    if current:
        pieces.append(current)
    if len(pieces) < 2:
        return [math]
    split = [Element(math.tag, math.attrib) for _ in pieces]
    for piece, elements in zip(split, pieces):
        SubElement(piece, "mrow").extend(elements)
    return split


def is_relation(value: str) -> bool:
    return value in RELATIONS or (len(value) == 2 and value.endswith("="))


def _serialize(math: Element) -> str:
    out = unescape(tostring(math, encoding="unicode"))
    return _MTEXT.sub(
        lambda m: m[1] + _TEXT_ESCAPE.sub(lambda e: html.escape(e[1]), m[2]) + m[3], out
    )


def _annotate(out: str, latex: str) -> str:
    """Wrap the formula in <semantics> with its LaTeX source as an annotation."""
    opening, rest = out.split(">", 1)
    body = rest.removesuffix("</math>")
    source = html.escape(latex, quote=False)
    return (
        f"{opening}><semantics>{body}"
        f'<annotation encoding="application/x-tex" data-search-exclude="">{source}</annotation>'
        "</semantics></math>"
    )
