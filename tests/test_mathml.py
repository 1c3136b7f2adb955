"""tools/site/mathml.py on small formulas: each of latex2mathml's slips, mended.

The whole book's math is checked for the same slips in tests/site/test_site.py, with
tests/helpers/site.py's math_slips; first, that it finds each slip in raw latex2mathml."""

import xml.etree.ElementTree as ET

import pytest
from latex2mathml.converter import convert

from tests.helpers.site import math_slips
from tools.site.mathml import mathml

NS = "{http://www.w3.org/1998/Math/MathML}"
APPLY = "\u2061"
MINUS = "\u2212"


def parse(latex: str, display: str = "inline") -> list[ET.Element]:
    """The <math> elements of ``latex``, as elements with namespace-free tags."""
    pieces = ET.fromstring(f"<p>{mathml(latex, display)}</p>")
    for element in pieces.iter():
        element.tag = element.tag.removeprefix(NS)
    return list(pieces)


def tokens(latex: str) -> list[tuple[str, str, dict]]:
    """(tag, characters, attributes) of every token of ``latex``'s formula, in order."""
    return [
        (element.tag, element.text or "", element.attrib)
        for math in parse(latex)
        for element in math.iter()
        if element.tag in {"mi", "mo", "mn", "mtext"}
    ]


def test_a_function_name_is_applied_to_its_argument_with_a_thin_space():
    applied = ("mo", APPLY, {"rspace": "0.1667em"})
    assert tokens(r"\cos t") == [("mi", "cos", {}), applied, ("mi", "t", {})]


def test_no_space_after_a_function_name_when_the_argument_is_in_brackets():
    tags = tokens(r"\tanh(z)")
    assert tags[:3] == [("mi", "tanh", {}), ("mo", APPLY, {}), ("mo", "(", {"stretchy": "false"})]


@pytest.mark.parametrize("latex", [r"\max(0, a)", r"\operatorname{relu}(a)"])
def test_operator_names_become_applied_identifiers(latex):
    tag, name, _ = tokens(latex)[0]
    assert tag == "mi" and name.isalpha()
    assert tokens(latex)[1][1] == APPLY


def test_a_function_name_alone_is_not_applied_to_anything():
    assert tokens(r"\tanh") == [("mi", "tanh", {})]


def test_a_function_with_a_script_is_applied_after_the_script():
    (math,) = parse(r"\log_2 x")
    row = math[0][0]  # <math><semantics><mrow>
    assert [child.tag for child in row] == ["msub", "mo", "mi"]
    assert row[1].text == APPLY


@pytest.mark.parametrize(("latex", "signs"), [
    ("-a", ["prefix"]), ("+1", ["prefix"]), ("e^{-x}", ["prefix"]),  # first in its group
    ("r = -0.4", ["prefix"]),  # after a relation
    ("(-1, -1)", ["prefix", "prefix"]),  # after an opening bracket, after a comma
    (r"a \cdot -1", ["prefix"]),  # after a binary operator
    ("a - b", [None]), ("(a) - b", [None]),  # subtraction, also after a closing bracket
])  # fmt: skip
def test_a_sign_after_an_operator_is_a_prefix(latex, signs):
    found = [attrs.get("form") for tag, text, attrs in tokens(latex) if text in {MINUS, "+"}]
    assert found == signs


def test_mathrel_plus_equals_is_one_valid_operator():
    found = tokens(r"\bar{u} \mathrel{+}= v")
    assert ("mo", "+=", {}) in found
    assert not any(text == "=" for _, text, _ in found), "the = merged into +="
    assert not [e for m in parse(r"a \mathrel{+}= b") for e in m.iter("mo") if len(e)]


@pytest.mark.parametrize(("latex", "accent"), [(r"\dot{x}", "\u02d9"), (r"\bar{v}", "\u00af")])
def test_accents_sit_on_the_letter(latex, accent):
    (math,) = parse(latex)
    (mover,) = math.iter("mover")
    assert mover.get("accent") == "true"
    assert [child.tag for child in mover] == ["mi", "mo"], "the letter, not an mrow around it"
    assert mover[1].text == accent
    assert mover[1].get("stretchy") != "true", "a bar over one letter does not stretch"


def test_a_bar_over_several_letters_still_stretches():
    (math,) = parse(r"\bar{ab}")
    (mover,) = math.iter("mover")
    assert mover.get("accent") == "true" and mover[1].get("stretchy") == "true"


def test_slash_and_partial_are_ordinary_and_a_colon_is_a_relation():
    found = tokens(r"\partial L / \partial v")
    assert found[0] == ("mi", "\u2202", {})
    assert ("mo", "/", {"lspace": "0", "rspace": "0"}) in found
    assert ("mo", ":", {"lspace": "0.2778em", "rspace": "0.2778em"}) in tokens(r"f : A")


def test_dots_in_a_list_are_ordinary_so_only_the_commas_space_them():
    found = tokens(r"c_1, \dots, c_k")
    assert ("mi", "\u2026", {}) in found and ("mo", "\u2026", {}) not in found
    assert ("mi", "\u22ef", {}) in tokens(r"a + \cdots + b")


def test_inline_math_can_break_after_each_relation():
    pieces = parse(r"a = b \le c")
    shown = ["".join(e.text for e in piece.iter() if e.tag in {"mi", "mo"}) for piece in pieces]
    assert shown == ["a=", "b\u2264", "c"]
    assert pieces[0].find("semantics/annotation").text == r"a = b \le c"
    assert len(parse(r"a = b \le c", display="block")) == 1, "display math is never split"
    assert len(parse(r"a + b")) == 1


def test_latex_source_goes_along_escaped():
    math = parse(r"a < b \text{ and } c")[0]  # split after <: the first piece
    annotation = math.find("semantics/annotation")
    assert annotation.get("encoding") == "application/x-tex"
    assert annotation.text.startswith("a < b")


def test_text_escapes_are_undone():
    assert ("mtext", "one_hot", {}) in tokens(r"p - \text{one\_hot}")


def test_unknown_command_is_an_error():
    with pytest.raises(ValueError, match="does not know a command"):
        mathml(r"\foo x")


@pytest.mark.parametrize("latex", [
    r"\frac{\partial L}{\partial v} = \sum_{j=1}^{k} \frac{\partial L}{\partial c_j}",
    r"L = -\log p_t = \log \sum_j e^{v_j} - v_t",
    r"\bar{u}_i \mathrel{+}= \frac{\partial v}{\partial u_i}\,\bar{v}",
    r"\text{outer: } (\cos t,\ \sin t), \qquad t \in [0, \pi]",
    r"\dot{v} = \dot{a}\, b + a\, \dot{b}", r"2 \cdot (-0.4) = -0.8",
])  # fmt: skip
def test_book_formulas_come_out_without_slips(latex):
    for display in ("inline", "block"):
        out = mathml(latex, display)
        for piece in ET.fromstring(f"<p>{out}</p>"):
            assert not math_slips(ET.tostring(piece, encoding="unicode")), (latex, display)


@pytest.mark.parametrize(("latex", "slip"), [
    *((latex, "runs into its argument") for latex in (r"\cos t", r"\log p_t", r"\max(0, a)")),
    (r"r = -0.4", "spaced as a subtraction"), (r"(-1, 1)", "spaced as a subtraction"),
    (r"\bar{u} \mathrel{+}= v", "holds elements"),
    (r"\dot{x}", "without accent"), (r"\bar{v}", "without accent"),
])  # fmt: skip
def test_math_slips_are_found_in_raw_latex2mathml_output(latex, slip):
    """The site check below can fail: latex2mathml alone makes each of these slips."""
    found = math_slips(convert(latex))
    assert any(slip in text for text in found), f"{latex}: expected {slip!r}, found {found}"
    assert not math_slips(convert("a - b = c")), "a subtraction is not a slip"


def test_search_reads_math_as_a_line_of_text_with_scripts_and_no_tex():
    from tools.site.mathml import math_in_markdown, search_text

    said = search_text(r"\log \sum_j e^{v_j - m} - (v_t - m)")
    minus = "\u2212"
    expected = (
        f"log ∑<sub>j</sub>e<sup>v<sub>j</sub> {minus} m</sup> {minus} (v<sub>t</sub> {minus} m)"
    )
    assert said == expected, said
    assert search_text(r"\frac{\partial L}{\partial x} = 2 \cdot 15") == "(∂L)/(∂x) = 2 · 15"
    assert search_text(r"\frac{a+b}{2}") == "(a + b)/2"  # one token: no parentheses
    page = math_in_markdown("$$\n\\sqrt{a^2}\n$$", print)
    shown, hidden = page.split("</div>\n\n")
    assert "data-search-exclude" in shown and "<math" in shown, page
    assert hidden == '<p class="math-search" hidden="">√(a<sup>2</sup>)</p>', hidden


def test_math_in_a_chapter_becomes_mathml_that_markdown_leaves_alone():
    """The site pass writes MathML into the chapter's Markdown: no mark inside it (a star, an
    underscore, a bracket, a table's bar) may become emphasis, a link or a cell; code stays."""
    import markdown

    from tools.site.mathml import math_in_markdown

    text = "| a | b |\n|---|---|\n| $|x| * y_1$ | `$x$` |\n\nSo $a_1 * b_1$, $[c](d)$.\n"
    html = markdown.markdown(math_in_markdown(text, pytest.fail), extensions=["tables"])
    assert html.count("<td>") == 2 and html.count("<math") == 3, html
    assert "<em>" not in html and "<a " not in html and "<code>$x$</code>" in html, html
