"""A small site built with this repository's mkdocs.yml: with and without the Python runtime."""

import json
import shutil
import sys
import tarfile
from pathlib import Path

from tests.helpers.site import build_small_site, missing
from tools.site import page_data
from tools.site.editor import editor_bundle
from tools.site.runtime import (
    ENGINE_JSON,
    PAGE_ZIP,
    RUNTIME_FILES,
    RuntimeUnavailableError,
    page_zip,
    runtime_tarballs,
)


def _runtime_or_skip() -> dict:
    try:
        return runtime_tarballs()
    except RuntimeUnavailableError as why:
        missing(f"no Python runtime for the site: {why}")


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
    assert not (site / "assets" / "editor" / "editor.js").exists()


def test_with_the_runtime_pages_carry_their_fences(tmp_path):
    tarballs = _runtime_or_skip()
    first, log = build_small_site(tmp_path, {}, into="first")
    assert "Run buttons are off" not in log
    # Two builds in a row are the same bytes (the whole book is built once a run: this small
    # one, with the hooks, fence data, engine chunks and page Python, is built twice).
    second, _ = build_small_site(tmp_path, {}, into="second")
    dated = {"sitemap.xml", "sitemap.xml.gz"}  # these carry the build's date
    built = sorted(p.relative_to(first) for p in first.rglob("*") if p.name not in dated)
    assert built == sorted(p.relative_to(second) for p in second.rglob("*") if p.name not in dated)
    differ = [
        str(name)
        for name in built
        if (first / name).is_file() and (first / name).read_bytes() != (second / name).read_bytes()
    ]
    assert not differ, (
        f"two builds in a row gave different files {differ}: something the site shows is "
        "not a function of the sources (a time, a random id, an unordered set?)"
    )

    html = (first / "01-a-chapter.html").read_text(encoding="utf-8")
    found = page_data.read(html, 'id="notebook-fences"')
    assert len(found) == 1, f"{len(found)} fence data in the chapter page"
    [page] = found
    assert page["chapter"].endswith("01-a-chapter.md")
    assert [(f["line"], f["engine"]) for f in page["fences"]] == [  # the file it builds
        (4, "micrograd.py"),
        (9, ""),
        (17, ""),
    ]
    assert [bool(f["blocked"]) for f in page["fences"]] == [False, False, True]
    assert "notebook-fences" not in (first / "index.html").read_text(encoding="utf-8")

    for package, tarball in tarballs.items():  # Pyodide, and Graphviz for live figures
        with tarfile.open(tarball) as archive:
            for name, place in package.files.items():
                shipped = (first / place).read_bytes()
                assert shipped == archive.extractfile(f"package/{name}").read(), place
    assert sorted(p.name for p in (first / "assets" / "pyodide").iterdir()) == sorted(RUNTIME_FILES)
    assert (first / PAGE_ZIP).read_bytes() == page_zip()  # tools/page/, whole
    chunks = json.loads((first / ENGINE_JSON).read_text(encoding="utf-8"))
    assert [(c["chapter"].rsplit("/", 1)[-1], c["line"]) for c in chunks] == [
        ("01-a-chapter.md", 4),
        ("02-it-grows.md", 14),
        ("03-and-more.md", 4),
    ]
    assert chunks[0]["code"] == page["fences"][0]["code"]
    befores = {
        name: page_data.read(
            (first / name.replace(".md", ".html")).read_text(encoding="utf-8"),
            'id="notebook-fences"',
        )[0]["engine_before"]
        for name in ("01-a-chapter.md", "02-it-grows.md", "03-and-more.md")
    }
    assert befores == {"01-a-chapter.md": 0, "02-it-grows.md": 1, "03-and-more.md": 2}
    # The code editor, on the chapter with fences only, from the site itself: where it is,
    # for notebook.js to load when the reader reaches for a fence, not a script tag.
    assert (first / "assets" / "editor" / "editor.js").read_bytes() == editor_bundle().read_bytes()
    assert page_data.read(html, 'id="code-editor"') == [
        {"script": "assets/editor/editor.js", "style": "assets/editor/editor.css"}
    ]
    assert 'src="assets/editor/editor.js"' not in html
    assert "editor.js" not in (first / "index.html").read_text(encoding="utf-8")
