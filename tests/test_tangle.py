"""The tangler: byte-stable output, a drift check, refusal to destroy hand edits, clear errors."""

import shutil

import pytest

from tools.tangle import ROOT, main, read_fences, tangle

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

```python title="micrograd.py"
    def double(self):
        return Thing(2 * self.n)
```

```python
assert Thing(2).double().n == 4
```
"""


@pytest.fixture
def book(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "01-thing.md").write_text(CHAPTER, encoding="utf-8")
    return docs, tmp_path / "micrograd.py"


def run(docs, out, *flags):
    return main(["--docs", str(docs), "--out", str(out), *flags])


def test_output_has_header_and_markers_and_is_byte_stable(book, capsys):
    docs, out = book
    assert run(docs, out) == 0
    first = out.read_bytes()
    assert run(docs, out) == 0
    assert "up to date" in capsys.readouterr().out
    assert out.read_bytes() == first
    text = first.decode()
    assert (
        text.startswith("# micrograd.py:") and "GENERATED" in text and "do not edit" in text.lower()
    )
    assert "# --- docs/01-thing.md:6 ---\nclass Thing:" in text
    assert "    # --- docs/01-thing.md:18 ---\n    def double(self):" in text
    namespace = {}
    exec(text, namespace)
    assert namespace["Thing"](3).double().n == 6


def test_check_mode_reports_a_stale_engine_with_a_diff(book, capsys):
    docs, out = book
    run(docs, out)
    assert run(docs, out, "--check") == 0
    chapter = docs / "01-thing.md"
    chapter.write_text(chapter.read_text().replace("2 * self.n", "3 * self.n"))
    capsys.readouterr()
    assert run(docs, out, "--check") == 1
    captured = capsys.readouterr()
    assert "-        return Thing(2 * self.n)" in captured.out
    assert "+        return Thing(3 * self.n)" in captured.out
    assert "is stale" in captured.err


def test_refuses_to_overwrite_a_hand_edit_unless_forced(book, capsys):
    docs, out = book
    run(docs, out)
    edited = out.read_text().replace("self.n = n", "self.n = n  # my fix")
    out.write_text(edited)
    chapter = docs / "01-thing.md"
    chapter.write_text(chapter.read_text().replace("2 * self.n", "3 * self.n"))
    capsys.readouterr()

    assert run(docs, out) == 1
    captured = capsys.readouterr()
    assert "refusing to overwrite" in captured.err and "--force" in captured.err
    assert "my fix" in captured.out  # the diff shows what would be lost
    assert out.read_text() == edited  # nothing lost

    assert run(docs, out, "--check") == 1
    assert "edited by hand" in capsys.readouterr().err

    assert run(docs, out, "--force") == 0
    assert "my fix" not in out.read_text() and "3 * self.n" in out.read_text()


def test_invalid_engine_chunk_is_reported_with_chapter_and_line(book, capsys):
    docs, out = book
    chapter = docs / "01-thing.md"
    chapter.write_text(chapter.read_text().replace("return Thing(2 * self.n)", "return Thing(2 *"))
    assert run(docs, out) == 2
    err = capsys.readouterr().err
    assert "docs/01-thing.md:" in err and "not valid Python" in err
    line = int(err.split("docs/01-thing.md:")[1].split(":")[0])
    assert "return Thing(2 *" in chapter.read_text().splitlines()[line - 1]
    assert not out.exists()


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


def test_fences_are_read_as_commonmark(book):
    docs, _ = book
    fences = read_fences(docs / "01-thing.md")
    assert [f.line for f in fences] == [6, 14, 18, 23]
    assert fences[0].code.startswith("class Thing:")
