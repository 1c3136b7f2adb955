"""A score that measures (tools/learn/): after a failed check, the checks that do not read
what it left unsure still run; a check that differs from the book only in the words of an
error message or a repr passes, said apart; what a failing check printed is shown; the best
score is remembered beside the learner's file; each chapter's row is printed as it is known.
"""

import ast
import json
import shutil
import textwrap
from pathlib import Path

import pytest

from tools import ROOT
from tools.chapter import Chapter
from tools.learn.best import KIND, read_record, record_path
from tools.learn.child import check, run_chapter
from tools.learn.counted import made_from, names_used
from tools.learn.table import progress_table
from tools.learn.wording import wording_only
from tools.learner import main

BOOK_ENGINE = ROOT / "micrograd.py"
VALUE_CHAPTER = ROOT / "docs" / "02-the-value-atom.md"
CLASSES = frozenset({"Value", "MLP"})

# fmt: off
WORDING = [  # the book's line, a learner's line, told apart as wording only?
    ("TypeError: Value holds a real number, not str", "TypeError: numbers only, please", True),
    ("x: OverflowError: exp(710) is too large", "x: OverflowError: too big", True),
    ("a chain: RecursionError", "a chain: RecursionError: maximum recursion depth", True),
    ("Value(data=3, grad=0)", "Value(data=3.0, grad=0)", True),  # the original micrograd's
    ("one: Value(data=0.424961, grad=0)", "one: Value(data=0.42496089, grad=0.0)", True),
    ("one: Value(data=0.424961, grad=0)", "one: Value(data=0.424962, grad=0)", False),  # off
    ("Value(data=1.5e-07, grad=0)", "Value(data=1.50001e-07, grad=0)", False),
    ("Value(data=-2.5, grad=0)", "Value(data=-2.50000049, grad=0)", True),
    ("Value(data=-2.5, grad=0)", "Value(data=-2.50002, grad=0)", False),
    ("[Value(data=-1, grad=0), Value(data=2, grad=0)]", "[Value(-1.0, 0), Value(2.0, 0)]", True),
    ("TypeError: Value holds a real number", "ValueError: Value holds a real number", False),
    ("Value(nan): ValueError: finite only", "Value(nan): ValueError: no nan", True),
    ("Value(data=3, grad=0)", "Value(data=3, grad=1)", False),  # a gradient is behaviour
    ("Value(data=3, grad=0)", "Value(data=3)", False),
    ("a * b: a.grad = -4.0", "a * b: a.grad = 2.0", False),
    ("same", "same", False),  # equal is not "worded otherwise"
]
# fmt: on


@pytest.mark.parametrize("book, printed, worded", WORDING)
def test_wording_is_told_apart_from_behaviour(book, printed, worded):
    assert wording_only(book + "\n", printed + "\n", CLASSES) is worded


def chapter_of(tmp_path: Path, *fences: str) -> Path:
    """A chapter of python fences (and ```output blocks: a fence given as (code, output))."""
    text = ""
    for fence in fences:
        code, output = fence if isinstance(fence, tuple) else (fence, None)
        text += f"```python\n{textwrap.dedent(code).strip()}\n```\n\n"
        if output is not None:
            text += f"```output\n{output}```\n\n"
    path = tmp_path / "01-x.md"
    path.write_text(text, encoding="utf-8")
    return path


ENGINE = """\
class Thing:
    def __init__(self, n):
        if not isinstance(n, int):
            raise TypeError("my own words")
        self.n = n

    def __repr__(self):
        return f"Thing(n={self.n}.0)"

    def double(self):
        return self.n * 3  # the learner's mistake
"""


def events_of(chapter: Path, tmp_path: Path) -> list[dict]:
    engine = tmp_path / "micrograd.py"
    engine.write_text(ENGINE, encoding="utf-8")
    events = []
    run_chapter(chapter, engine, lambda **event: events.append(event))
    return [e for e in events if "start" not in e]


def test_a_failed_check_holds_back_only_the_checks_that_read_what_it_left_unsure(tmp_path):
    chapter = chapter_of(
        tmp_path,
        "from micrograd import Thing\nimport pytest",  # 0
        "t = Thing(2)\nsix = 6\nassert t.double() == 4\nlost = 1",  # 1: fails at its 3rd line
        "assert six == Thing(6).n",  # 2: bound before the failure: runs
        "assert lost == 1\nmore = Thing(lost)",  # 3: bound after it: waits on 1
        "again = more.n + 1",  # 4: reads what 3 left unsure: waits on 1 too
        "u = Thing(5)\nassert u.n == 5",  # 5: independent: runs
        "assert six == 6",  # 6: about the book, and no counted check reads it: set aside
    )
    assert names_used(chapter)[3] == {"lost": 1, "Thing": 0} and names_used(chapter)[4] == {
        "more": 3
    }
    assert made_from("t = 1\nsix = 6\nassert t\nlost = 1", 3) == {"lost"}
    events = events_of(chapter, tmp_path)
    kinds = [(k, e[k]) for e in events for k in ("passed", "failed", "waits", "aside") if k in e]
    said = ["passed", "failed", "passed", "waits", "waits", "passed", "aside"]  # checks 0 to 6
    assert kinds == list(zip(said, range(7)))
    assert [e["on"] for e in events if "waits" in e] == [1, 1]


def test_wording_passes_and_the_rest_of_the_check_still_runs(tmp_path):
    chapter = chapter_of(
        tmp_path,
        "from micrograd import Thing\nimport pytest",
        # the book's words in pytest.raises and an assert; then a check of behaviour
        'with pytest.raises(TypeError, match="whole number"):\n    Thing("2")\n'
        'assert repr(Thing(2)) == "Thing(n=2)"\nassert Thing(2).n == 2',
        (  # printed: the book's repr, and the book's message
            "print(Thing(1))\ntry:\n    Thing(1.5)\nexcept TypeError as e:\n"
            '    print(f"no: {type(e).__name__}: {e}")',
            "Thing(n=1)\nno: TypeError: Thing needs a whole number\n",
        ),
        # wording first, then behaviour that fails: the check fails, at its behaviour
        'assert repr(Thing(2)) == "Thing(n=2)"\nassert Thing(2).double() == 4',
        ("print(Thing(3).double())", "6\n"),  # behaviour printed: fails
    )
    events = events_of(chapter, tmp_path)
    ends = [(k, e[k]) for e in events for k in ("passed", "wording", "failed") if k in e]
    assert ends == [("passed", 0), ("wording", 1), ("wording", 2), ("failed", 3), ("failed", 4)]
    failed = [e for e in events if "failed" in e]
    behaviour = Chapter.read(chapter).cells[3].line + 1  # its second line: double()
    assert failed[0]["kind"] == "AssertionError" and failed[0]["line"] == behaviour, failed[0]
    assert failed[1]["kind"] == "OutputMismatchError"


def test_a_failing_check_shows_what_it_printed(tmp_path):
    chapter = chapter_of(
        tmp_path, "from micrograd import Thing", 'print("made it this far")\nThing(1).nothing()'
    )
    (failed,) = [e for e in events_of(chapter, tmp_path) if "failed" in e]
    assert failed["printed"] == "made it this far\n"


def reworded(text: str) -> str:
    """The engine with every error message it raises in other words, the types kept, and
    the original micrograd's repr: what a learner writes with the right behaviour."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    spans = [
        (starts[a.lineno - 1] + a.col_offset, starts[a.end_lineno - 1] + a.end_col_offset)
        for node in ast.walk(tree)
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args
        for a in node.exc.args[:1]
    ]
    assert len(spans) > 20
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + '"that will not do (in my own words)"' + text[end:]
    book_repr = 'f"Value(data={self.data:.6g}, grad={self.grad:.6g})"'
    assert text.count(book_repr) == 1
    return text.replace(book_repr, 'f"Value(data={self.data}, grad={self.grad})"')


@pytest.mark.heavy  # learner mode runs chapters: `test`, not `check`
def test_learn_prints_each_row_as_it_comes_and_remembers_the_best(tmp_path, capsys):
    engine = tmp_path / "micrograd.py"
    book = BOOK_ENGINE.read_text(encoding="utf-8")
    swapped = book.replace(
        '(self, other), (other.data, self.data), "*")',
        '(self, other), (self.data, other.data), "*")',
    )
    engine.write_text(book, encoding="utf-8")
    assert main(["learn", str(engine), "--chapter", "2"]) == 0
    whole = capsys.readouterr().out
    (result,) = check(engine, [VALUE_CHAPTER])
    assert whole == progress_table([result], engine.as_posix())  # the same table, streamed
    record = read_record(record_path(engine))
    best = record["chapters"][VALUE_CHAPTER.name]
    assert record["kind"] == KIND and best["passed"] == best["of"] == result.checks
    engine.write_text(swapped, encoding="utf-8")  # a slip: fewer checks pass
    assert main(["learn", str(engine), "--chapter", "2"]) == 1
    out = capsys.readouterr().out
    assert "Your best so far, where it was higher than now:" in out, out
    assert f"  {VALUE_CHAPTER.name}: {result.checks} of {result.checks} on {best['when']}" in out
    assert read_record(record_path(engine))["chapters"][VALUE_CHAPTER.name] == best


def test_a_file_where_the_record_goes_that_is_not_ours_is_left_alone(tmp_path, capsys):
    engine = tmp_path / "micrograd.py"
    shutil.copyfile(BOOK_ENGINE, engine)
    theirs = record_path(engine)
    theirs.write_text(json.dumps({"my": "notes"}), encoding="utf-8")
    assert main(["learn", str(engine), "--chapter", "7"]) == 0
    assert "your best scores are not kept" in capsys.readouterr().out
    assert json.loads(theirs.read_text(encoding="utf-8")) == {"my": "notes"}
