"""Sync: edits in micrograd.py written back into their fences, and refusals that keep edits."""

import shutil
import subprocess

import pytest

from tests.helpers.book import CHAPTER, edit, run_all, snapshot
from tools import ROOT
from tools import sync as sync_tool
from tools import tangle as tangle_tool


def tangle(docs, out, *flags):
    return tangle_tool.main(["--docs", str(docs), "--out", str(out), *flags])


def sync(docs, out):
    return sync_tool.main(["--docs", str(docs), "--out", str(out)])


@pytest.fixture
def tangled(book):
    """The small book, and its micrograd.py as tangle writes it."""
    tangle(*book)
    return book


def sync_refused(docs, out, capsys):
    """Run sync, which must refuse (exit 1) and write nothing; what it printed."""
    before = snapshot(docs, out)
    capsys.readouterr()
    assert sync(docs, out) == 1
    captured = capsys.readouterr()
    assert snapshot(docs, out) == before  # nothing written, nothing lost
    return captured


def test_sync_writes_the_engine_when_it_is_missing_or_only_the_chapters_changed(book, capsys):
    docs, out = book
    assert sync(docs, out) == 0 and "wrote micrograd.py" in capsys.readouterr().out
    edit(docs / "01-thing.md", "2 * self.n", "3 * self.n")
    assert sync(docs, out) == 0
    assert "the chapters changed" in capsys.readouterr().out
    assert "3 * self.n" in out.read_text()
    assert sync(docs, out) == 0 and "up to date" in capsys.readouterr().out


def test_sync_writes_a_changed_function_body_back_into_its_fence(tangled, capsys):
    docs, out = tangled
    edit(out, "        return Thing(2 * self.n)", "        return Thing(self.n + self.n)")
    capsys.readouterr()
    assert sync(docs, out) == 0
    said = capsys.readouterr().out
    chapter = (docs / "01-thing.md").read_text()
    assert chapter == CHAPTER.replace("Thing(2 * self.n)", "Thing(self.n + self.n)")
    assert "docs/01-thing.md:21" in said  # the chapter line that changed
    assert tangle(docs, out, "--check") == 0
    notebook = run_all(docs / "01-thing.md")
    assert notebook.next == len(notebook.cells) and notebook.failure is None, notebook.failure


def test_sync_writes_a_real_function_body_back_into_its_chapter(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    out = tmp_path / "micrograd.py"
    shutil.copy(ROOT / "micrograd.py", out)
    old = "        t = math.tanh(self.data)\n"
    new = "        t = math.tanh(self.data)  # its slope is 1 - t * t\n"
    edit(out, old, new)
    assert sync(docs, out) == 0
    chapter = docs / "02-the-value-atom.md"
    book = (ROOT / "docs" / chapter.name).read_text(encoding="utf-8")
    assert chapter.read_text(encoding="utf-8") == book.replace(old, new)
    assert tangle(docs, out, "--check") == 0
    notebook = run_all(chapter)
    assert notebook.failure is None, notebook.failure


def test_sync_writes_added_and_removed_lines_into_the_right_fences(tangled):
    docs, out = tangled
    edit(out, "        self.n = n\n", "        self.n = n\n        self.history = []\n")
    edit(out, "    def double(self):\n", "    def double(self):\n        # twice n\n")
    end = "        return Thing(2 * self.n)\n"  # a new method after it joins the class's last fence
    edit(out, end, end + "\n    def triple(self):\n        return 3 * self.n\n")
    edit(out, "def half(thing):\n", "def half(thing):\n    assert thing.n >= 0\n")
    second = "# --- docs/02-more.md#halving, engine fence 2"
    # a new function after a chunk's last line and its two blank lines: it joins that chunk
    edit(out, f"\n\n\n{second}", f"\n\n\ndef third(thing):\n    return thing\n\n\n{second}")
    edit(out, "def quarter(thing):\n    return half(half(thing))\n", "quarter = None\n")
    assert sync(docs, out) == 0
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
    assert tangle(docs, out, "--check") == 0


def test_sync_writes_several_edits_to_one_fence(tangled):
    docs, out = tangled
    edit(out, "class Thing:\n", "class Thing:  # a thing\n")
    edit(out, "(self, n):\n", '(self, n):\n        """Make one."""\n')
    edit(out, "        self.n = n\n", "        self.n = int(n)\n")
    assert sync(docs, out) == 0
    assert (
        '```python title="micrograd.py"\nclass Thing:  # a thing\n    def __init__(self, n):\n'
        '        """Make one."""\n        self.n = int(n)\n```\n'
    ) in (docs / "01-thing.md").read_text()
    assert tangle(docs, out, "--check") == 0


def test_sync_keeps_a_chapter_s_windows_line_endings(book):
    docs, out = book
    chapter = docs / "01-thing.md"
    chapter.write_bytes(CHAPTER.replace("\n", "\r\n").encode())
    tangle(docs, out)
    edit(out, "2 * self.n", "self.n * 2")
    assert sync(docs, out) == 0
    edited = CHAPTER.replace("2 * self.n", "self.n * 2")
    assert chapter.read_bytes() == edited.replace("\n", "\r\n").encode("utf-8")


def test_sync_refuses_when_both_sides_changed_and_shows_both_diffs(tangled, capsys):
    docs, out = tangled
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
    assert "sha256 of what follows" not in captured.out, "the hash line is no one's change"


def test_sync_without_the_last_generated_engine_shows_the_two_changes_together(book, capsys):
    docs, out = book  # not a git repository: the engine as last generated is nowhere
    tangle(docs, out)
    edit(out, "self.n = n", "self.n = int(n)")
    edit(docs / "02-more.md", "thing.n // 2", "thing.n >> 1")
    captured = sync_refused(docs, out, capsys)
    assert "is not in git's HEAD" in captured.err
    assert "int(n)" in captured.out and "thing.n >> 1" in captured.out
    assert "sha256 of what follows" not in captured.out, "the hash line is no one's change"


def test_sync_accepts_the_same_edit_made_on_both_sides(tangled, capsys):
    docs, out = tangled
    edit(out, "2 * self.n", "3 * self.n")
    edit(docs / "01-thing.md", "2 * self.n", "3 * self.n")
    assert sync(docs, out) == 0
    assert "already had the chapters' changes" in capsys.readouterr().out
    assert tangle(docs, out, "--check") == 0


@pytest.mark.parametrize(("old", "new", "place"), [
    ("# --- docs/01-thing.md#doubling ---", "# --- docs/01-thing.md#tripling ---", "marker"),
    ("    # --- docs/01-thing.md#doubling ---\n", "", "marker"),
    ("# GENERATED by", "# Generated by", "header"),
    ("\n\n# --- docs/01-thing.md#a-chapter", "\nimport os\n# --- docs/01", "between"),
    ("\n\n# --- docs/01-thing.md#a", "\n\n# mine\n# --- docs/01-thing.md#a", "between"),
], ids=["marker", "marker-deleted", "header", "after-header", "comment-after-header"])  # fmt: skip
def test_sync_refuses_an_edit_it_cannot_place_and_names_the_place(tangled, capsys, old, new, place):
    docs, out = tangled
    edit(out, old, new)
    err = sync_refused(docs, out, capsys).err
    assert err.startswith("sync: micrograd.py:") and err.count("\n") == 1, err
    assert {"marker": "an edit to the marker", "header": "an edit to the header"}.get(
        place, "an edit between the header and the first chunk"
    ) in err
    line = int(err.split(":")[2].split("-")[0])
    shown = out.read_text().splitlines()[line - 1]
    if place == "between":  # the line named is the one added
        assert "import os" in shown or "# mine" in shown, (line, shown)


@pytest.mark.parametrize(("old", "new", "chapter", "joined"), [
    ("\n\n# --- docs/02-more.md#halving, engine fence 2",
     "\n\n# a quarter is half of a half\n# --- docs/02-more.md#halving, engine fence 2",
     "02-more.md", "    return Thing(thing.n // 2)\n# a quarter is half of a half\n```"),
    ("\n\n# --- docs/02-more.md#halving, engine fence 1",
     "\nX = 1\n# --- docs/02-more.md#halving, engine fence 1",
     "01-thing.md", "        return Thing(2 * self.n)\nX = 1\n```"),
], ids=["comment-above-a-marker", "code-over-a-blank-line"])  # fmt: skip
def test_lines_added_below_a_chunk_s_blank_lines_join_it(book, capsys, old, new, chapter, joined):
    """CONTRIBUTING: lines added after a chunk join it, even below the blank lines that
    follow it (a comment above the next marker): they end up right after its code."""
    docs, out = book
    tangle(docs, out)
    edit(out, old, new)
    capsys.readouterr()
    assert sync(docs, out) == 0, capsys.readouterr().err
    said = capsys.readouterr().out
    assert f"back into docs/{chapter}:" in said and "lines added below a chunk joined it" in said
    assert joined in (docs / chapter).read_text()
    added = new.split("\n")[-2]
    assert added in out.read_text() and tangle(docs, out, "--check") == 0


@pytest.mark.parametrize(("old", "new", "shown"), [
    # a blank line after a chunk: the tangler drops a fence's trailing blank lines
    ("2 * self.n)\n", "2 * self.n)\n\n", "micrograd.py (after sync)"),
    ("self.n = n\n", 'self.n = n\n        """\n```\n"""\n', ""),  # ``` ends the fence
], ids=["trailing-blank-line", "fence-closed-early"])  # fmt: skip
def test_sync_refuses_an_edit_that_would_not_tangle_back_the_same(tangled, capsys, old, new, shown):
    docs, out = tangled
    edit(out, old, new)
    captured = sync_refused(docs, out, capsys)
    assert "nothing was written" in captured.err and "tangle --force" in captured.err
    assert shown in captured.out


def test_sync_refuses_an_engine_that_is_not_valid_python(tangled, capsys):
    docs, out = tangled
    edit(out, "return half(half(thing))", "return half(half(thing)")
    err = sync_refused(docs, out, capsys).err
    line = int(err.split("micrograd.py:")[1].split(":")[0])
    assert "half(half(thing)" in out.read_text().splitlines()[line - 1]


def test_sync_refuses_when_the_hash_line_is_gone(tangled, capsys):
    docs, out = tangled
    text = out.read_text()
    out.write_text("\n".join(line for line in text.split("\n") if "sha256" not in line))
    assert "sha256 line is gone" in sync_refused(docs, out, capsys).err


def test_sync_refuses_to_write_into_an_indented_fence(book, capsys):
    docs, out = book
    chapter = docs / "02-more.md"
    lines = chapter.read_text().split("\n")
    start = lines.index("## Halving") + 2  # the first fence of the section, indented by 2
    end = lines.index("```", start)
    lines[start : end + 1] = ["  " + line for line in lines[start : end + 1]]
    chapter.write_text("\n".join(lines))
    tangle(docs, out)
    edit(out, "thing.n // 2", "thing.n >> 1")
    err = sync_refused(docs, out, capsys).err
    assert "docs/02-more.md:6:" in err and "indented" in err


TENSOR_CHAPTERS = {
    "03-tensor.md": """# Tensors

```python title="tensor.py"
class Box:
    def __init__(self, n):
        self.n = n
```

```python
import micrograd
import tensor

assert tensor.Box(3).n == 3 and micrograd.quarter(micrograd.Thing(8)).n == 2
```

## Growing

```python title="tensor.py"
    def twice(self):
        return Box(2 * self.n)
```

```python
from tensor import Box

assert Box(3).twice().n == 6
```
""",
    "04-after.md": """# After

```python
from tensor import Box

assert Box(1).twice().n == 2  # tensor.py as chapter 3 built it
```
""",
}


def test_a_second_engine_file_is_tangled_synced_and_run_apart_from_the_first(book, capsys):
    """tensor.py's fences make tensor.py (its header, its markers), not micrograd.py; sync
    writes an edit of it into its chapter; each chapter imports each engine as of its place."""
    docs, out = book
    for name, text in TENSOR_CHAPTERS.items():
        (docs / name).write_text(text, encoding="utf-8")
    second = out.with_name("tensor.py")
    assert tangle(docs, out) == 0 and tangle(docs, second) == 0
    made, first = second.read_text(), out.read_text()
    assert made.startswith("# tensor.py: a tensor reverse-mode autograd engine in one file")
    assert "# --- docs/03-tensor.md#growing ---\n    def twice" in made and "Thing" not in made
    assert "Box" not in first and first.startswith("# micrograd.py: a scalar")
    second.write_text(made.replace("2 * self.n", "5 * self.n"))
    assert sync(docs, second) == 0, capsys.readouterr().err
    assert "return Box(5 * self.n)" in (docs / "03-tensor.md").read_text()
    assert out.read_text() == first and tangle(docs, second, "--check") == 0
    edit(docs / "03-tensor.md", "twice().n == 6", "twice().n == 15")
    edit(docs / "04-after.md", "twice().n == 2", "twice().n == 5")
    for name in TENSOR_CHAPTERS:
        notebook = run_all(docs / name)
        assert notebook.failure is None and notebook.next == len(notebook.cells), notebook.failure
