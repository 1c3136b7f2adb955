"""The site's Run buttons, short of a browser (tests/test_browser.py runs them in Chromium).

Which fences the page cannot run (a rule, not a list), the page's pytest.raises against
pytest's own, the kernel's failure reports, the pinned runtime's integrity check and
fetch, and a small site built with and without the runtime.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path

import pytest
import yaml

from tools import page_pytest
from tools.kernel import Kernel
from tools.site_notebook import (
    PYODIDE,
    RUNTIME_FILES,
    RuntimeIntegrityError,
    RuntimeUnavailableError,
    blockers,
    check_integrity,
    fetch_runtime,
    runtime_tarball,
)
from tools.tangle import ROOT, Fence

# -- which fences the page cannot run --------------------------------------------------


def fences(*codes: str, info: str = "python") -> list[Fence]:
    """Python fences of an imaginary chapter, ten lines apart; a code may start with 'INFO|'."""
    made = []
    for n, code in enumerate(codes):
        fence_info, _, code = code.rpartition("|") if "|" in code else (info, "", code)
        made.append(Fence(Path("ch.md"), 10 * n + 2, fence_info, textwrap.dedent(code)))
    return made


@pytest.mark.parametrize(
    "code",
    [
        "import math, random, gc, sys\nfrom collections import Counter",
        "from micrograd import Value\nimport pytest\n\nwith pytest.raises(TypeError):\n"
        "    Value('x')",
        "import tracemalloc\ntracemalloc.start()",
        "text = 'open'\nfile = None\nprint(text.upper())",  # names, not calls
    ],
)
def test_standard_library_engine_and_pytest_run_in_the_page(code):
    assert blockers(fences(code)) == [None]


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("import torch", "imports `torch`"),
        ("from tools.pictures import svg_from_dot", "imports `tools.pictures`"),
        ("import matplotlib.pyplot as plt", "imports `matplotlib.pyplot`"),
        ("import subprocess", "imports `subprocess`"),
        ("from urllib.request import urlopen", "imports `urllib.request`"),
        ("def f():\n    import numpy\n", "imports `numpy`"),  # not only at the top
        ("text = open('data.txt').read()", "reads or writes files (`open`)"),
        ("from pathlib import Path\nPath('x').read_text()", "reads or writes files (`read_text`)"),
    ],
)
def test_other_modules_and_files_do_not(code, reason):
    [found] = blockers(fences(code))
    assert found is not None and reason in found, found


def test_engine_pieces_of_a_class_body_run_in_the_page():
    engine = 'python title="micrograd.py"'
    pieces = fences(
        f"{engine}|class Thing:\n    pass\n",
        f"{engine}|    def double(self):\n        return 2\n",
    )
    assert blockers(pieces) == [None, None]


def test_a_fence_that_needs_what_a_skipped_fence_defines_does_not_run():
    found = blockers(
        fences(
            "from micrograd import Value, graph_dot",
            "import numpy\nfrom micrograd import graph_dot, MLP\nxs = [1.0]\nmodel = MLP(1, [1])",
            "model = MLP(1, [1])\nprint(model(xs[0]))",  # needs MLP and xs
            "print(graph_dot(Value(1.0)))",  # graph_dot was there before the skipped fence
            "xs = [2.0]\nprint(xs)",  # binds xs itself
            "print(xs)",  # ... so from here on xs is there again
        )
    )
    assert found[0] is None and "imports `numpy`" in found[1]
    assert found[2] == "it uses `MLP`, `xs` from the fence at line 11, which the page cannot run"
    assert found[3:] == [None, None, None]


# -- the page's pytest.raises, side by side with pytest's ------------------------------


def _raise(error):
    def block():
        if error is not None:
            raise error

    return block


RAISES_CASES = {
    "raised and matched": (ValueError, "neg", _raise(ValueError("negative base"))),
    "raised, no match asked": (RecursionError, None, _raise(RecursionError())),
    "a subclass": (ArithmeticError, None, _raise(OverflowError("big"))),
    "one of a tuple": ((TypeError, ValueError), None, _raise(TypeError("t"))),
    "raised nothing": (TypeError, None, _raise(None)),
    "raised nothing, tuple": ((TypeError, ValueError), None, _raise(None)),
    "wrong message": (TypeError, "real number", _raise(TypeError("not a str"))),
    "another exception": (TypeError, None, _raise(KeyError("k"))),
}


def _outcome(module, expected, match, block):
    """What a `with module.raises(...)` around ``block`` ends in: the value, or the error."""
    try:
        with module.raises(expected, match=match) as info:
            block()
    except BaseException as error:  # Failed derives from BaseException in both
        return type(error).__name__, str(error)
    return "caught", repr(info.value), info.type


@pytest.mark.parametrize("case", RAISES_CASES, ids=list(RAISES_CASES))
def test_page_raises_behaves_as_pytest_raises(case):
    expected, match, block = RAISES_CASES[case]
    assert _outcome(page_pytest, expected, match, block) == _outcome(pytest, expected, match, block)


def test_page_pytest_says_what_it_lacks():
    with pytest.raises(AttributeError, match=r"pytest.approx: the page's Python has only"):
        page_pytest.approx  # noqa: B018


# -- the kernel's reports, as the page shows them ---------------------------------------


def test_a_failure_report_names_the_chapter_line_and_quotes_it():
    kernel = Kernel("docs/ch.md")
    engine = "class Thing:\n    def grow(self):\n        return 1 / 0\n"
    assert kernel.attempt(engine, 5, engine=True) is None
    report = kernel.attempt("thing = Thing()\nthing.grow()\n", 12, engine=False)
    headline, _, traceback = report.partition("\n\n")
    assert headline == "docs/ch.md:7: ZeroDivisionError: division by zero"
    assert 'File "docs/ch.md", line 13, in <module>' in traceback
    assert "return 1 / 0" in traceback  # quoted from the code that ran
    assert "kernel.py" not in traceback


def test_a_fence_that_does_not_compile_is_reported_at_its_line():
    report = Kernel("docs/ch.md").attempt("x = 1\nif x\n", 20, engine=False)
    assert report.startswith("docs/ch.md:21: SyntaxError: expected ':'"), report


def test_what_a_fence_prints_is_handed_on_as_it_is_printed():
    pieces = []
    kernel = Kernel("docs/ch.md")
    code = "for n in range(3):\n    print(n)\nassert False, 'after the prints'"
    report = kernel.attempt(code, 2, engine=False, echo=pieces.append)
    assert "".join(pieces) == "0\n1\n2\n"
    assert report.startswith("docs/ch.md:4: AssertionError: after the prints")


# -- the pinned runtime ------------------------------------------------------------------


def test_a_tarball_that_is_not_the_pinned_one_is_refused(tmp_path):
    fake = tmp_path / f"pyodide-{PYODIDE}.tgz"
    fake.write_bytes(b"not pyodide")
    with pytest.raises(RuntimeIntegrityError, match=r"is not pyodide@314\.0\.7 as pinned"):
        check_integrity(fake)


def _fake_npm(folder: Path, writes: bytes) -> None:
    """An `npm` that answers `npm pack X --pack-destination DIR` by writing ``writes``."""
    npm = folder / "npm"
    npm.write_text(
        f'#!/bin/sh\nprintf %s "{writes.decode()}" > "$4/pyodide-{PYODIDE}.tgz"\n'  # $4: DIR
    )
    npm.chmod(0o755)


def test_a_fetched_tarball_is_checked_before_it_lands(tmp_path, monkeypatch):
    _fake_npm(tmp_path, b"tampered")
    monkeypatch.setenv("PATH", str(tmp_path))
    target = tmp_path / "cache" / f"pyodide-{PYODIDE}.tgz"
    with pytest.raises(RuntimeIntegrityError):
        fetch_runtime(target)
    assert not target.exists() and list(target.parent.iterdir()) == []


def test_without_npm_there_is_no_runtime(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("MICROGRAD_CACHE", str(tmp_path / "empty"))
    with pytest.raises(RuntimeUnavailableError, match="npm is not installed"):
        runtime_tarball()


# -- a small site, built with and without the runtime ------------------------------------

CHAPTER = """# 1. A chapter

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


def _runtime_or_skip() -> Path:
    try:
        return runtime_tarball()
    except RuntimeUnavailableError as why:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and no Python runtime for the site: {why}", pytrace=False)
        pytest.skip(f"no Python runtime for the site: {why}")


def build_small_site(folder: Path, env: dict[str, str], into="site") -> tuple[Path, str]:
    """Build a two-page site with this repository's mkdocs.yml; return it and the log."""
    docs = folder / "docs"
    for folder_name in ("assets", "stylesheets"):  # what mkdocs.yml's extra_css names
        shutil.copytree(ROOT / "docs" / folder_name, docs / folder_name, dirs_exist_ok=True)
    (docs / "index.md").write_text("# Home\n\n[The chapter](01-a-chapter.md)\n")
    (docs / "01-a-chapter.md").write_text(CHAPTER)
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    config["docs_dir"] = str(docs)
    config["hooks"] = [str(ROOT / hook) for hook in config["hooks"]]
    (folder / "mkdocs.yml").write_text(yaml.safe_dump(config))
    site = folder / into
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml", "-d", into],
        cwd=folder,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **env},
        capture_output=True,
        text=True,
        check=False,
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, f"the small site did not build:\n{log}"
    return site, log


def test_without_npm_the_site_builds_without_run_buttons_and_says_how(tmp_path):
    python_only = str(Path(sys.executable).parent)  # no npm there
    assert shutil.which("npm", path=python_only) is None
    site, log = build_small_site(
        tmp_path, {"PATH": python_only, "MICROGRAD_CACHE": str(tmp_path / "empty-cache")}
    )
    said = [line for line in log.splitlines() if "Run buttons are off" in line]
    assert len(said) == 1, log
    assert "npm is not installed" in said[0] and "apt-get install nodejs npm" in said[0]
    assert "notebook-fences" not in (site / "01-a-chapter.html").read_text(encoding="utf-8")
    assert not (site / "assets" / "pyodide").exists()


def test_with_the_runtime_pages_carry_their_fences_and_build_the_same_twice(tmp_path):
    tarball = _runtime_or_skip()
    first, log = build_small_site(tmp_path, {}, into="first")
    second, _ = build_small_site(tmp_path, {}, into="second")
    assert "Run buttons are off" not in log
    for page in ("index.html", "01-a-chapter.html"):
        assert (first / page).read_bytes() == (second / page).read_bytes(), f"{page} varies"

    html = (first / "01-a-chapter.html").read_text(encoding="utf-8")
    data = re.search(r'<script type="application/json" id="notebook-fences">(.*?)</script>', html)
    assert data is not None, "no fence data in the chapter page"
    page = json.loads(data[1])
    assert page["chapter"].endswith("01-a-chapter.md")
    assert [(f["line"], f["engine"]) for f in page["fences"]] == [
        (4, True),
        (9, False),
        (17, False),
    ]
    assert [bool(f["blocked"]) for f in page["fences"]] == [False, False, True]
    assert "notebook-fences" not in (first / "index.html").read_text(encoding="utf-8")

    with tarfile.open(tarball) as archive:
        for name in RUNTIME_FILES:
            shipped = (first / "assets" / "pyodide" / name).read_bytes()
            assert shipped == archive.extractfile(f"package/{name}").read(), name
    assert sorted(p.name for p in (first / "assets" / "pyodide").iterdir()) == sorted(RUNTIME_FILES)
    for name in ("micrograd.py", "kernel.py", "pytest.py"):
        assert (first / "assets" / "notebook" / name).is_file(), name
