"""What the site's tests share: where pages land, a small site, a file server, math checks."""

import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from latex2mathml import commands

from tests.helpers import run_text
from tools import ENGINES, ROOT
from tools.chapter import chapters
from tools.site.weave import PAGE, page_for

PAGES = chapters(ROOT / "docs")  # index.md first, then the chapters in reading order
ENGINE_PAGE = Path(PAGE)  # generated while the site builds: the woven engines, last
ENGINE_PAGES = [Path(page_for(engine)) for engine in ENGINES]  # engine.md, tensor-engine.md
SITE_PAGES = [*PAGES, *ENGINE_PAGES]
PRINT_PAGE = Path("print_page.html")  # the whole book on one page (tools/site/prepare.py)


def missing(reason: str):
    """What a test needs is not on this machine (``reason`` says what to install): under
    CI=true the test fails, elsewhere it is skipped."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)


def url_path(page: Path) -> str:
    """Where a chapter lands on the site, from its root: ``/index.html``,
    ``/02-the-value-atom.html``. mkdocs.yml sets ``use_directory_urls: false`` so that
    links work from ``file://`` too.
    """
    return f"/{page.stem}.html"


def built_file(site: Path, page: Path) -> Path:
    """The HTML file of ``page`` in the built ``site``."""
    return site / url_path(page).lstrip("/")


# --- a small site, built with this repository's mkdocs.yml -----------------------------

SMALL_CHAPTER = """# 1. A chapter

```python title="micrograd.py"
class Thing:
    pass
```

```python
print("</script> stays inside the data")
```

```output
</script> stays inside the data
```

```python
import torch
```
"""


# Two more chapters go on building the class of the first: each runs with the engine as it
# stands at its place (chapter 2's first fence sees no `double` yet), and a traceback names
# the chapter that wrote the failing code.
GROWING_CHAPTERS = {
    "02-it-grows.md": """# 2. It grows

```python
from micrograd import Thing

print(hasattr(Thing, "double"))
```

```output
False
```

```python title="micrograd.py"
    def double(self):
        return 2 * self.size()
```
""",
    "03-and-more.md": """# 3. And more

```python title="micrograd.py"
    def size(self):
        return 21
```

```python
print(Thing().double())
```

```output
42
```
""",
}


def build_small_site(folder: Path, env: dict[str, str], into="site") -> tuple[Path, str]:
    """Build a small site with this repository's mkdocs.yml: a home page and three chapters
    whose engine fences build one class; return it and the log."""
    docs = folder / "docs"
    for folder_name in ("assets", "stylesheets"):  # what mkdocs.yml's extra_css names
        shutil.copytree(ROOT / "docs" / folder_name, docs / folder_name, dirs_exist_ok=True)
    # Math, so that its font is cut down to what the page shows (tools/site/mathfont.py).
    (docs / "index.md").write_text("# Home\n\n[The chapter](01-a-chapter.md), $\\sum_i x_i$\n")
    (docs / "01-a-chapter.md").write_text(SMALL_CHAPTER)
    for name, text in GROWING_CHAPTERS.items():
        (docs / name).write_text(text)
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    config["docs_dir"] = str(docs)
    config["hooks"] = [str(ROOT / hook) for hook in config["hooks"]]
    config["theme"]["custom_dir"] = str(ROOT / config["theme"]["custom_dir"])
    (folder / "mkdocs.yml").write_text(yaml.safe_dump(config))
    site = folder / into
    result = run_text(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml", "-d", into],
        cwd=folder,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **env},
        check=False,
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, f"the small site did not build:\n{log}"
    return site, log


# --- MathML that reads wrong in a browser ------------------------------------------------

MATHML_NS = "{http://www.w3.org/1998/Math/MathML}"
MATH_ELEMENT = re.compile(r"<math\b.*?</math>", re.DOTALL)
FUNCTION_NAMES = {name.lstrip("\\") for name in commands.FUNCTIONS}  # \cos -> <mi>cos</mi>
APPLY = "\u2061"  # FUNCTION APPLICATION
SIGNS = {"\u2212", "+"}
CLOSERS = set(")]}|\u2016\u27e9!\u2032")
ACCENTS = set("\u02d9\u00a8\u00af^\u02c6~\u02dc\u00b4`\u02d8\u02c7\u02da\u2192")
ROWS = {"math", "mrow", "mstyle", "mtd", "msqrt", "mpadded", "mphantom", "menclose", "semantics"}
SCRIPTS = {"msub", "msup", "msubsup", "munder", "mover", "munderover"}


def _tag(element: ET.Element) -> str:
    return element.tag.removeprefix(MATHML_NS)


def _chars(element: ET.Element) -> str:
    return (element.text or "").strip()


def _is_function_name(element: ET.Element) -> bool:
    tag = _tag(element)
    if tag in SCRIPTS:
        return len(element) > 0 and _is_function_name(element[0])
    name = _chars(element)
    return (tag == "mi" and name in FUNCTION_NAMES) or (
        tag == "mo" and len(name) > 1 and name.isalpha()
    )


def math_slips(mathml: str) -> list[str]:
    """What in one <math> element reads wrong in a browser's MathML layout."""
    slips = []
    for element in ET.fromstring(mathml).iter():
        tag, kids = _tag(element), list(element)
        if tag in {"mi", "mo", "mn"} and len(kids):
            slips.append(f"<{tag}> holds elements (invalid MathML; \\mathrel{{+}}= shows '+ =')")
        if tag == "mover" and len(kids) == 2 and _tag(kids[1]) == "mo":
            accent = _chars(kids[1])
            if accent in ACCENTS and element.get("accent") != "true":
                slips.append(f'accent {accent!r} without accent="true" (drawn tiny, too high)')
            one_letter = _tag(kids[0]) in {"mi", "mn"} and len(_chars(kids[0])) == 1
            if accent in ACCENTS and one_letter and kids[1].get("stretchy") == "true":
                slips.append(f"stretchy accent {accent!r} over one letter (\\bar stretches)")
        if tag not in ROWS:
            continue
        left = None
        for at, kid in enumerate(kids):
            after = kids[at + 1] if at + 1 < len(kids) else None
            if _is_function_name(kid) and after is not None and _chars(after) != APPLY:
                name = "".join(kid.itertext())
                slips.append(f"function {name!r} runs into its argument (no &#x2061;)")
            if _tag(kid) == "mspace":
                continue
            sign = _tag(kid) == "mo" and _chars(kid) in SIGNS
            after_operator = left is None or (_tag(left) == "mo" and _chars(left) not in CLOSERS)
            if sign and after_operator and kid.get("form") != "prefix":
                before = "the start" if left is None else repr(_chars(left))
                slips.append(
                    f'sign {_chars(kid)!r} after {before} lacks form="prefix" '
                    "(spaced as a subtraction)"
                )
            left = kid
    return slips
