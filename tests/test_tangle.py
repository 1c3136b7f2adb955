"""The tangler: stable markers, a drift check, sync in both directions, refusals that keep edits."""

import os
import shutil
import subprocess
import sys

import pytest

from tools.notebook import Notebook
from tools.tangle import (
    ROOT,
    chapters,
    engine_chunks,
    main,
    read_fences,
    read_headings,
    slugify,
    tangle,
)

CHAPTER = """# A chapter

Some prose.

```python title="micrograd.py"
class Thing:
    def __init__(self, n):
        self.n = n
```

An experiment between two pieces of one class:

```python
assert Thing(2).n == 2
```

## Doubling

```python title="micrograd.py"
    def double(self):
        return Thing(2 * self.n)
```

```python
assert Thing(2).double().n == 4
```
"""

MORE = """# More

## Halving

```python title="micrograd.py"
def half(thing):
    return Thing(thing.n // 2)
```

```python title="micrograd.py"
def quarter(thing):
    return half(half(thing))
```
"""

MARKERS = [
    "# --- docs/01-thing.md#a-chapter ---",
    "    # --- docs/01-thing.md#doubling ---",
    "# --- docs/02-more.md#halving, engine fence 1 ---",
    "# --- docs/02-more.md#halving, engine fence 2 ---",
]


@pytest.fixture
def book(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "01-thing.md").write_text(CHAPTER, encoding="utf-8")
    (docs / "02-more.md").write_text(MORE, encoding="utf-8")
    return docs, tmp_path / "micrograd.py"


def run(docs, out, *flags):
    return main(["--docs", str(docs), "--out", str(out), *flags])


def edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} is not in {path.name} exactly once"
    path.write_text(text.replace(old, new), encoding="utf-8")


def snapshot(docs, out):
    return {p.name: p.read_bytes() for p in [*docs.glob("*.md"), out]}


def sync_refused(docs, out, capsys):
    """Run --sync, which must refuse (exit 1) and write nothing; what it printed."""
    before = snapshot(docs, out)
    capsys.readouterr()
    assert run(docs, out, "--sync") == 1
    captured = capsys.readouterr()
    assert snapshot(docs, out) == before  # nothing written, nothing lost
    return captured


def test_output_has_header_and_markers_and_is_byte_stable(book, capsys):
    docs, out = book
    assert run(docs, out) == 0
    first = out.read_bytes()
    assert run(docs, out) == 0
    assert "up to date" in capsys.readouterr().out
    assert out.read_bytes() == first
    text = first.decode()
    assert text.startswith("# micrograd.py:") and "GENERATED" in text
    assert "python3 tools/dev.py tangle" in text and "python3 tools/dev.py sync" in text
    assert [line for line in text.splitlines() if "# ---" in line] == MARKERS
    assert f"{MARKERS[0]}\nclass Thing:" in text
    assert f"{MARKERS[1]}\n    def double(self):" in text
    namespace = {}
    exec(text, namespace)
    assert namespace["Thing"](3).double().n == 6
    assert namespace["quarter"](namespace["Thing"](8)).n == 2


def test_prose_edits_leave_the_engine_byte_identical(book):
    docs, out = book
    run(docs, out)
    before = out.read_bytes()
    edit(docs / "01-thing.md", "Some prose.\n", "Some prose.\n\nA new paragraph,\nof two lines.\n")
    edit(docs / "01-thing.md", "## Doubling\n", "## Doubling\n\nWhy double? Because.\n")
    edit(docs / "02-more.md", "```\n\n```python", "```\n\nBetween two fences.\n\n```python")
    assert run(docs, out, "--check") == 0
    assert out.read_bytes() == before


def test_a_paragraph_above_every_real_engine_fence_changes_nothing(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    for chapter in chapters(docs):
        lines = chapter.read_text(encoding="utf-8").split("\n")
        for fence in reversed([f for f in read_fences(chapter) if f.is_engine]):
            at = fence.line - 2  # the opening ``` line
            lines[at:at] = ["A new paragraph of prose, with a `name` in it.", ""]
        chapter.write_text("\n".join(lines), encoding="utf-8")
    assert tangle(docs, root=tmp_path) == (ROOT / "micrograd.py").read_text(encoding="utf-8")


def test_markers_name_the_section_and_number_its_fences_only_when_several(book):
    docs, _ = book
    places = [chunk.place for chunk in engine_chunks(docs, root=docs.parent)]
    assert places == [marker.strip()[6:-4] for marker in MARKERS]
    edit(docs / "02-more.md", "```\n\n```python", "```\n\n## Quartering\n\n```python")
    places = [chunk.place for chunk in engine_chunks(docs, root=docs.parent)]
    assert places[2:] == ["docs/02-more.md#halving", "docs/02-more.md#quartering"]


def test_anchors_are_the_ids_the_site_gives_headings(tmp_path):
    markdown = pytest.importorskip("markdown")
    text = (
        "# 7. Drawing the graph\n\n## The `topo()` order\n\n## Notes\n\n## Notes\n\n"
        "## tanh, exp, log *and* relu\n\n## Négation & co.\n\n## Notes_1\n"
    )
    html = markdown.markdown(text, extensions=["toc"])
    site_ids = [part.split('"')[0] for part in html.split(' id="')[1:]]
    page = tmp_path / "page.md"
    page.write_text(text, encoding="utf-8")
    assert [h.anchor for h in read_headings(page)] == site_ids
    assert slugify("Negation, subtraction, division") == "negation-subtraction-division"


def test_check_mode_reports_a_stale_engine_with_a_diff(book, capsys):
    docs, out = book
    run(docs, out)
    assert run(docs, out, "--check") == 0
    edit(docs / "01-thing.md", "2 * self.n", "3 * self.n")
    capsys.readouterr()
    assert run(docs, out, "--check") == 1
    captured = capsys.readouterr()
    assert "-        return Thing(2 * self.n)" in captured.out
    assert "+        return Thing(3 * self.n)" in captured.out
    assert "is stale: run `python3 tools/dev.py tangle`" in captured.err


def test_refuses_to_overwrite_an_edited_engine_unless_forced(book, capsys):
    docs, out = book
    run(docs, out)
    edit(out, "self.n = n", "self.n = n  # my fix")
    edited = out.read_text()
    edit(docs / "01-thing.md", "2 * self.n", "3 * self.n")
    capsys.readouterr()

    assert run(docs, out) == 1
    captured = capsys.readouterr()
    assert "refusing to overwrite" in captured.err
    assert "python3 tools/dev.py sync" in captured.err and "--force" in captured.err
    assert "my fix" in captured.out  # the diff shows what would be lost
    assert out.read_text() == edited  # nothing lost

    assert run(docs, out, "--check") == 1
    assert "edited since it was generated: run `python3 tools/dev.py sync`" in (
        capsys.readouterr().err
    )

    assert run(docs, out, "--force") == 0
    assert "my fix" not in out.read_text() and "3 * self.n" in out.read_text()


def test_invalid_engine_chunk_is_reported_with_chapter_and_line(book, capsys):
    docs, out = book
    chapter = docs / "01-thing.md"
    edit(chapter, "return Thing(2 * self.n)", "return Thing(2 *")
    assert run(docs, out) == 2
    err = capsys.readouterr().err
    assert "docs/01-thing.md:" in err and "not valid Python" in err
    line = int(err.split("docs/01-thing.md:")[1].split(":")[0])
    assert "return Thing(2 *" in chapter.read_text().splitlines()[line - 1]
    assert not out.exists()


def test_an_unclosed_string_is_blamed_on_the_chunk_that_opened_it(book, capsys):
    docs, out = book
    chapter = docs / "01-thing.md"
    edit(chapter, "        return Thing(2 * self.n)", '        """unclosed\n        return 1')
    later = docs / "02-later.md"
    later.write_text(  # its docstring's quotes close the string; the error shows up here
        '# Later\n\n## Part\n\n```python title="micrograd.py"\n'
        'def later():\n    """A docstring."""\n    return 1\n```\n'
    )
    assert run(docs, out) == 2
    err = capsys.readouterr().err
    assert "docs/01-thing.md:" in err and "not valid Python" in err, err
    line = int(err.split("docs/01-thing.md:")[1].split(":")[0])
    assert '"""unclosed' in chapter.read_text().splitlines()[line - 1]


def test_no_engine_chunks_is_an_error(tmp_path, capsys):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "01-empty.md").write_text("# Empty\n\n```python\nx = 1\n```\n")
    assert run(docs, tmp_path / "micrograd.py") == 2
    assert "no engine fences" in capsys.readouterr().err


def test_one_character_change_to_a_real_engine_fence_is_caught(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    out = tmp_path / "micrograd.py"
    shutil.copy(ROOT / "micrograd.py", out)
    assert main(["--docs", str(docs), "--out", str(out), "--check"]) == 0
    chapter = docs / "02-the-value-atom.md"
    text = chapter.read_text()
    chapter.write_text(text.replace('"tanh")', '"tanH")', 1))
    assert main(["--docs", str(docs), "--out", str(out), "--check"]) == 1
    assert tangle(docs, root=tmp_path) != out.read_text()


# sync: whichever side changed


def test_sync_writes_the_engine_when_it_is_missing_or_only_the_chapters_changed(book, capsys):
    docs, out = book
    assert run(docs, out, "--sync") == 0 and "wrote micrograd.py" in capsys.readouterr().out
    edit(docs / "01-thing.md", "2 * self.n", "3 * self.n")
    assert run(docs, out, "--sync") == 0
    assert "the chapters changed" in capsys.readouterr().out
    assert "3 * self.n" in out.read_text()
    assert run(docs, out, "--sync") == 0 and "up to date" in capsys.readouterr().out


def test_sync_writes_a_changed_function_body_back_into_its_fence(book, capsys):
    docs, out = book
    run(docs, out)
    edit(out, "        return Thing(2 * self.n)", "        return Thing(self.n + self.n)")
    capsys.readouterr()
    assert run(docs, out, "--sync") == 0
    said = capsys.readouterr().out
    chapter = (docs / "01-thing.md").read_text()
    assert chapter == CHAPTER.replace("Thing(2 * self.n)", "Thing(self.n + self.n)")
    assert "docs/01-thing.md:21" in said  # the chapter line that changed
    assert run(docs, out, "--check") == 0
    notebook = Notebook(docs / "01-thing.md")
    notebook.run_until(len(notebook.cells))
    assert notebook.next == len(notebook.cells) and notebook.failure is None, notebook.failure


def test_sync_writes_a_real_function_body_back_into_its_chapter(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    out = tmp_path / "micrograd.py"
    shutil.copy(ROOT / "micrograd.py", out)
    old = "        t = math.tanh(self.data)\n"
    new = "        t = math.tanh(self.data)  # its slope is 1 - t * t\n"
    edit(out, old, new)
    assert main(["--docs", str(docs), "--out", str(out), "--sync"]) == 0
    chapter = docs / "02-the-value-atom.md"
    assert chapter.read_text(encoding="utf-8") == (ROOT / "docs" / chapter.name).read_text(
        encoding="utf-8"
    ).replace(old, new)
    assert main(["--docs", str(docs), "--out", str(out), "--check"]) == 0
    notebook = Notebook(chapter)
    notebook.run_until(len(notebook.cells))
    assert notebook.failure is None, notebook.failure


def test_sync_writes_added_and_removed_lines_into_the_right_fences(book):
    docs, out = book
    run(docs, out)
    edit(out, "        self.n = n\n", "        self.n = n\n        self.history = []\n")
    edit(out, "    def double(self):\n", "    def double(self):\n        # twice n\n")
    edit(  # a new method at the end of the class: it joins the fence the class ends with
        out,
        "        return Thing(2 * self.n)\n",
        "        return Thing(2 * self.n)\n\n    def triple(self):\n        return 3 * self.n\n",
    )
    edit(out, "def half(thing):\n", "def half(thing):\n    assert thing.n >= 0\n")
    second = "# --- docs/02-more.md#halving, engine fence 2"
    # a new function after a chunk's last line and its two blank lines: it joins that chunk
    edit(out, f"\n\n\n{second}", f"\n\n\ndef third(thing):\n    return thing\n\n\n{second}")
    edit(out, "def quarter(thing):\n    return half(half(thing))\n", "quarter = None\n")
    assert run(docs, out, "--sync") == 0
    thing = (docs / "01-thing.md").read_text()
    assert "        self.n = n\n        self.history = []\n```" in thing
    assert (
        "    def double(self):\n        # twice n\n        return Thing(2 * self.n)\n\n"
        "    def triple(self):\n        return 3 * self.n\n```\n\n```python\nassert"
    ) in thing
    more = (docs / "02-more.md").read_text()
    assert "def half(thing):\n    assert thing.n >= 0\n    return" in more
    assert "    return Thing(thing.n // 2)\n\n\ndef third(thing):\n    return thing\n```" in more
    assert '```python title="micrograd.py"\nquarter = None\n```\n' in more
    assert run(docs, out, "--check") == 0


def test_sync_writes_several_edits_to_one_fence(book):
    docs, out = book
    run(docs, out)
    edit(out, "class Thing:\n", "class Thing:  # a thing\n")
    edit(out, "(self, n):\n", '(self, n):\n        """Make one."""\n')
    edit(out, "        self.n = n\n", "        self.n = int(n)\n")
    assert run(docs, out, "--sync") == 0
    assert (
        '```python title="micrograd.py"\nclass Thing:  # a thing\n    def __init__(self, n):\n'
        '        """Make one."""\n        self.n = int(n)\n```\n'
    ) in (docs / "01-thing.md").read_text()
    assert run(docs, out, "--check") == 0


def test_sync_keeps_a_chapter_s_windows_line_endings(book):
    docs, out = book
    chapter = docs / "01-thing.md"
    chapter.write_bytes(CHAPTER.replace("\n", "\r\n").encode())
    run(docs, out)
    edit(out, "2 * self.n", "self.n * 2")
    assert run(docs, out, "--sync") == 0
    assert chapter.read_bytes() == CHAPTER.replace("2 * self.n", "self.n * 2").replace(
        "\n", "\r\n"
    ).encode("utf-8")


def test_sync_refuses_when_both_sides_changed_and_shows_both_diffs(book, capsys):
    docs, out = book
    run(docs, out)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "book"]):
        subprocess.run([*git, *command], cwd=docs.parent, check=True, capture_output=True)
    edit(out, "self.n = n", "self.n = int(n)")
    edit(docs / "02-more.md", "thing.n // 2", "thing.n >> 1")
    captured = sync_refused(docs, out, capsys)
    assert "both micrograd.py and the chapters changed" in captured.err
    assert "python3 tools/dev.py tangle --force" in captured.err
    chapters_diff, engine_diff = captured.out.split("--- micrograd.py (last generated)")[1:]
    assert "-    return Thing(thing.n // 2)\n+    return Thing(thing.n >> 1)" in chapters_diff
    assert "self.n = n" not in chapters_diff
    assert "-        self.n = n\n+        self.n = int(n)" in engine_diff
    assert "thing.n" not in engine_diff


def test_sync_without_the_last_generated_engine_shows_the_two_changes_together(book, capsys):
    docs, out = book  # not a git repository: the engine as last generated is nowhere
    run(docs, out)
    edit(out, "self.n = n", "self.n = int(n)")
    edit(docs / "02-more.md", "thing.n // 2", "thing.n >> 1")
    captured = sync_refused(docs, out, capsys)
    assert "is not in git's HEAD" in captured.err
    assert "int(n)" in captured.out and "thing.n >> 1" in captured.out


def test_sync_accepts_the_same_edit_made_on_both_sides(book, capsys):
    docs, out = book
    run(docs, out)
    edit(out, "2 * self.n", "3 * self.n")
    edit(docs / "01-thing.md", "2 * self.n", "3 * self.n")
    assert run(docs, out, "--sync") == 0
    assert "already had the chapters' changes" in capsys.readouterr().out
    assert run(docs, out, "--check") == 0


@pytest.mark.parametrize(
    ("old", "new", "place"),
    [
        ("# --- docs/01-thing.md#doubling ---", "# --- docs/01-thing.md#tripling ---", "marker"),
        ("    # --- docs/01-thing.md#doubling ---\n", "", "marker"),
        ("# GENERATED by", "# Generated by", "header"),
        ("\n\n# --- docs/02-more.md#halving, engine fence 1", "\nX = 1\n# --- docs", "between"),
        (
            "\n# --- docs/02-more.md#halving, engine fence 2",
            "\nX = 1\n# --- docs/02-more.md#halving, engine fence 2",
            "between",
        ),
        ("\n\n# --- docs/01-thing.md#a-chapter", "\nimport os\n# --- docs/01", "between"),
    ],
    ids=["marker", "marker-deleted", "header", "gap", "before-marker", "after-header"],
)
def test_sync_refuses_an_edit_it_cannot_place_and_names_the_place(book, capsys, old, new, place):
    docs, out = book
    run(docs, out)
    edit(out, old, new)
    err = sync_refused(docs, out, capsys).err
    assert err.startswith("sync: micrograd.py:") and err.count("\n") == 1, err
    assert {"marker": "an edit to the marker", "header": "an edit to the header"}.get(
        place, "an edit between two chunks"
    ) in err
    line = int(err.split(":")[2].split("-")[0])
    shown = out.read_text().splitlines()[line - 1]
    if place == "between":  # the line named is the one added
        assert "X = 1" in shown or "import os" in shown, (line, shown)


@pytest.mark.parametrize(
    ("old", "new", "shown"),
    [  # a blank line after a chunk: the tangler drops a fence's trailing blank lines
        ("2 * self.n)\n", "2 * self.n)\n\n", "micrograd.py (after sync)"),
        ("self.n = n\n", 'self.n = n\n        """\n```\n"""\n', ""),  # ``` ends the fence
    ],
    ids=["trailing-blank-line", "fence-closed-early"],
)
def test_sync_refuses_an_edit_that_would_not_tangle_back_the_same(book, capsys, old, new, shown):
    docs, out = book
    run(docs, out)
    edit(out, old, new)
    captured = sync_refused(docs, out, capsys)
    assert "nothing was written" in captured.err and "tangle --force" in captured.err
    assert shown in captured.out


def test_sync_refuses_an_engine_that_is_not_valid_python(book, capsys):
    docs, out = book
    run(docs, out)
    edit(out, "return half(half(thing))", "return half(half(thing)")
    err = sync_refused(docs, out, capsys).err
    line = int(err.split("micrograd.py:")[1].split(":")[0])
    assert "half(half(thing)" in out.read_text().splitlines()[line - 1]


def test_sync_refuses_when_the_hash_line_is_gone(book, capsys):
    docs, out = book
    run(docs, out)
    text = out.read_text()
    out.write_text("\n".join(line for line in text.split("\n") if "sha256" not in line))
    assert "sha256 line is gone" in sync_refused(docs, out, capsys).err


def test_sync_refuses_to_write_into_an_indented_fence(book, capsys):
    docs, out = book
    chapter = docs / "02-more.md"
    text = chapter.read_text()
    lines = text.split("\n")
    start = lines.index("## Halving") + 2  # the first fence of the section, indented by 2
    end = lines.index("```", start)
    lines[start : end + 1] = ["  " + line for line in lines[start : end + 1]]
    chapter.write_text("\n".join(lines))
    run(docs, out)
    edit(out, "thing.n // 2", "thing.n >> 1")
    err = sync_refused(docs, out, capsys).err
    assert "docs/02-more.md:6:" in err and "indented" in err


def test_plain_python3_runs_the_tangler_through_the_project_environment(book):
    from tools import dev

    if not dev.environment_ready():
        pytest.skip("needs the .venv that `python3 tools/dev.py test` sets up")
    docs, out = book
    env = {k: v for k, v in os.environ.items() if k != "MICROGRAD_DEV"}
    command = [sys.executable, "-S", str(ROOT / "tools" / "tangle.py")]  # -S: no markdown-it
    result = subprocess.run(
        [*command, "--docs", str(docs), "--out", str(out)], capture_output=True, text=True, env=env
    )
    assert result.returncode == 0, result.stderr
    assert "wrote micrograd.py" in result.stdout and out.exists()


def test_fences_are_read_as_commonmark(book):
    docs, _ = book
    fences = read_fences(docs / "01-thing.md")
    assert [f.line for f in fences] == [6, 14, 20, 25]
    assert fences[0].code.startswith("class Thing:")
