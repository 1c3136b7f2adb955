"""Hints before the answer (tools/learn/hints.py), written once in the book: a folded block
right after the engine fence it helps with (tools/chapter.py's ``Chapter.hints``). Each names
a function that exists, right below the fence that defines it, and each link names a section
that exists; asked for again and again, they go from the section to the rule to the answer.
"""

import ast
import re
import shutil

import pytest

from tools import DOCS, ENGINES, ROOT
from tools.chapter import HINTS, Chapter, chapter_number, chapters
from tools.learn.best import read_record, record_path
from tools.learn.diagnose import NO_ONE
from tools.learn.hints import (
    LEVELS,
    book_hints,
    hint,
    plain,
    rule,
    section_linked,
    shown_where,
    unnamed_hint,
    worked,
)
from tools.learn.places import book_definitions
from tools.learn.table import ChapterResult, Failure
from tools.learner import main

BOOK_ENGINE = ROOT / "micrograd.py"
# What may stand between an engine fence and its hints: its own fences, folded (checks).
FOLDING = re.compile(r'<details markdown="1">|<summary>[^<]*</summary>|</details>')


def every_hint():
    return [h for path in chapters(DOCS) for h in Chapter.read(path).hints]


def test_each_hint_names_a_function_of_the_engine_fence_right_above_it():
    hints = every_hint()
    assert len(hints) >= 13
    for h in hints:
        where = f"{h.path.name}:{h.line}"
        assert h.fence is not None and h.fence.is_engine, f"{where}: no engine fence above"
        definitions = book_definitions(engine=h.fence.engine)  # of the fence's engine file
        assert h.name in definitions, f"{where}: `{h.name}` is no function of the engine"
        definition = definitions[h.name]
        assert (definition.chapter.name, definition.line) == (h.path.name, h.fence.line), (
            f"{where}: the hint about {h.name} is not right after the fence that defines it"
        )
        chapter = Chapter.read(h.path)
        in_fences = {n for f in chapter.fences for n in range(f.line - 1, f.end + 1)}
        between = [
            text
            for n, text in enumerate(chapter.lines[h.fence.end : h.line - 1], h.fence.end + 1)
            if n not in in_fences and text.strip()
        ]
        summary = f"<summary>{HINTS}</summary>"
        assert summary in between, where
        between = between[: between.index(summary) + 1]  # up to the block's summary
        assert all(FOLDING.fullmatch(text) for text in between), (where, between)
        assert between[-2:] == ['<details markdown="1">', summary], where
        assert h.text, f"{where}: a hint about {h.name} that says nothing"
    names = [(h.fence.engine, h.name) for h in hints]
    assert len(names) == len(set(names)), "a function with two hints"


def test_each_link_of_a_hint_names_a_section_that_exists():
    linked = [h for h in every_hint() if h.links]
    assert linked
    for h in linked:
        assert section_linked(h) is not None, f"{h.path.name}:{h.line}: {h.links}"


def test_a_hint_item_without_a_function_is_read_as_such(tmp_path):
    chapter = tmp_path / "01-x.md"
    chapter.write_text(
        '```python title="micrograd.py"\ndef f():\n    pass\n```\n\n<details markdown="1">\n'
        f"<summary>{HINTS}</summary>\n\n- `f`: the rule,\n  on two lines.\n- no name\n\n"
        "</details>\n\n<details>\n<summary>Solution</summary>\n\n- `g`: not a hint\n\n</details>\n"
    )
    found = Chapter.read(chapter).hints
    assert [(h.name, h.text, h.line) for h in found] == [
        ("f", "the rule, on two lines.", 9),
        ("", "no name", 11),
    ]
    assert found[0].fence.line == 2


def test_hints_go_from_the_section_to_the_rule_to_the_answer():
    worked = next(h for h in book_hints().values() if h.links and shown_where(h.name, None))
    unlinked = next(h for h in book_hints().values() if not h.links)
    for h in (worked, unlinked):
        first, second, third = (hint(h.name, level) for level in range(1, LEVELS + 1))
        assert first[0].startswith(f"Hint 1 for {h.name}: read docs/"), first
        assert "; compare " in first[0], first
        assert second == [f"Hint 2 for {h.name}: {rule(h)}"]
        assert third[0].startswith(f"Hint 3 for {h.name}: the "), third
    assert shown_where(worked.name, None) not in "\n".join(hint(worked.name, 3))  # none seen
    compared = (("x.grad", "2", "6"),)
    example = hint(unlinked.name, 3, compared=compared)
    assert example[0].endswith(
        "the check that failed. What it gives with your engine, and with the book's:"
    )
    assert example[1:] == [
        "  x.grad  yours: 2;  the book's: 6",
        f"Why: your {unlinked.name.rpartition('.')[2]} breaks the rule: {rule(unlinked)}",
    ]
    code = hint(unlinked.name, 3)
    assert "the book's own code" in code[0]
    assert "\n".join(code[1:]) + "\n" == book_definitions()[unlinked.name].source


def test_the_three_rungs_differ_for_every_function():
    """Where to look, the rule, the example: no rung repeats another, the rule leaves the
    worked example's link to the last rung, and says the rule without the code."""
    for engine, name in [(e, name) for e in ENGINES for name in book_definitions(engine=e)]:
        rungs = ["\n".join(hint(name, n, engine=engine)).split(": ", 1)[1] for n in (1, 2, 3)]
        assert len(set(rungs)) == 3, (name, rungs)
        example = shown_where(name, None, engine=engine)  # none seen: the link is to another
        if example is not None:
            assert example not in rungs[1] and example not in rungs[2], (name, rungs)
    for h in every_hint():
        code = [span for span in re.findall(r"`([^`]+)`", rule(h)) if not NAME.fullmatch(span)]
        assert not code, f"{h.path.name}:{h.line}: the rule for {h.name} shows code {code}"


NAME = re.compile(r"[\w.]+")  # what a rule may put in backticks: a name, not an expression


# Each refusal of each function (a piece of its raise, or a helper it calls to refuse) and
# what its hint must say of it. A refusal added to the engine fails the test until its
# function's hint names it, and a line here says where.
# fmt: off
REFUSED = {
    "Value.__init__": {"finite number": "`nan` or an infinity", "real number": "not a real number",
                       "too large for a float": "when operands made it"},
    "Value._backward": {"USED_GRAPH": "A spent node"},
    "Value.backward": {"USED_GRAPH": "before changing anything"},
    "Value.__pow__": {"constant int or float": "a `bool` or a `Value`",
                      "must be a finite number": "not finite", "negative base": "a negative base",
                      "zero to a negative power": "zero to a negative power",
                      "the slope at 0 is infinite": "between 0 and 1",
                      "{n} is too large": "a result",
                      "its slope is too large": "a slope too large"},
    "Value.__truediv__": {"division by zero": "divisor of zero", "slope": "slope too large"},
    "Value.exp": {"too large": "a result too large"},
    "Value.log": {"positive input": "0 or less", "its slope": "too large for a float"},
    "check_sequence": {"a sequence such as a list": "a mapping"},
    "dot": {"check_sequence(": "`check_sequence`", "expected": "different counts",
            "weights must be Values": "a weight that is not a `Value`",
            "numbers or Values": "a `bool` is not a number", "finite numbers": "not finite"},
    "check_size": {"not {type(n)": "another type", "not {n}": "below 1"},
    "check_activation": {"must be one of": "a key of `ACTIVATIONS`"},
    "Neuron.__init__": {"check_size(": "as those two checks say",
                        "check_activation(": "as those two checks say",
                        "rng must be": "cannot draw uniformly"},
    "Layer.__init__": {"check_size(": "as `check_size` does"},
    "MLP.__init__": {"list of layer sizes": "not a list or tuple",
                     "at least one layer size": "an empty list", "check_size(": "each size",
                     "check_activation(": "both activations"},
    "softmax_ce": {"check_sequence(": "`check_sequence`", "at least one logit": "no logits",
                   "class index": "not an `int`", "out of range": "outside the logits"},
    "graph_dot": {"under a Value": "not a `Value`"},
}
TENSOR_REFUSED = {  # the same for tensor.py
    "shape_of": {"real numbers": "not a real number", "finite numbers": "not finite",
                 "at least one number": "An empty list", "ragged": "ragged"},
    "Tensor.item": {"item() needs": "more than one"}, "Tensor.permute": {"order": "not an order"},
    "Tensor.reshape": {"reshape": "another count"}, "Tensor._groups": {"range": "out of range"},
    "Tensor.broadcast_shape": {"broadcast": "do not"}, "Tensor.log": {"positive": "0 or less"},
    "Tensor._elementwise": {"too large": "too large"}, "Tensor.exp": {"too large": "too large"},
    "Tensor.__truediv__": {"division by zero": "a divisor holding a 0"},
    "Tensor.__pow__": {"constant int or float": "a `bool`", "is not a real number": "not a real"},
    "Tensor.backward": {"starts from one element": "more than one", "USED_GRAPH": "spent"},
    "Tensor.__matmul__": {"matmul of": "inner sizes agree"},
    "cross_entropy": {"takes logits of shape": "not two axes", "targets for logits": "a count of "
                      "targets", "class index": "not a class index"},
    "Layer.__init__": {"activation must be one of": "a key of `ACTIVATIONS`"},
}
# fmt: on


@pytest.mark.parametrize("engine", ENGINES)
def test_every_function_of_the_skeleton_has_a_hint_naming_each_refusal_its_checks_require(engine):
    definitions, hints = book_definitions(engine=engine), book_hints(engine=engine)
    assert set(definitions) <= set(hints), sorted(set(definitions) - set(hints))
    helpers = {name for name in definitions if name.startswith("check_")}
    for name, definition in definitions.items():
        tree = ast.parse(definition.source)
        refusals = [
            ast.unparse(node.exc)
            for node in ast.walk(tree)
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
        ]
        refusals += [
            f"{node.func.id}("
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") in helpers - {name}
        ]
        said = (TENSOR_REFUSED if engine == "tensor.py" else REFUSED).get(name, {})
        h, raises = hints[name], r"raise (\w+Error)\("  # each exception, named in the hint too
        raised = re.findall(raises, definition.source) + [  # itself, or through a helper
            e for c in helpers - {name} if f"{c}(" in definition.source
            for e in re.findall(raises, definitions[c].source)
        ]  # fmt: skip
        missing = sorted({e for e in raised if f"`{e}`" not in h.text})
        assert not missing, f"{h.path.name}:{h.line}: the hint for {name} leaves out {missing}"
        for refusal in refusals:
            pieces = [piece for piece in said if piece in refusal]
            assert len(pieces) == 1, f"{name}: give {refusal!r} one line in REFUSED"
            assert said[pieces[0]] in plain(h), (
                f"{h.path.name}:{h.line}: the hint for {name} does not name the refusal "
                f"{refusal!r} (as {said[pieces[0]]!r})"
            )
        unused = [piece for piece in said if not any(piece in r for r in refusals)]
        assert not unused, f"{name}: REFUSED names refusals it no longer makes: {unused}"


def test_a_function_whose_mistakes_are_told_apart_shows_no_other_mistake_s_example():
    """backward's hint links to the forgotten reverse: when the diagnosis saw none of
    backward's mistakes, that example is not offered as if it were the learner's."""
    assert worked("Value.backward") is not None
    assert shown_where("Value.backward", None) is None
    assert "the worked example" not in hint("Value.backward", LEVELS)[0]
    example = "section '2. Find the bug in a backward pass'"  # where the book shows it
    assert example not in "\n".join(hint("Value.backward", LEVELS))
    found = {"mistake": "unreversed", "code": "x", "yours": "x.grad = 0", "book": "x.grad = 1"}
    assert example in "\n".join(hint("Value.backward", LEVELS, seen=found))


def test_with_no_function_named_the_hint_says_why_and_what_to_try():
    chapter = DOCS / "02-the-value-atom.md"
    failure = Failure(380, "AssertionError", kind="AssertionError", index=3, unnamed=NO_ONE)
    said = unnamed_hint(ChapterResult(chapter, 9, 2, failure))
    assert said[0] == f"No hint about one function: {NO_ONE}."
    assert said[1].startswith("Try: read the check that failed, line 380 of docs/02-the-value")
    assert "compare what each gives" in said[1]


@pytest.mark.heavy  # learner mode runs chapters: `test`, not `check`
def test_learn_gives_one_more_hint_each_time_it_is_asked(tmp_path, capsys):
    engine = tmp_path / "micrograd.py"
    shutil.copyfile(BOOK_ENGINE, engine)
    text = engine.read_text(encoding="utf-8")
    bug = 'edge = f"  n{number[operand]} -> n{number[node]}"'
    engine.write_text(text.replace(bug, 'edge = f"  n{number[node]} -> n{number[operand]}"'))
    chapter = str(chapter_number(book_definitions()["graph_dot"].chapter))
    assert main(["learn", str(engine), "--chapter", chapter]) == 1
    assert "Stuck? Add --hint for a hint about graph_dot" in capsys.readouterr().out
    said = []
    for _ in range(LEVELS + 1):
        assert main(["learn", str(engine), "--chapter", chapter, "--hint"]) == 1
        said.append(capsys.readouterr().out.split("\n\nHint ")[-1])
    assert [s.split(" ", 2)[:2] for s in said] == [[f"{n}", "for"] for n in [1, 2, 3, 3]]
    assert not any(f"of {LEVELS}" in s or "in all" in s for s in said)  # no count of what is left
    assert read_record(record_path(engine))["hints"] == {"graph_dot": LEVELS}
    engine.write_text(text, encoding="utf-8")  # fixed: the hints given are still there
    assert main(["learn", str(engine), "--chapter", chapter, "--hint"]) == 0
    assert "\n".join(hint("graph_dot", LEVELS)) in capsys.readouterr().out


def test_a_hint_reads_plainly_its_links_named_as_the_table_names_places():
    worked = book_hints()["Value._backward"]
    assert "**" in worked.text and "](03-backward.md#" in worked.text  # as written
    assert plain(worked).endswith(
        "Worked: docs/03-backward.md, section 'Accumulate, never assign' (page '3. Backward, "
        "tested')."
    )
    assert "**" not in plain(worked) and "`USED_GRAPH`" in plain(worked)
    backward = plain(book_hints()["Value.backward"])  # math as text, no TeX
    assert "since ∂L / ∂L = 1;" in backward and "$" not in backward
    assert not [h.name for h in book_hints().values() if "$" in plain(h) or "\\" in plain(h)]


@pytest.mark.heavy  # learner mode runs chapters: `test`, not `check`
def test_over_two_failing_chapters_the_hint_is_about_the_function_read_next_names(tmp_path, capsys):
    engine = tmp_path / "micrograd.py"
    text = BOOK_ENGINE.read_text(encoding="utf-8")
    bugs = {  # one function of chapter 4, one of chapter 8
        '(self,), (-1.0,), "neg")': '(self,), (1.0,), "neg")',
        'edge = f"  n{number[operand]} -> n{number[node]}"': (
            'edge = f"  n{number[node]} -> n{number[operand]}"'
        ),
    }
    for old, new in bugs.items():
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    engine.write_text(text, encoding="utf-8")
    numbers = [
        str(chapter_number(book_definitions()[f].chapter)) for f in ("Value.__neg__", "graph_dot")
    ]
    assert numbers[0] != numbers[1]
    chosen = [word for n in numbers for word in ("--chapter", n)]
    assert main(["learn", str(engine), *chosen, "--hint"]) == 1
    out = capsys.readouterr().out
    assert "Why each chapter's first failing check failed:" in out, out  # both chapters fail
    named = re.search(r"^Read next: .*, which builds (\S+), the function to fix\.$", out, re.M)
    assert named and named[1] == "Value.__neg__", out
    assert read_record(record_path(engine))["hints"] == {"Value.__neg__": 1}
    assert "graph_dot" not in out.split("\n\nHint ")[-1], out
