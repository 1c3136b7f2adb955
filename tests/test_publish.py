"""tools/publish.py short of a build: its command line (`python3 tools/dev.py build ARGS` runs
`python -m tools.publish build ARGS`), and the layout of the archive."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest

from tools import ROOT
from tools.publish import PDF, archive

PUBLISH = ROOT / "tools" / "publish.py"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["build", "--arhive"], "build has no option --arhive (its options: --archive)"),
        (["pdf", "--archive"], "pdf has no option --archive (its options: none)"),
    ],
    ids=["build", "pdf"],
)
def test_a_mistyped_option_is_one_line_naming_it_and_the_valid_ones(args, said):
    result = subprocess.run(  # as dev.py runs it
        [sys.executable, "-m", "tools.publish", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result
    assert result.stderr.splitlines() == [f"publish: {said}"], result.stderr
    assert result.stdout == ""  # and nothing built


def test_the_archive_holds_the_site_folder_pdf_included(tmp_path):
    site = tmp_path / "site"
    files = {
        "index.html": b"<html>the book</html>",
        "02-the-value-atom.html": b"<html>a chapter</html>",
        "assets/pyodide/pyodide.js": b"// the runtime",
        PDF: b"%PDF-1.7 the whole book",
    }
    for name, data in files.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_bytes(data)
    out = archive(site, tmp_path / "the-literate-micrograd.zip")
    with zipfile.ZipFile(out) as zipped:
        held = {name: zipped.read(name) for name in zipped.namelist()}
    assert held == {f"the-literate-micrograd/{name}": data for name, data in files.items()}, (
        "the zip should hold every file of the site, PDF included, under one folder named "
        "after it (README: Publish it)"
    )
