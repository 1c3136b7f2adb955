"""A small book of two chapters, for the tangler's and sync's tests (the `book` fixture)."""

from pathlib import Path

from tools.notebook import Notebook

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


def make_book(folder: Path) -> tuple[Path, Path]:
    """The two chapters in ``folder``/docs; returns the docs folder and the engine's path."""
    docs = folder / "docs"
    docs.mkdir()
    (docs / "01-thing.md").write_text(CHAPTER, encoding="utf-8")
    (docs / "02-more.md").write_text(MORE, encoding="utf-8")
    return docs, folder / "micrograd.py"


def edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} is not in {path.name} exactly once"
    path.write_text(text.replace(old, new), encoding="utf-8")


def snapshot(docs, out):
    return {p.name: p.read_bytes() for p in [*docs.glob("*.md"), out]}


def run_all(chapter: Path, **options) -> Notebook:
    """The chapter's notebook (``options`` as Notebook takes them), run to its end."""
    notebook = Notebook(chapter, **options)
    notebook.run_until(len(notebook.cells))
    return notebook
