"""Learner mode (tools/learn/): the skeleton engine, and the book's checks run against it.

The runs are made once each and shared: the book's own engine copied to another folder
(every check passes), a fresh skeleton (it scores 0: chapter 2 fails first, naming
Value.__init__; and run through every check without stopping, exactly the checks the
score counts fail), and the skeleton filled in up to __add__ and __mul__ with the book's
own code (more checks pass, and the table shows it). Planted bugs: tests/test_learner_bugs.py.
"""

import ast
import contextlib
import hashlib
import os
import shutil
import sys
import textwrap
import types
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.helpers import run_text
from tests.helpers.book import run_all
from tools import ROOT
from tools.chapter import Chapter, chapter_number, chapters
from tools.learn.best import record_path
from tools.learn.child import DEFAULT_TIMEOUT, check, run_in_child
from tools.learn.counted import engine_checks, engine_names, needs_optional
from tools.learn.hints import book_hints, section_linked
from tools.learn.places import book_definitions, chapters_named, heading_above
from tools.learn.skeleton import DEFAULT_PATH, SkeletonExistsError, write_skeleton
from tools.learn.table import ChapterResult, Failure, chapter_result, progress_table
from tools.learner import main
from tools.notebook import Notebook
from tools.tangle import defined

BOOK_ENGINE = ROOT / "micrograd.py"
VALUE_CHAPTER = ROOT / "docs" / "02-the-value-atom.md"
# Chapter 2 builds these, in this order, before it multiplies: a learner following the
# table writes them first (its first check needs __init__, __repr__ and wrap).
BEFORE_ADD_MUL = ["Value.__init__", "Value.__repr__", "Value.wrap", "Value._backward"]


def outcomes(chapter: Path, engine: Path, timeout: float = DEFAULT_TIMEOUT) -> dict[int, bool]:
    """Every check of the chapter run against ``engine``, none stopping the chapter: cell
    index -> passed. (The experiment that ``engine_checks`` agrees with, in the tests.)"""
    events, _ = run_in_child(chapter.resolve(), engine.resolve(), timeout, every=True)
    cells = Chapter.read(chapter).cells
    ran = {e[k]: k != "failed" for e in events for k in ("passed", "wording", "failed") if k in e}
    return {i: passed for i, passed in ran.items() if not cells[i].fence.is_engine}


def blocked_here(chapter: Path) -> set[int]:
    """The cells this Python cannot run (an optional module such as torch not installed)."""
    return {i for i, cell in enumerate(Notebook(chapter).cells) if cell.blocked}


def functions(text: str) -> dict[str, ast.FunctionDef]:
    return {name: node for name, node in defined(text) if isinstance(node, ast.FunctionDef)}


def fill_in(skeleton: str, names: list[str]) -> str:
    """The skeleton with the functions ``names`` replaced by the book's own code."""
    book_text = BOOK_ENGINE.read_text(encoding="utf-8")
    book, mine = functions(book_text), functions(skeleton)
    lines, book_lines = skeleton.splitlines(keepends=True), book_text.splitlines(keepends=True)
    for name in sorted(names, key=lambda n: -mine[n].lineno):
        ours, theirs = mine[name], book[name]
        first = lambda node: min([node.lineno] + [d.lineno for d in node.decorator_list])  # noqa: E731
        lines[first(ours) - 1 : ours.end_lineno] = book_lines[first(theirs) - 1 : theirs.end_lineno]
    return "".join(lines)


def book_state() -> dict[str, str]:
    """A digest of every file the learner run must leave alone."""
    files = [BOOK_ENGINE, *chapters(ROOT / "docs")]
    return {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in files}


def row(table: str, chapter: Path) -> str:
    return next(line for line in table.splitlines() if line.startswith(chapter.name))


@pytest.fixture(scope="module")
def skeleton_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("learner") / "my-engine" / "micrograd.py"
    write_skeleton(path)
    return path


@pytest.fixture(scope="module")
def book_run(tmp_path_factory):
    """The book's own engine, copied to another folder, against every chapter."""
    copy = tmp_path_factory.mktemp("copy") / "micrograd.py"
    shutil.copyfile(BOOK_ENGINE, copy)
    before = book_state()
    results = check(copy)
    return results, progress_table(results, "copy/micrograd.py"), before, copy


@pytest.fixture(scope="module")
def skeleton_run(skeleton_file):
    results = check(skeleton_file)
    return results, progress_table(results, "my-engine/micrograd.py")


@pytest.fixture(scope="module")
def add_mul_runs(skeleton_file, tmp_path_factory):
    """Chapter 2 against the skeleton, then filled in up to just before __add__ and __mul__,
    and then with them too."""
    skeleton = skeleton_file.read_text(encoding="utf-8")
    runs = []
    for names in ([], BEFORE_ADD_MUL, [*BEFORE_ADD_MUL, "Value.__add__", "Value.__mul__"]):
        engine = tmp_path_factory.mktemp("filled") / "micrograd.py"
        engine.write_text(fill_in(skeleton, names), encoding="utf-8")
        (result,) = check(engine, [VALUE_CHAPTER])
        runs.append((result, progress_table([result], "micrograd.py")))
    return runs


# --- the three runs of the issue ------------------------------------------------------------


@pytest.mark.heavy  # the whole book through learner mode, chapter by chapter
def test_the_books_own_engine_copied_elsewhere_passes_every_check(book_run):
    results, table, before, copy = book_run
    failing = [f"{r.chapter.name}: {r.failure}" for r in results if r.failure]
    assert not failing, table
    assert [r.chapter for r in results] == chapters_named([])
    every_check = [
        c for r in results for c in Chapter.read(r.chapter).cells if not c.fence.is_engine
    ]
    counted = sum(r.checks for r in results)
    assert sum(r.passed for r in results) == counted > 100  # every counted check passes
    lacking = sum(len(r.lacking) for r in results)  # torch's fences, where it is not installed
    assert counted + sum(r.book_checks for r in results) + lacking == len(every_check)
    assert lacking == 0  # the fences that need torch are about the book, not the engine
    assert table.endswith("Every check passes against copy/micrograd.py.\n"), table
    assert book_state() == before, "the learner run changed the book's engine or chapters"
    assert list(copy.parent.iterdir()) == [copy], "the run wrote into the learner's folder"


@pytest.mark.heavy  # the whole book through learner mode, chapter by chapter
def test_a_fresh_skeleton_fails_chapter_2_first_naming_the_first_method(skeleton_run):
    results, table = skeleton_run
    first = next(r for r in results if r.failure)
    assert first.chapter == VALUE_CHAPTER, table
    assert first.passed == 0 and first.failed + first.not_run == first.checks
    assert first.failed >= 1 and first.not_run >= 1  # the checks that use x wait on it
    assert heading_above(VALUE_CHAPTER, first.failure.line) == "Five fields"
    assert first.failure.message.startswith(
        "NotImplementedError: Value.__init__ is yours to write: see docs/02-the-value-atom.md, "
        "section 'Five fields' (page '2. The Value atom')"
    )
    assert first.failure.raised_at.endswith("in __init__")
    assert row(table, VALUE_CHAPTER).split()[1:5] == ["0", "of", str(first.checks), "line"]
    read_next = table[table.index("Read next:") :].splitlines()
    assert read_next[0] == (
        "Read next: docs/02-the-value-atom.md, section 'Five fields' (page '2. The Value atom'), "
        "which builds Value.__init__, the function to fix."
    )
    assert read_next[1].endswith("x = Value(3)"), read_next
    waiting = [line for line, on in first.waiting if on == first.failure.line]
    assert f"Not run until it passes: {len(waiting)} checks wait on it (lines " in table


@pytest.mark.heavy  # the whole book through learner mode, chapter by chapter
def test_an_untouched_skeleton_scores_0_and_the_totals_say_what_they_count(skeleton_run):
    results, table = skeleton_run
    assert [r.passed for r in results] == [0] * len(results), table
    counted, about_book = sum(r.checks for r in results), sum(r.book_checks for r in results)
    lines = table.splitlines()
    assert lines[0].split()[:5] == ["chapter", "checks", "of", "your", "engine"], table
    total = next(line for line in lines if line.startswith("all "))
    assert total.split()[1:4] == ["0", "of", str(counted)], table
    assert f"Not counted: {about_book} checks about the book, not your engine." in lines
    assert about_book > 0 and counted > 100
    chapter_1 = ROOT / "docs" / "01-what-autograd-records.md"  # it never uses the engine
    assert row(table, chapter_1).split()[1:] == ["none"], table


@pytest.mark.heavy  # the whole book through learner mode, chapter by chapter
def test_the_rule_counts_exactly_the_checks_an_engine_that_does_nothing_fails(skeleton_file):
    """engine_checks decides by names; the experiment runs the skeleton, where every
    function raises, through every check of every chapter without stopping at failures.
    A counted check that passed would flatter; an uncounted one that failed would be a
    check of the engine left out. The two agree on every check of the book."""
    engine = engine_names()
    assert {"Value", "MLP", "dot", "softmax_ce", "graph_dot", "USED_GRAPH"} <= engine
    assert not engine & {"math", "random", "numbers"}  # imported, not defined
    every = chapters_named([])
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        runs = list(pool.map(lambda c: outcomes(c, skeleton_file), every))
    disagree = []
    for chapter, run in zip(every, runs):
        cells = Chapter.read(chapter).cells
        counted = engine_checks(chapter, engine)
        blocked = blocked_here(chapter)
        checks = [i for i, c in enumerate(cells) if not c.fence.is_engine and i not in blocked]
        assert sorted(run) == checks, chapter.name  # every check ran
        disagree += [
            f"{chapter.name}:{cells[i].opening}: {'counted' if i in counted else 'not counted'}"
            f" but {'passes' if run[i] else 'fails'} against the skeleton"
            for i in checks
            if run[i] == (i in counted)
        ]
    assert not disagree, "\n".join(disagree)


def test_the_rule_follows_names_through_a_chapter(tmp_path):
    chapter = tmp_path / "01-x.md"
    fences = [
        "import math\nfrom micrograd import Value as V",  # 0: imports run nothing
        "def make(a):\n    return V(a)",  # 1: defines, runs nothing
        "numbers = [1.0, 2.0]\nfor a in numbers:\n    print(math.sqrt(a))",  # 2: the book's
        "made = []\nmade.append(make(3))",  # 3: runs the engine, and changes `made`
        "assert len(made) == 1",  # 4: reads what the engine made
        "for made in range(3):\n    pass",  # 5: `made` is the book's again
        "assert made == 2",  # 6
        "class V:\n    pass\nx = V()",  # 7: a chapter's own V
        "print(1 +)",  # 8: does not parse: counted, it fails whatever the engine
        "y = make(2)\nassert math.isclose(y.data, 2.0)",  # 9: a module's function is called
        "print(math.sqrt(4.0))",  # 10: and `math` is still the standard library's
    ]
    chapter.write_text("".join(f"```python\n{code}\n```\n\n" for code in fences))
    assert sorted(engine_checks(chapter, frozenset({"Value"}))) == [3, 4, 8, 9]


def test_each_statement_is_read_alone_even_beside_another_on_its_line(tmp_path):
    chapter = tmp_path / "01-x.md"
    chapter.write_text('```python\ns = "é—ü"; n = len(s)\nif n:\n    m = n\n```\n')
    [cell] = Chapter.read(chapter).cells
    assert [set(step.bound) for step in cell.fence.steps] == [{"s"}, {"n"}, {"m"}]
    assert [set(step.loaded) for step in cell.fence.steps] == [set(), {"len", "s"}, {"n"}]


def test_fences_importing_torch_run_only_if_a_counted_check_needs_them(tmp_path):
    """No check the score counts needs the book's PyTorch fences, so learner mode leaves
    them out (importing torch cost each such chapter's process more than the rest of it);
    a counted check reading a name only such a fence binds brings them back."""
    with_torch = [c for c in chapters_named([]) if "import torch" in c.read_text("utf-8")]
    assert len(with_torch) >= 4 and not any(needs_optional(c) for c in with_torch)
    chapter = ROOT / "docs" / "05-a-scalar-neuron.md"
    events, stopped = run_in_child(chapter, BOOK_ENGINE, DEFAULT_TIMEOUT)
    left_out = [e["aside"] for e in events if "aside" in e]  # about the book: not run
    assert stopped is None and not [e for e in events if "failed" in e], events
    assert not [e for e in events if e.get("start") in left_out], events
    assert any("import torch" in Chapter.read(chapter).cells[i].fence.code for i in left_out)

    needed = tmp_path / "01-needed.md"
    fences = ["from micrograd import Value", "import torch\nt = 2.0", "assert Value(t).data == t"]
    needed.write_text("".join(f"```python\n{code}\n```\n\n" for code in fences))
    assert needs_optional(needed)
    cheaper = tmp_path / "01-cheaper.md"  # learner mode's parent tells its child to run it
    cheaper.write_text(needed.read_text().replace("import torch", "import hypothesis"))
    (result,) = check(BOOK_ENGINE, [cheaper])
    assert result.passed == result.checks == 1 and not result.lacking, result
    fences[2] = "assert Value(2.0).data == 2.0"
    apart = tmp_path / "01-apart.md"
    apart.write_text("".join(f"```python\n{code}\n```\n\n" for code in fences))
    assert not needs_optional(apart)


def test_each_worked_example_a_hint_links_is_a_section_that_redoes_its_function():
    """The hint's link is where Read next sends a learner to see the mistake caught: the
    section it names must hold code that makes the function again."""
    linked = {name: section_linked(said) for name, said in book_hints().items()}
    linked = {name: found for name, found in linked.items() if found is not None}
    assert {"Value._backward", "Value.backward", "Value.tanh", "graph_dot"} <= set(linked)
    for name, (path, line) in linked.items():
        assert name in book_definitions(), name
        chapter = Chapter.read(path)
        end = min([h.line for h in chapter.headings if h.line > line], default=len(chapter.lines))
        code = "".join(f.code for f in chapter.fences if line < f.line < end)
        method = name.split(".")[-1].strip("_")
        assert method in code, (name, path.name, line)


def test_a_long_message_loses_its_middle_never_its_last_line():
    chapter = VALUE_CHAPTER
    check_line = Chapter.read(chapter).cells[3].line
    message = "\n".join(["OutputMismatchError: first"] + [f"-line {i}" for i in range(80)])
    message += "\nYour engine and the book's disagree here: the lines with - are the book's."
    failure = Failure(check_line, message, kind="OutputMismatchError")
    table = progress_table([ChapterResult(chapter, 4, 1, failure, 2)], "mine.py")
    assert table.rstrip("\n").endswith("the lines with - are the book's."), table
    assert "OutputMismatchError: first" in table and "lines not shown) ..." in table
    assert len(table.splitlines()) < 50


def test_read_next_for_chapter_3_is_the_chapter_2_section_the_error_names(skeleton_file, tmp_path):
    """Everything written but topo: chapter 3's checks fail in chapter 3, but what to read is
    the section of chapter 2 that builds topo, as the error itself says."""
    skeleton = skeleton_file.read_text(encoding="utf-8")
    engine = tmp_path / "micrograd.py"
    engine.write_text(fill_in(skeleton, [n for n in functions(skeleton) if n != "Value.topo"]))
    (result,) = check(engine, chapters_named(["3"]))
    table = progress_table([result], "micrograd.py")
    where = "docs/02-the-value-atom.md, section 'The order of the backward pass'"
    assert f"Value.topo is yours to write: see {where}" in result.failure.message, table
    read_next = table[table.index("Read next:") :].splitlines()[0]
    assert read_next.startswith(f"Read next: {where} (page '2. The Value atom')"), table
    assert "03-backward" not in read_next


@pytest.mark.heavy  # learner mode runs chapters: `test`, not `check`
def test_filling_in_add_and_mul_makes_more_checks_pass(add_mul_runs):
    (fresh, _), (before, before_table), (after, after_table) = add_mul_runs
    assert fresh.passed < before.passed < after.passed, (fresh, before, after)
    assert "Value.__add__ is yours to write" in before.failure.message  # what to write next
    assert before.failure.raised_at.endswith(", in __add__"), before.failure
    # add and mul are done: the next check runs the neuron's backward(), a stub still
    assert "Value.backward is yours to write" in after.failure.message
    assert f" {before.passed} of {before.checks}  " in row(before_table, VALUE_CHAPTER)
    assert f" {after.passed} of {after.checks}  " in row(after_table, VALUE_CHAPTER)
    assert "section 'backward()'" in row(after_table, VALUE_CHAPTER)  # the first to call it


# --- the skeleton ---------------------------------------------------------------------------


def test_skeleton_keeps_signatures_docstrings_and_class_level_names(skeleton_file):
    book_text = BOOK_ENGINE.read_text(encoding="utf-8")
    skeleton = skeleton_file.read_text(encoding="utf-8")
    book, mine = functions(book_text), functions(skeleton)
    assert list(mine) == list(book)
    head = lambda f: (ast.dump(f.args), ast.get_docstring(f), [*map(ast.dump, f.decorator_list)])  # noqa: E731
    for name, theirs in book.items():
        assert head(mine[name]) == head(theirs), name  # arguments, docstring, decorators

    def kept(tree: ast.Module) -> list[str]:
        """Every statement that is not a function: imports, constants, class-level names."""
        found = []
        for node in tree.body:
            body = node.body if isinstance(node, ast.ClassDef) else [node]
            found += [ast.dump(s) for s in body if not isinstance(s, ast.FunctionDef)]
        return found

    assert kept(ast.parse(skeleton)) == kept(ast.parse(book_text))
    assert "    __radd__ = __add__  # 2 + x is x + 2\n" in skeleton
    assert "GENERATED" not in skeleton and "# --- docs/" not in skeleton  # not the tangler's


def test_each_stub_names_the_section_whose_fence_builds_it(skeleton_file):
    messages = {}
    for name, node in functions(skeleton_file.read_text(encoding="utf-8")).items():
        body = [s for s in node.body if not isinstance(s, ast.Expr)]  # without the docstring
        assert len(body) == 1 and isinstance(body[0], ast.Raise), name
        call = body[0].exc
        assert isinstance(call, ast.Call) and call.func.id == "NotImplementedError", name
        message = messages[name] = call.args[0].value
        assert message.startswith(f"{name} is yours to write: see docs/"), message
        chapter = ROOT / message.split("see ")[1].split(",")[0].split(" (")[0]
        section = message.split("section '")[1].split("'")[0] if "section '" in message else ""
        fences = [f for f in Chapter.read(chapter).fences if f.is_engine]
        under = [f for f in fences if not section or heading_above(chapter, f.line) == section]
        method = name.split(".")[-1]
        assert any(f"def {method}(" in f.code for f in under), (name, chapter.name, section)
    assert messages["Value.__add__"].endswith(
        "see docs/02-the-value-atom.md, section 'Addition and multiplication' "
        "(page '2. The Value atom')"
    )
    assert messages["graph_dot"].endswith(
        "see docs/08-drawing-the-graph.md (page '8. Drawing the graph')"
    )


def test_skeleton_imports_runs_as_a_module_and_is_ruff_clean(skeleton_file):
    folder = skeleton_file.parent
    for command in (["-c", "import micrograd"], ["-m", "micrograd"]):
        done = run_text([sys.executable, *command], cwd=folder, check=False)
        assert done.returncode == 0, done.stderr
    config = ["--config", str(ROOT / "pyproject.toml"), "--no-cache", str(skeleton_file)]
    for ruff in (["check"], ["format", "--check"]):
        done = run_text([sys.executable, "-m", "ruff", *ruff, *config])
        assert done.returncode == 0, done.stdout + done.stderr


def test_skeleton_never_overwrites_a_file_unless_forced(tmp_path, capsys):
    path = tmp_path / "micrograd.py"
    path.write_text("# my work\n", encoding="utf-8")
    with pytest.raises(SkeletonExistsError, match="--force"):
        write_skeleton(path)
    assert main(["skeleton", str(path)]) == 1
    assert "exists: not overwritten" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == "# my work\n"
    assert main(["skeleton", str(tmp_path), "--force"]) == 0  # a folder: its micrograd.py
    assert "raise NotImplementedError(" in path.read_text(encoding="utf-8")


def test_heading_above_is_the_nearest_heading_over_a_line(tmp_path):
    chapter = tmp_path / "01-x.md"
    chapter.write_text("intro\n\n# Title\n\ntext\n\n## Part\n\n```python\npass\n```\n")
    assert [heading_above(chapter, line) for line in (1, 3, 5, 10)] == ["", "", "Title", "Part"]


# --- running the checks ---------------------------------------------------------------------


def test_the_learner_engine_replaces_the_engine_fences_and_is_unloaded_after(tmp_path, monkeypatch):
    chapter = tmp_path / "01-thing.md"
    chapter.write_text(
        textwrap.dedent(
            """\
            ```python title="micrograd.py"
            raise AssertionError("the book's engine fence ran")
            ```

            ```python
            import micrograd

            assert Thing().whose == "mine" and micrograd.Thing is Thing
            ```
            """
        )
    )
    engine = tmp_path / "mine" / "micrograd.py"
    engine.parent.mkdir()
    engine.write_text('class Thing:\n    whose = "mine"\n')
    for before in (None, types.ModuleType("micrograd")):  # none imported yet, or the book's
        if before is None:
            monkeypatch.delitem(sys.modules, "micrograd", raising=False)
        else:
            monkeypatch.setitem(sys.modules, "micrograd", before)
        book = run_all(chapter, engine=engine)
        assert book.failure is None
        assert sys.modules.get("micrograd") is before
    assert not (engine.parent / "__pycache__").exists()


# An endless loop that sleeps: the timeout ends it as it ends one that spins (the child is
# killed either way), without the suite spending the limit's seconds of CPU on it.
ENDLESS = "        while True:\n            __import__('time').sleep(0.01)\n"


@pytest.mark.heavy  # learner mode runs a chapter to its timeout: `test`, not `check`
def test_an_endless_loop_costs_its_chapter_a_timeout(tmp_path):
    engine = tmp_path / "micrograd.py"
    text = BOOK_ENGINE.read_text(encoding="utf-8")
    engine.write_text(text.replace("        self.data = data\n", ENDLESS))
    (result,) = check(engine, [VALUE_CHAPTER], timeout=2)
    first_check = next(c for c in Chapter.read(VALUE_CHAPTER).cells if not c.fence.is_engine)
    assert result.passed == 0 and result.failure.line == first_check.opening
    assert result.failure.message.startswith("timed out after 2 s"), result.failure


def test_a_crash_and_an_engine_that_does_not_import_are_reported(tmp_path):
    crash = tmp_path / "crash" / "micrograd.py"
    crash.parent.mkdir()
    text = BOOK_ENGINE.read_text(encoding="utf-8")
    crash.write_text(
        text.replace("        self.data = data\n", "        __import__('os')._exit(3)\n")
    )
    broken = tmp_path / "broken" / "micrograd.py"
    broken.parent.mkdir()
    broken.write_text("class Value:\n    def __init__(self data):\n        pass\n")
    (crashed,) = check(crash, [VALUE_CHAPTER])
    assert "stopped (exit code 3)" in crashed.failure.message
    cells = Chapter.read(VALUE_CHAPTER).cells  # every check ended, then the process failed
    ran = [{"passed": i} for i, cell in enumerate(cells) if not cell.fence.is_engine]
    late = chapter_result(VALUE_CHAPTER.resolve(), ran, "stopped (exit code 9)").failure
    assert (late.line, late.message) == (cells[ran[-1]["passed"]].opening, "stopped (exit code 9)")
    (unimportable,) = check(broken, [VALUE_CHAPTER])
    table = progress_table([unimportable], "broken/micrograd.py")
    assert table.startswith("No check could run: "), table
    assert "does not import: SyntaxError" in table and "line 2" in table
    assert table.endswith(f"\n{VALUE_CHAPTER.name}  not run\n"), table  # every chapter


def test_bad_input_gets_one_line_saying_what_to_type_instead(tmp_path, capsys):
    not_python = tmp_path / "notes.txt"
    not_python.write_text("mine\n")
    cases = {  # the arguments: what the line must say
        ("learn", str(tmp_path / "nothing.py")): "no such file (write one with `python3 tools/",
        ("skeleton", "--bogus"): "unrecognized arguments: --bogus; see python3 tools/dev.py "
        "skeleton --help",  # a command dev.py has
        ("learn", "--bogus"): "see python3 tools/dev.py learn --help",
        ("learn", str(not_python)): "is not a Python file: give your engine's .py file",
        ("skeleton", str(not_python)): "is not a Python file",
        ("learn", str(BOOK_ENGINE), "--chapter", "99"): "no chapter '99' with checks in docs: ",
        ("learn", str(BOOK_ENGINE), "--timeout", "0"): "'0' is not a time: give the seconds",
        ("learn", str(BOOK_ENGINE), "--timeout", "soon"): "'soon' is not a time",
        ("learn", str(BOOK_ENGINE), "--chapter", "1"): "chapter 1 has no checks of your engine",
    }
    for argv, said in cases.items():
        with contextlib.suppress(SystemExit):  # argparse's errors exit, with the same code
            assert main(list(argv)) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("learner: ") and said in err, (argv, err)
    assert not_python.read_text() == "mine\n"
    assert chapters_named(["2", "02"]) == [VALUE_CHAPTER]


def test_learn_without_a_path_takes_the_one_skeleton_writes(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["learn"]) == 2
    assert capsys.readouterr().err == (
        f"learner: {DEFAULT_PATH.as_posix()}: no such file "
        "(write one with `python3 tools/dev.py skeleton`)\n"
    )
    assert main(["skeleton"]) == 0 and (tmp_path / DEFAULT_PATH).exists()
    capsys.readouterr()
    assert main(["learn", "--chapter", "2"]) == 1  # the skeleton's, checked: all to write
    assert DEFAULT_PATH.as_posix() in capsys.readouterr().out


def test_chapters_without_checks_of_the_engine_say_where_to_start(capsys):
    first = next(c for c in chapters_named([]) if engine_checks(c, engine_names()))
    nothing = [c for c in chapters_named([]) if not engine_checks(c, engine_names())]
    assert nothing and first == VALUE_CHAPTER  # chapter 1, and this one, check the book alone
    numbers = [str(chapter_number(c)) for c in nothing]
    assert main(["learn", str(BOOK_ENGINE), *[f"--chapter={n}" for n in numbers]]) == 2
    err = capsys.readouterr().err
    assert f"Start with chapter {chapter_number(first)}, the first whose checks" in err, err
    assert f"--chapter {chapter_number(first)}" in err


def test_an_engine_that_does_not_import_gets_one_line(tmp_path, capsys):
    broken = tmp_path / "micrograd.py"
    broken.write_text("class Value:\n    def __init__(self data):\n        pass\n")
    assert main(["learn", str(broken), "--chapter", "2"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1, captured
    assert "does not import: SyntaxError" in captured.err and "fix it, then" in captured.err
    assert not record_path(broken).exists()


# --- the same, under pytest (the terminal and VS Code's Testing panel) -----------------------


QUICK = ("-p", "no:hypothesispytest")  # chapters never use it; it costs half a second to load


def pytest_on(chapter: Path, *args: str, env: dict[str, str] | None = None):
    command = [sys.executable, "-m", "pytest", str(chapter), "-p", "no:cacheprovider", *QUICK]
    return run_text([*command, "-rs", *args], cwd=ROOT, env={**os.environ, **(env or {})})


def test_pytest_runs_the_chapters_against_the_engine_given(skeleton_file):
    done = pytest_on(VALUE_CHAPTER, "--engine", str(skeleton_file))
    assert done.returncode == 1, done.stdout
    assert f"chapters run against {skeleton_file}" in done.stdout
    assert "1 failed" in done.stdout and " passed" not in done.stdout.splitlines()[-1]
    assert "NotImplementedError: Value.__init__ is yours to write" in done.stdout
    assert f"engine fence: {skeleton_file} is used instead" in done.stdout


def test_pytest_refuses_a_missing_engine_and_updating_outputs_with_one(tmp_path):
    missing = pytest_on(VALUE_CHAPTER, env={"MICROGRAD_ENGINE": str(tmp_path / "none.py")})
    assert missing.returncode == 4, missing.stdout + missing.stderr
    assert "MICROGRAD_ENGINE" in missing.stderr and "no such file" in missing.stderr
    both = pytest_on(VALUE_CHAPTER, "--engine", str(BOOK_ENGINE), "--update-outputs")
    assert both.returncode == 4 and "would write what your engine prints" in both.stderr


def test_a_value_is_shown_whole_up_to_width_and_cut_one_past_it():
    from tools.learn.compare import WIDTH, shown

    assert shown("x" * (WIDTH - 2)) == repr("x" * (WIDTH - 2))  # WIDTH, with its quotes
    assert shown("x" * (WIDTH - 1)) == repr("x" * (WIDTH - 1))[: WIDTH - 3] + "..."


def test_a_stub_as_long_as_a_line_may_be_stays_one_line_and_one_more_wraps():
    from tools.learn.skeleton import LINE_LENGTH, _stub

    section = "s" * (LINE_LENGTH - len('raise NotImplementedError("x is yours to write: see ")'))
    assert _stub("x", section, "") == [
        f'raise NotImplementedError("x is yours to write: see {section}")\n'
    ]
    assert len(_stub("x", section + "s", "")) == 3
