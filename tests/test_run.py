"""How a chapter runs (tools/page/run.py, tools/page/kernel.py): the one model that pytest,
learner mode, the figures and the page's Run buttons share.

A small book whose class is built over three chapters proves that the engine grows across
chapters: each chapter runs with the engine as it stands at its place, and a traceback
points at the chapter and line where the failing code is written.
"""

import textwrap

import pytest

from tests.helpers.book import run_all
from tests.test_notebook import with_the_plugin
from tools import DOCS, ROOT, relative
from tools.learn.child import run_chapter
from tools.learn.skeleton import skeleton
from tools.notebook import Notebook, engine_before
from tools.page.kernel import Chunk
from tools.page.run import Cell
from tools.page.run import Notebook as Runner
from tools.site.weave import weave
from tools.sync import sync
from tools.tangle import tangle

pytest_plugins = ["pytester"]

BOOK = {
    "01-start.md": """
        # Start

        ```python title="micrograd.py"
        class Thing:
            def __init__(self, n):
                self.n = n
        ```

        ```python
        from micrograd import Thing

        print(hasattr(Thing, "double"))
        ```

        ```output
        False
        ```
        """,
    "02-grow.md": """
        # Grow

        ```python
        from micrograd import Thing

        print(hasattr(Thing(1), "double"))
        ```

        ```output
        False
        ```

        ```python title="micrograd.py"
            def double(self):
                return Thing(2 * self.n)

            def halve(self):
                return Thing(self.n / 0)
        ```

        ```python
        print(Thing(3).double().n, Thing.__module__)
        from micrograd import Thing as Imported

        assert Imported is Thing
        ```

        ```output
        6 micrograd
        ```
        """,
    "03-more.md": """
        # More

        ```python title="micrograd.py"
            def triple(self):
                return Thing(3 * self.n)
        ```

        ```python
        print(Thing(1).double().triple().n)
        ```

        ```output
        6
        ```
        """,
}


@pytest.fixture
def book(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in BOOK.items():
        (docs / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return docs


def test_each_chapter_runs_with_the_engine_as_it_stands_at_its_place(book):
    for path in sorted(book.glob("*.md")):
        notebook = run_all(path)
        assert notebook.failure is None, notebook.failure
    three = run_all(book / "03-more.md")
    thing = three.namespace["Thing"]
    assert {"__init__", "double", "halve", "triple"} <= set(vars(thing))
    before = engine_before(book / "03-more.md")
    found = [(c.chapter.rsplit("/", 1)[-1], c.line) for c in before]
    assert found == [("01-start.md", 4), ("02-grow.md", 14)]


def test_a_traceback_points_at_the_chapter_and_line_that_wrote_the_code(book):
    path = book / "03-more.md"
    path.write_text(path.read_text().replace("Thing(1).double().triple().n", "Thing(1).halve()"))
    notebook = run_all(path)
    grow = relative(book / "02-grow.md", ROOT)
    assert notebook.failure == f"{grow}:18: ZeroDivisionError: division by zero"
    report = notebook.outcomes[1].report
    assert f'File "{grow}", line 18, in halve' in report
    assert "return Thing(self.n / 0)" in report  # quoted from chapter 2
    assert "kernel.py" not in report


def test_a_syntax_error_in_an_earlier_chapters_chunk_is_told_at_its_line(book):
    path = book / "01-start.md"
    path.write_text(path.read_text().replace("self.n = n", "self.n = = n"))
    notebook = run_all(book / "03-more.md")
    start = relative(book / "01-start.md", ROOT)
    assert notebook.failure.startswith(f"{start}:6: SyntaxError"), notebook.failure


def test_the_chapters_pass_under_pytest_and_the_engine_is_not_the_repositorys(book, pytester):
    with_the_plugin(pytester)
    for path in book.glob("*.md"):
        (pytester.path / path.name).write_text(path.read_text(), encoding="utf-8")
    result = pytester.runpytest_subprocess("--markdown-docs", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=7)


def cells(*codes, engine=()):
    return [Cell(line=10 * (i + 1), code=code, engine=i in engine) for i, code in enumerate(codes)]


def test_rerunning_an_engine_fence_rebuilds_the_class_in_book_order():
    pieces = cells(
        "class Thing:\n    def __init__(self, n):\n        self.n = n\n",
        "x = Thing(1)\n",
        "    def grow(self):\n        return Thing(self.n + 1)\n",
        "y = Thing(1).grow()\n",
        engine={0, 2},
    )
    runner = Runner("docs/ch.md", pieces)
    runner.run(3)
    for edited in (None, pieces[0].code.replace("self.n = n", "self.n = 10 * n")):
        events = []
        codes = {0: edited} if edited else None
        assert runner.run(0, codes, tell=events.append).state == "ran"
        thing = runner.namespace["Thing"]
        assert hasattr(thing, "grow"), "the chunks after it stay in the class, in book order"
        assert thing(2).grow().n == (210 if edited else 3)  # 10 * (10 * 2 + 1)
        stale = [e["index"] for e in events if e["kind"] == "stale"]
        assert stale == ([1, 2, 3] if edited is None else [])  # marked once
    failing = pieces[2].code.replace("self.n + 1", "self.n / 0")
    runner.run(2, {2: failing})
    outcome = runner.run(3)
    assert outcome.state == "failed"
    assert outcome.report.startswith("docs/ch.md:31: ZeroDivisionError"), outcome.report
    assert "run.py" not in outcome.report and "kernel.py" not in outcome.report


def test_a_report_names_the_chapter_line_and_a_syntax_error_its_own():
    runner = Runner("docs/ch.md", cells("x = 1\nif x\n"))
    outcome = runner.run(0)
    assert outcome.report.startswith("docs/ch.md:11: SyntaxError: expected ':'"), outcome.report


def test_what_a_fence_prints_is_told_as_it_is_printed():
    code = "for n in range(3):\n    print(n)\nassert False, 'after the prints'"
    events = []
    outcome = Runner("docs/ch.md", cells(code)).run(0, tell=events.append)
    assert "".join(e["text"] for e in events if e["kind"] == "print") == "0\n1\n2\n"
    assert [e["status"] for e in events if e["kind"] == "running"] == ["running…"]  # one alone
    assert outcome.report.startswith("docs/ch.md:12: AssertionError: after the prints")


def test_run_all_goes_on_past_other_output_and_stops_at_an_exception():
    pieces = [
        Cell(10, "print(1)\n", output="2\n"),
        Cell(20, "print(3)\n", output="3\n"),
        Cell(30, "x = 1\n1 / 0\n"),  # fails at line 31, in the fence opened at 29
        Cell(40, "print(4)\n", output="4\n"),
    ]
    events = []
    runner = Runner("docs/ch.md", pieces)
    runner.run(3, all=True, tell=events.append)
    states = {i: o.state for i, o in runner.outcomes.items()}
    assert states == {0: "differs", 1: "ran", 2: "failed", 3: "not-run"}
    assert [e for e in events if e["kind"] in ("waiting", "not-run")] == [
        {"kind": "waiting", "index": 3, "status": "waiting: the fences above it run first"},
        {"kind": "not-run", "index": 3, "status": "not run: the fence at line 29 failed first"},
    ]
    runner = Runner("docs/ch.md", pieces)
    assert runner.run(3).state == "not-run"  # a Run of one fence stops at the difference
    assert runner.outcomes[0].state == "failed"


def test_a_reader_edit_may_print_anything_the_books_code_may_not():
    pieces = [Cell(10, "print(1)\n", output="1\n")]
    runner = Runner("docs/ch.md", pieces)
    assert runner.run(0, {0: "print(2)\n"}).state == "ran"
    assert runner.run(0).state == "ran"
    state = lambda code: Runner("docs/ch.md", [Cell(10, code, output="1\n")]).run(0).state  # noqa: E731
    assert state("print(2)\n") == "failed" and state("print(1, end='')\n") == "ran"
    assert state("print('1 ')\n") == "failed"  # compared exactly, but for one final newline


def test_figures_are_drawn_from_the_readers_code_once_it_ran_and_the_books_after():
    pieces = [Cell(10, "x = 1\n"), Cell(20, "y = 2\n")]
    runner = Runner("docs/ch.md", pieces, figures=[("f", 15)])

    def figures(*args, **kwargs):
        events = []
        runner.run(*args, **kwargs, tell=events.append)
        return [(e["name"], e["live"]) for e in events if e["kind"] == "figure"]

    assert figures(0) == [("f", False)]
    assert figures(0, {0: "x = 3\n"}) == [("f", True)]
    assert figures(0) == [("f", False)]


def test_the_engine_before_a_chapter_is_a_module_that_import_gives_only_while_fences_run():
    import sys

    chunk = Chunk("docs/a.md", 3, "def f():\n    return 1\n")
    runner = Runner("docs/b.md", cells("from micrograd import f\nv = f()\n"), before=[chunk])
    before = sys.modules.get("micrograd")
    runner.run(0)
    assert runner.namespace["v"] == 1
    assert sys.modules.get("micrograd") is before
    assert runner.namespace["f"].__code__.co_filename == "docs/a.md"
    assert runner.namespace["f"].__code__.co_firstlineno == 3


def learn(chapter, engine) -> list[dict]:
    """The events of learner mode's run of ``chapter`` against ``engine``."""
    events = []
    run_chapter(chapter, engine, lambda **event: events.append(event))
    return events


def test_learner_mode_runs_each_chapter_against_the_whole_engine_and_names_the_line(book):
    engine = book.parent / "micrograd.py"
    engine.write_text(tangle(book), encoding="utf-8")  # the tangler's join, as a learner's file
    for path in book.glob("0[12]-*.md"):  # a learner's engine is whole in every chapter
        path.write_text(path.read_text().replace("```output\nFalse\n", "```output\nTrue\n"))
    for path in sorted(book.glob("*.md")):
        events = learn(path, engine)
        assert [e for e in events if "failed" in e] == [], (path.name, events)
    engine.write_text(tangle(book).replace("2 * self.n", "2 * self.m"), encoding="utf-8")
    for name, line in (("02-grow.md", 22), ("03-more.md", 9)):
        [failed] = [e for e in learn(book / name, engine) if "failed" in e]
        assert (failed["kind"], failed["line"]) == ("AttributeError", line), failed
        assert failed["function"] == "double"  # the learner's function to fix


def test_a_failure_in_a_class_body_spread_over_chunks_is_told_at_its_chapter_line():
    first = Chunk("docs/a.md", 5, "class Thing:\n    size = 1\n")
    pieces = cells("    area = size * side\n", "x = 1\n", engine={0})
    outcome = Runner("docs/b.md", pieces, before=[first]).run(1)
    assert outcome.state == "not-run"
    failed = Runner("docs/b.md", pieces, before=[first])
    report = failed.run(0).report
    assert report.startswith("docs/b.md:10: NameError"), report  # the chunk's own line


def test_tangle_sync_weave_and_skeleton_follow_a_class_built_over_three_chapters(book):
    engine = book.parent / "micrograd.py"
    text = tangle(book, root=book.parent)
    markers = [line.strip() for line in text.splitlines() if line.strip().startswith("# --- ")]
    places = ("01-start.md#start", "02-grow.md#grow", "03-more.md#more")
    assert markers == [f"# --- docs/{place} ---" for place in places]
    woven = weave(book, root=book.parent)
    names = [(d.name, woven.tangled.chunks[d.chunk].chapter) for d in woven.definitions]
    assert names == [
        ("Thing", "docs/01-start.md"), ("Thing.__init__", "docs/01-start.md"),
        ("Thing.double", "docs/02-grow.md"), ("Thing.halve", "docs/02-grow.md"),
        ("Thing.triple", "docs/03-more.md"),
    ]  # fmt: skip
    stubs = skeleton(book)
    order = [stubs.index(f"def {name}(") for name in ("__init__", "double", "halve", "triple")]
    assert order == sorted(order)  # the skeleton in book order
    assert "docs/03-more.md" in stubs[order[3] :]  # triple's stub names its chapter
    engine.write_text(text.replace("Thing(3 * self.n)", "Thing(4 * self.n)"), encoding="utf-8")
    sync(book, engine, root=book.parent)  # an edit made in micrograd.py goes to chapter 3
    assert "Thing(4 * self.n)" in (book / "03-more.md").read_text(encoding="utf-8")
    assert "Thing(3 * self.n)" not in (book / "03-more.md").read_text(encoding="utf-8")


def methods(runner) -> list[str]:
    value = runner.namespace["Value"]
    return sorted(name for name, member in vars(value).items() if callable(member))


def test_rerunning_each_engine_fence_of_chapter_2_edited_or_not_keeps_the_engine_whole():
    chapter = DOCS / "02-the-value-atom.md"
    runner = Notebook(chapter).runner
    last = max(i for i, cell in enumerate(runner.cells) if not cell.blocked)
    runner.run(last)
    whole = methods(runner)
    assert {"__add__", "__mul__", "__rmul__", "topo", "backward"} <= set(whole)
    for index, cell in enumerate(runner.cells):
        if not cell.engine:
            continue
        indent = cell.code[: len(cell.code) - len(cell.code.lstrip(" "))]  # a class body's
        for code in (cell.code, f"{indent}# edited\n{cell.code}"):
            assert runner.run(index, {index: code}).state == "ran", runner.outcomes[index].report
            assert methods(runner) == whole, (cell.line, code[:40])
            used = runner.run(last, {last: "Value(2.0) + 1\n"})
            assert used.state == "ran", used.report
        runner.run(index)  # the book's code back
    first = next(i for i, cell in enumerate(runner.cells) if cell.engine)
    planted = runner.cells[first].code.replace("self.grad = 0.0", "self.grad = 0.0 / 0", 1)
    runner.run(first, {first: "# edited\n" + planted})
    outcome = runner.run(last, {last: "Value(2.0)\n"})
    offset = next(i for i, text in enumerate(planted.splitlines()) if "0.0 / 0" in text)
    line = runner.cells[first].line + 1 + offset
    assert outcome.report.startswith(f"docs/02-the-value-atom.md:{line}: ZeroDivisionError")


def test_a_failing_engine_fence_then_another_engine_fence_leaves_the_engine_as_it_was():
    pieces = cells(
        "class Thing:\n    def __init__(self, n):\n        self.n = n\n",
        "    def grow(self):\n        return Thing(self.n + 1)\n",
        "    def shrink(self):\n        return Thing(self.n - 1)\n",
        "x = Thing(5).shrink().n\n",
        engine={0, 1, 2},
    )
    runner = Runner("docs/ch.md", pieces)
    assert runner.run(0).state == "ran"
    broken = "    def grow(self):\n        return Thing(self.n + 1)\n    1 / 0\n"
    assert runner.run(1, {1: broken}).state == "failed"
    assert not hasattr(runner.namespace["Thing"], "grow"), "the failed chunk is not in the engine"
    outcome = runner.run(2)
    assert outcome.state == "ran", outcome.report
    thing = runner.namespace["Thing"]
    assert hasattr(thing, "shrink") and not hasattr(thing, "grow")
    assert thing is runner.kernel.module.Thing, "the namespace's class is the engine's"
    assert runner.run(3).state == "ran" and runner.namespace["x"] == 4
    assert runner.run(1).state == "ran", "the book's chunk goes back in its place"
    assert {"grow", "shrink"} <= set(vars(runner.namespace["Thing"]))
