"""The chapter runner: one notebook per chapter, checked outputs, one failure one message."""

import textwrap

import pytest

from tests.helpers import book
from tests.helpers.book import run_all
from tools import ROOT
from tools.chapter import Chapter, chapters
from tools.notebook import OPTIONAL, Notebook, OutputMismatchError, updated_outputs

pytest_plugins = ["pytester"]

# tests/helpers/book.py's first chapter, its last check made a print with its output block
CHAPTER = book.CHAPTER.replace("## Doubling\n\n", "").replace(
    "assert Thing(2).double().n == 4\n```\n",
    "print(Thing(2).double().n)\n```\n\n```output\n4\n```\n",
)


@pytest.fixture
def chapter(tmp_path):
    path = tmp_path / "01-thing.md"
    path.write_text(CHAPTER, encoding="utf-8")
    return path


def test_cells_pair_each_fence_with_the_output_block_below_it(chapter):
    found = Chapter.read(chapter).cells
    assert [c.line for c in found] == [6, 14, 18, 23]
    assert [c.fence.is_engine for c in found] == [True, False, True, False]
    assert [c.output.code if c.output else None for c in found] == [None, None, None, "4\n"]
    assert Chapter.read(chapter).misplaced_outputs() == []


def test_output_block_separated_by_prose_is_misplaced(chapter):
    chapter.write_text(CHAPTER.replace("```output", "It prints:\n\n```output"))
    assert Chapter.read(chapter).cells[-1].output is None
    assert Chapter.read(chapter).misplaced_outputs() == [28]


def test_notebook_runs_class_pieces_and_experiments_in_order(chapter):
    notebook = run_all(chapter)
    assert notebook.failure is None
    assert notebook.namespace["Thing"](5).double().n == 10
    assert notebook.printed == {0: "", 1: "", 2: "", 3: "4\n"}


def test_wrong_output_is_a_failure_with_a_diff(chapter):
    chapter.write_text(CHAPTER.replace("```output\n4", "```output\n5"))
    notebook = Notebook(chapter)
    notebook.run_until(3)
    with pytest.raises(OutputMismatchError) as caught:
        notebook.run_next()
    message = str(caught.value)
    assert "01-thing.md:22: the fence printed something other than what" in message
    assert "-5\n+4\n" in message and "--update-outputs" in message


def test_printing_without_an_output_block_is_a_failure(chapter):
    chapter.write_text(CHAPTER.replace("assert Thing(2).n == 2", "print('hidden')"))
    notebook = Notebook(chapter)
    notebook.run_next()
    with pytest.raises(OutputMismatchError, match="no ```output block follows it"):
        notebook.run_next()


def test_first_failure_stops_the_chapter(chapter):
    chapter.write_text(CHAPTER.replace("assert Thing(2).n == 2", "assert Thing(2).n == 3"))
    notebook = run_all(chapter)
    assert notebook.next == 2  # the failing fence was the last to run
    assert "01-thing.md:14: AssertionError" in notebook.failure  # the line that raised


def test_a_fence_that_does_not_compile_stops_the_chapter(chapter):
    chapter.write_text(CHAPTER.replace("assert Thing(2).n == 2", "assert Thing(2).n =="))
    notebook = run_all(chapter)
    assert notebook.next == 2
    assert "SyntaxError" in notebook.failure


def test_updated_outputs_replace_add_and_remove_blocks(chapter):
    printed = {1: "two\n", 3: "8\n"}
    new = updated_outputs(Chapter.read(chapter), printed)
    assert "```python\nassert Thing(2).n == 2\n```\n\n```output\ntwo\n```\n" in new
    assert new.endswith("```python\nprint(Thing(2).double().n)\n```\n\n```output\n8\n```\n")
    chapter.write_text(new + "\nProse after the block.\n")
    assert updated_outputs(Chapter.read(chapter), {3: "16\n"}).endswith(
        "print(Thing(2).double().n)\n```\n\n```output\n16\n```\n\nProse after the block.\n"
    )
    assert updated_outputs(Chapter.read(chapter), {3: ""}).endswith(
        "print(Thing(2).double().n)\n```\n\nProse after the block.\n"
    )
    outputs = [cell.output.code if cell.output else None for cell in Chapter.read(chapter).cells]
    assert outputs == [None, "two\n", None, "8\n"], "each new block belongs to its fence"


# pytest in a child process, on chapters: with the book's fences on, no cache, and without
# hypothesis's plugin (chapters never use it, and it costs a child half a second to import).
CHILD = ("--markdown-docs", "-p", "no:cacheprovider", "-p", "no:hypothesispytest")


def with_the_plugin(pytester, first: str = ""):
    """A conftest that loads this repository's chapters plugin, after the code ``first``."""
    plugin = 'pytest_plugins = ["tools.chapters_plugin"]\n'
    pytester.makeconftest(f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n{first}{plugin}")


def run_chapter(pytester, text, *args, first: str = ""):
    """Run pytest on one chapter in a scratch folder, with this project's runner."""
    with_the_plugin(pytester, first)
    path = pytester.path / "chapter.md"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path, pytester.runpytest_subprocess(*CHILD, "-rs", *args)


STEPS = """
    ```python
    runs = []
    ```

    ```python
    runs.append(1)
    assert len(runs) == 1
    ```

    ```python
    assert False, "the real failure"
    ```

    ```python
    runs.append(3)
    ```

    ```python
    assert runs == [1]
    ```
"""


def test_one_failure_one_message_and_no_replay(pytester):
    _, result = run_chapter(pytester, STEPS)
    result.assert_outcomes(passed=2, failed=1, skipped=2)
    result.stdout.fnmatch_lines(["*the real failure*", "*not run: an earlier fence failed*"])
    # The skips are said once, at the chapter's line of the fence that failed (its opening
    # backticks), not at the line of the plugin that skips them.
    failed = textwrap.dedent(STEPS).split("\n").index('assert False, "the real failure"')
    result.stdout.fnmatch_lines([f"SKIPPED [[]2[]] chapter.md:{failed}: not run: an earlier*"])


def test_a_fence_run_alone_runs_the_fences_above_it_once(pytester):
    text = STEPS.replace('assert False, "the real failure"', "runs.append(2)").replace(
        "assert runs == [1]", "assert runs == [1, 2, 3], runs"
    )
    _, result = run_chapter(pytester, text)
    result.assert_outcomes(passed=5)
    last = collected_ids(pytester)[-1]
    alone = pytester.runpytest_subprocess(*CHILD, last)
    alone.assert_outcomes(passed=1)


def collected_ids(pytester) -> list[str]:
    ids = pytester.runpytest_subprocess(*CHILD, "--collect-only", "-q").outlines
    return [line for line in ids if "::" in line]


def test_ids_name_each_fence_by_its_section_and_survive_edits_elsewhere(pytester):
    text = """\
        # A chapter

        ## Build it

        ```python title="micrograd.py"
        x = 1
        ```

        ```python
        assert x == 1
        ```

        ## Use it

        ```python
        assert x + 1 == 2
        ```
        """
    path, result = run_chapter(pytester, text)
    result.assert_outcomes(passed=3)
    ids = collected_ids(pytester)
    assert ids == [
        "chapter.md::build-it[engine-1]",
        "chapter.md::build-it[2]",
        "chapter.md::use-it[1]",
    ]
    edited = "\nA new first paragraph.\n\n" + path.read_text().replace(
        "## Use it\n", "## Use it\n\nMore.\n"
    )
    path.write_text(edited, encoding="utf-8")
    assert collected_ids(pytester) == ids, "an edit above a fence, or in its section, moved its id"


def test_a_type_error_is_reported_once_not_rerun(pytester, monkeypatch):
    # pytest-markdown-docs calls a runner again when it raises TypeError (its issue #69):
    # the fence leaves a trace outside the chapter's namespace, which a rerun starts afresh.
    runs = pytester.path / "runs.txt"
    monkeypatch.setenv("FENCE_RUNS", str(runs))
    _, result = run_chapter(
        pytester,
        """
        ```python
        import os
        ```

        ```python
        with open(os.environ["FENCE_RUNS"], "a") as runs:
            runs.write("ran\\n")
        len(5)
        ```
        """,
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*TypeError: object of type 'int' has no len()*"])
    assert runs.read_text() == "ran\n", "the fence that raised TypeError ran more than once"


def test_update_outputs_rewrites_the_chapter_only_when_asked(pytester):
    text = """
        ```python
        print(6 * 7)
        ```

        ```output
        41
        ```
        """
    path, result = run_chapter(pytester, text)
    result.assert_outcomes(failed=1)
    assert "41" in path.read_text()  # nothing rewritten unasked
    path, result = run_chapter(pytester, text, "--update-outputs")
    assert "```output\n42\n```" in path.read_text()
    _, result = run_chapter(pytester, path.read_text())
    result.assert_outcomes(passed=1)


# A fence and an output block that differ only in white space a reader cannot see: the
# block must still be what was printed, exactly.
UNSEEN = {
    "spaces after the block's line": ('print("42")', "42   \n"),
    "spaces after the printed line": ('print("42   ")', "42\n"),
    "a blank line ending the block": ('print("42")', "42\n\n"),
    "a blank line ending the print": ('print("42\\n")', "42\n"),
}


def run_chapters(pytester, texts: dict[str, str], *args):
    """Run pytest once on several chapters (file name -> text) in a scratch folder."""
    run_chapter(pytester, "")  # the conftest, and an empty chapter
    paths = {name: pytester.path / f"{name}.md" for name in texts}
    for name, text in texts.items():
        paths[name].write_text(text, encoding="utf-8")
    return paths, pytester.runpytest_subprocess(*CHILD, "-rs", *args)


def test_output_is_compared_exactly_down_to_trailing_white_space(pytester):
    chapters = {
        f"case-{i}": f"```python\n{code}\n```\n\n```output\n{block}```\n"
        for i, (code, block) in enumerate(UNSEEN.values())
    }
    _, result = run_chapters(pytester, chapters)
    result.assert_outcomes(failed=len(UNSEEN))  # each case, in a chapter of its own
    said = [line for line in result.outlines if "the fence printed something other than" in line]
    assert len(said) >= len(UNSEEN), result.outlines


# What --update-outputs must write, whatever a fence printed: the chapter before, and after.
# An output block shows what was printed, with a final newline added if it had none, in a
# fence longer than any run of backticks in it; each case has a fence below that must stay.
UPDATES = {
    "no final newline": (
        '```python\nprint("abc", end="")\n```\n\n```python\nprint("below")\n```\n',
        '```python\nprint("abc", end="")\n```\n\n```output\nabc\n```\n\n'
        '```python\nprint("below")\n```\n\n```output\nbelow\n```\n',
    ),
    "backticks": (
        '```python\nprint("```python\\nx = 1\\n````")\n```\n\n```output\nstale\n```\n\n'
        '```python\nprint("below")\n```\n',
        '```python\nprint("```python\\nx = 1\\n````")\n```\n\n`````output\n```python\nx = 1\n````\n'
        '`````\n\n```python\nprint("below")\n```\n\n```output\nbelow\n```\n',
    ),
    "a form feed above": (  # str.splitlines() would count it as a line break
        '```python\nprint("a\\fb")\n```\n\n```output\na\fb\n```\n\n```python\nprint(6 * 7)\n```\n\n'
        "```output\n41\n```\n",
        '```python\nprint("a\\fb")\n```\n\n```output\na\fb\n```\n\n```python\nprint(6 * 7)\n```\n\n'
        "```output\n42\n```\n",
    ),
}


def test_update_outputs_writes_what_was_printed_keeps_the_fences_below_and_then_passes(pytester):
    names = {case: f"case-{i}" for i, case in enumerate(UPDATES)}
    paths, _ = run_chapters(
        pytester, {names[case]: before for case, (before, _) in UPDATES.items()}, "--update-outputs"
    )
    for case, (_, after) in UPDATES.items():
        written = paths[names[case]].read_text(encoding="utf-8")
        assert written == after, f"{case}: --update-outputs wrote:\n{written}"
    result = pytester.runpytest_subprocess(*CHILD)  # what it wrote passes the next run
    result.assert_outcomes(passed=sum(len(Chapter.read(path).cells) for path in paths.values()))


@pytest.mark.parametrize("page", chapters(ROOT / "docs"), ids=lambda page: page.name)
def test_every_output_block_sits_below_a_python_fence(page):
    lines = Chapter.read(page).misplaced_outputs()
    assert not lines, (
        f"{page.name}: ```output blocks at lines {lines} do not sit right below a python "
        "fence (only blank lines may come between), so no fence's output is checked "
        "against them"
    )


def test_the_plugin_internals_we_build_on_are_where_they_were():
    """pytest-markdown-docs keeps its runner API private: pinned exactly, and checked here."""
    import inspect
    import re
    from importlib import metadata

    from pytest_markdown_docs import _runners, plugin

    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    pinned = re.search(r'"pytest-markdown-docs==([^"]+)"', pyproject)
    assert pinned, "pyproject.toml should pin pytest-markdown-docs to one version"
    assert metadata.version("pytest-markdown-docs") == pinned[1]
    assert callable(_runners.register_runner) and issubclass(_runners.DefaultRunner, object)
    item = inspect.signature(plugin.MarkdownInlinePythonItem.__init__).parameters
    assert "test_definition" in item, "tools/chapters_plugin.py re-makes items with it"


OPTIONAL_CHAPTER = """
    ```python
    runs = []
    ```

    <details markdown="1">
    <summary>The same in PyTorch</summary>

    ```python
    import no_such_module_here

    runs.append("ran")
    print("shown, not checked here")
    ```

    ```output
    shown, not checked here
    ```

    </details>

    ```python
    import no_such_module_here.sub
    ```

    ```python
    print(runs)
    ```

    ```output
    []
    ```
    """


def test_a_fence_needing_a_missing_optional_module_is_skipped_with_the_reason_said_once(pytester):
    absent = "tools.notebook.OPTIONAL['no_such_module_here'] = 'no_such_module_here is absent'\n"
    path, result = run_chapter(pytester, OPTIONAL_CHAPTER, first="import tools.notebook\n" + absent)
    result.assert_outcomes(passed=2, skipped=2)  # the chapter goes on after them
    said = [line for line in result.outlines if "no_such_module_here is absent" in line]
    assert len(said) == 1 and said[0].startswith("SKIPPED [2] chapter.md:9: "), result.outlines
    pytester.runpytest_subprocess(*CHILD, "--update-outputs")  # a skipped fence's block is kept:
    assert path.read_text() == textwrap.dedent(OPTIONAL_CHAPTER)


def test_a_run_without_optional_modules_leaves_their_fences_out_even_when_installed(
    tmp_path, monkeypatch
):
    # tools/figures/ draws without them, so a figure is the same with PyTorch or without.
    monkeypatch.setitem(OPTIONAL, "json", "json stands in for an optional module here")
    path = tmp_path / "chapter.md"
    path.write_text(textwrap.dedent(OPTIONAL_CHAPTER).replace("no_such_module_here", "json"))
    for optional, runs in [(True, ["ran"]), (False, [])]:
        book = Notebook(path, optional=optional)
        book.run_until(2)
        assert book.failure is None and book.namespace["runs"] == runs, (optional, book.failure)
        assert bool(book.cells[1].blocked) is not optional
