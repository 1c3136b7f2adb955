"""The site's Run buttons, short of a browser (tests/site/test_run_buttons.py: in Chromium).

Which fences the page cannot run (a rule, not a list), the page's pytest.raises against
pytest's own, the kernel's failure reports, and the pinned runtime's integrity check and
fetch (tests/site/test_small_site.py builds a small site with and without it).
"""

import io
import textwrap
from pathlib import Path

import pytest

from tools.chapter import Fence
from tools.notebook import blocked as blockers
from tools.page import pytest as page_pytest
from tools.page.kernel import Kernel
from tools.site.runtime import (
    PACKAGES,
    PYODIDE,
    RuntimeIntegrityError,
    RuntimeUnavailableError,
    check_integrity,
    fetch_runtime,
    runtime_tarball,
)

# -- which fences the page cannot run --------------------------------------------------


def fences(*codes: str, info: str = "python") -> list[Fence]:
    """Python fences of an imaginary chapter, ten lines apart; a code may start with 'INFO|'."""
    made = []
    for n, code in enumerate(codes):
        fence_info, _, code = code.rpartition("|") if "|" in code else (info, "", code)
        made.append(Fence(Path("ch.md"), 10 * n + 2, fence_info, textwrap.dedent(code)))
    return made


@pytest.mark.parametrize("code", [
    "import math, random, gc, sys\nfrom collections import Counter",
    "from micrograd import Value\nimport pytest\n\nwith pytest.raises(TypeError):\n    Value('x')",
    "import tracemalloc\ntracemalloc.start()",
    "text = 'open'\nfile = None\nprint(text.upper())",  # names, not calls
])  # fmt: skip
def test_standard_library_engine_and_pytest_run_in_the_page(code):
    assert blockers(fences(code)) == [None]


@pytest.mark.parametrize(("code", "reason"), [
    ("import torch", "imports `torch`"), ("import subprocess", "imports `subprocess`"),
    ("from tools.pictures import svg_from_dot", "imports `tools.pictures`"),
    ("import matplotlib.pyplot as plt", "imports `matplotlib.pyplot`"),
    ("from urllib.request import urlopen", "imports `urllib.request`"),
    ("def f():\n    import numpy\n", "imports `numpy`"),  # not only at the top
    ("text = open('data.txt').read()", "reads or writes files (`open`)"),
    ("from pathlib import Path\nPath('x').read_text()", "reads or writes files (`read_text`)"),
])  # fmt: skip
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
    assert found[2] == "it uses `MLP`, `xs` from a fence above that imports `numpy`"
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


def test_an_import_of_a_name_the_book_has_not_built_yet_says_so():
    """Python would say micrograd.py lacks the name, though the file has it: the engine as
    built at this place in the book does not, yet."""
    kernel = Kernel("docs/02-x.md")
    with pytest.raises(ImportError) as caught:
        kernel.run("from micrograd import MLP", 3, False, io.StringIO())
    said = "cannot import name 'MLP' from 'micrograd': not yet defined at this place in the book"
    assert str(caught.value) == said
    assert kernel.where(caught.value) == ("docs/02-x.md", 3)


@pytest.mark.parametrize("case", RAISES_CASES, ids=list(RAISES_CASES))
def test_page_raises_behaves_as_pytest_raises(case):
    expected, match, block = RAISES_CASES[case]
    assert _outcome(page_pytest, expected, match, block) == _outcome(pytest, expected, match, block)


def test_page_pytest_says_what_it_lacks():
    with pytest.raises(AttributeError, match=r"pytest.approx: the page's Python has only"):
        page_pytest.approx  # noqa: B018


# -- the pinned runtime ------------------------------------------------------------------


def test_a_tarball_that_is_not_the_pinned_one_is_refused(tmp_path):
    fake = tmp_path / f"pyodide-{PYODIDE}.tgz"
    fake.write_bytes(b"not pyodide")
    with pytest.raises(RuntimeIntegrityError, match=r"is not pyodide@314\.0\.7 as pinned"):
        check_integrity(fake)


@pytest.mark.parametrize("package", PACKAGES, ids=lambda package: package.name)
def test_a_tampered_tarball_in_the_cache_is_refused_at_every_build(tmp_path, monkeypatch, package):
    monkeypatch.setenv("PATH", str(tmp_path))  # no npm: the cache is all there is
    monkeypatch.setenv("MICROGRAD_CACHE", str(tmp_path / "cache"))
    cached = tmp_path / "cache" / package.tarball
    cached.parent.mkdir()
    cached.write_bytes(b"bytes changed since it was fetched")
    with pytest.raises(RuntimeIntegrityError) as refused:
        runtime_tarball(package)
    said = str(refused.value)
    assert str(cached) in said and f"is not {package.spec} as pinned" in said
    assert "delete it to fetch it again" in said


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
