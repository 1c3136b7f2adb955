"""The woven engine's functions, on a small book (the built site is checked in test_site.py)."""

import ast
import re

import pytest

from tools import ROOT
from tools.chapter import Chapter
from tools.site.weave import PAGE, chapter_uses, engine_page, weave

THING = """# 1. Things

```python title="micrograd.py"
import math

LIMIT = 10
_hidden = 1


class Thing:
    def __init__(self, n):
        self.n = n
```

## Arithmetic

```python title="micrograd.py"
    def __add__(self, other):
        return Thing(self.n + other.n)

    __radd__ = __add__

    def exp(self):
        return Thing(math.exp(self.n))

    def __call__(self, k):
        return self.n * k


def half(thing):
    return Thing(thing.n // 2)
```
"""

USER = """# 2. Using things

```python
import math

from micrograd import Thing

t = Thing(2) + Thing(3)
assert t.n == 5 and math.exp(0) == 1
```
"""

CALLER = """# 3. Calling things

```python
import micrograd

thing = micrograd.Thing(4)
print(thing.exp(), thing(2))
```

```python
this is not Python, and is skipped
```
"""

MATH_ONLY = """# 4. Only math

```python
import math as m
import micrograd

print(m.exp(1), half)
```
"""

TORCH = """# 6. Not this engine

```python
import torch
print(torch.ones(1).exp(), half)
```
"""


@pytest.fixture
def docs(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in [
        ("01-things.md", THING), ("02-using.md", USER), ("03-calling.md", CALLER),
        ("04-math.md", MATH_ONLY), ("06-torch.md", TORCH),  # TORCH never imports the engine
    ]:  # fmt: skip
        (docs / name).write_text(text, encoding="utf-8")
    return docs


def used_in(woven):
    return {d.name: [p.name[:2] for p in d.used_in] for d in woven.definitions}


def test_every_public_name_and_method_is_found_with_its_line_and_chunk(docs):
    woven = weave(docs, root=docs.parent)
    lines = woven.tangled.text.splitlines()
    found = {d.name: (d.chunk, lines[d.line - 1].strip()) for d in woven.definitions}
    assert found == {
        "LIMIT": (0, "LIMIT = 10"), "Thing": (0, "class Thing:"),
        "Thing.__init__": (0, "def __init__(self, n):"),
        "Thing.__add__": (1, "def __add__(self, other):"),
        "Thing.__radd__": (1, "__radd__ = __add__"), "Thing.exp": (1, "def exp(self):"),
        "Thing.__call__": (1, "def __call__(self, k):"), "half": (1, "def half(thing):"),
    }  # fmt: skip


def test_uses_are_found_by_name_attribute_operator_call_and_instance(docs):
    assert used_in(weave(docs, root=docs.parent)) == {
        "LIMIT": [],
        "Thing": ["02", "03"],  # imported from micrograd; micrograd.Thing
        "Thing.__init__": ["02"],  # Thing(...) (micrograd.Thing(...) is not a bare call)
        "Thing.__add__": ["02"],  # + in a chapter that uses Thing
        "Thing.__radd__": ["02"],
        "Thing.exp": ["03"],  # thing.exp(), but not math.exp nor m.exp
        "Thing.__call__": [],  # thing = micrograd.Thing(4): not recognised as a Thing
        "half": ["04"],
    }


def test_pages_without_a_number_are_labelled_by_name(docs):
    code = "```python\nimport micrograd\n\nprint(half)\n```\n"
    (docs / "index.md").write_text(f"# Home\n\n{code}", encoding="utf-8")
    (docs / "appendix-more.md").write_text(f"# A.\n\n{code}", encoding="utf-8")
    woven = weave(docs, root=docs.parent)
    (half,) = [d for d in woven.definitions if d.name == "half"]
    assert [woven.label(page) for page in half.used_in] == ["home", "4", "appendix"]
    assert '[appendix](appendix-more.md "A.")' in engine_page(woven)


def test_an_instance_made_by_name_is_seen_when_called(docs):
    chapter = docs / "05-more.md"
    chapter.write_text("# 5\n\n```python\nimport micrograd\nt = Thing(1)\nt(2)\n```\n", "utf-8")
    assert used_in(weave(docs, root=docs.parent))["Thing.__call__"] == ["05"]
    uses = chapter_uses(chapter)
    assert ("t", "Thing") in uses.instances and "t" in uses.called


def test_engine_page_shows_every_chunk_in_order_under_a_link_to_its_section(docs):
    woven = weave(docs, root=docs.parent)
    page = engine_page(woven)
    blocks = re.findall(r"```python\n(.*?)\n```", page, re.DOTALL)
    assert [block + "\n" for block in blocks] == [c.code for c in woven.tangled.chunks]
    links = re.findall(r"^### \[(.*?)\]\((.*?)\)", page, re.MULTILINE)
    opening, arithmetic = ("The chapter's opening", "01-things.md#1-things"), "Arithmetic"
    assert links == [opening, (arithmetic, "01-things.md#arithmetic")]
    assert "`micrograd.py` lines 8-16; defines `LIMIT`, `Thing`, `Thing.__init__`." in page
    assert "Used later in chapters [2](02-using.md" in page
    headings = [h.text for h in Chapter.read(docs / PAGE, page).headings]
    assert headings[0] == "The engine, woven" and headings[-1] == "Index of names"


def test_index_has_a_row_per_name_with_definition_line_and_users(docs):
    woven = weave(docs, root=docs.parent)
    rows = engine_page(woven).split("## Index of names")[1].splitlines()[4:]
    names = [row.split("|")[1].strip(" `") for row in rows]
    assert names == sorted((d.name for d in woven.definitions), key=str.lower)
    (half,) = [row for row in rows if row.startswith("| `half`")]
    line = woven.tangled.text.splitlines().index("def half(thing):") + 1
    assert half == (
        f"| `half` | [chapter 1: Arithmetic](01-things.md#arithmetic) | {line} | "
        '[4](04-math.md "4. Only math") |'
    )


def test_used_in_lines_go_under_the_engine_fences_only(docs):
    from tools.site.prepare import _with_used_in

    woven, chapter = weave(docs, root=docs.parent), docs / "01-things.md"
    out = _with_used_in(THING, Chapter.read(chapter), [woven], pytest.fail).split("\n")
    used = [n for n, line in enumerate(out) if line.startswith('<p class="used-in">')]
    closing = [n for n, line in enumerate(THING.split("\n")) if line == "```"]
    assert len(used) == 2 and [out[n - 2] for n in used] == ["```", "```"]
    assert used == [closing[0] + 2, closing[1] + 4], "each line right under its engine fence"
    first, second = (out[n] for n in used)
    assert first.startswith('<p class="used-in">Defines <code>LIMIT</code>'), first
    assert 'used later in chapters <a href="02-using.html" title="2. Using things">2</a>' in first
    assert '<a href="engine.html#the-chapters-opening">in the whole engine</a>' in first
    assert "used later in chapters" in second and "#arithmetic" in second
    # an output block stays right under its fence, as the site's Run buttons expect
    shown = THING.replace("```\n\n## Arithmetic", "```\n\n```output\n4\n```\n\n## Arithmetic")
    chapter.write_text(shown, encoding="utf-8")
    out = _with_used_in(shown, Chapter.read(chapter), [weave(docs, root=docs.parent)], pytest.fail)
    assert '```output\n4\n```\n\n<p class="used-in">Defines <code>LIMIT' in out


def test_the_real_engine_defines_its_public_api_where_the_index_says():
    woven = weave(ROOT / "docs")
    tree = ast.parse((ROOT / "micrograd.py").read_text(encoding="utf-8"))
    value = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Value")
    methods = {f"Value.{n.name}": n.lineno for n in value.body if isinstance(n, ast.FunctionDef)}
    defined = {d.name: d.line for d in woven.definitions}
    assert methods.items() <= defined.items()
    assert {"Value", "MLP", "softmax_ce", "graph_dot", "dot"} <= defined.keys()
