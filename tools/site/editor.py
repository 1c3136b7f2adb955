"""The code editor of the site's fences and of the learner's engine: CodeMirror 6, bundled.

``tools/site/editor/`` pins what makes the bundle (npm's ``latest`` ``codemirror`` is
CodeMirror 5 under a 6.x number: the pin is 6.0.2); the first build runs ``npm ci`` and
esbuild and keeps the script in the cache, later builds copy it. Without npm the site
builds without Run buttons, as for the Python runtime (tools/site/runtime.py).
"""

import hashlib
import shutil
import tempfile
from pathlib import Path

from tools import ROOT
from tools.site import page_data
from tools.site.runtime import cache_dir, npm, run_tool

SOURCE = ROOT / "tools" / "site" / "editor"  # package.json, package-lock.json, entry.js
SOURCES = ("package.json", "package-lock.json", "entry.js")
CODEMIRROR = "6.0.2"  # as package.json pins it (tests/test_page.py checks the two agree)
EDITOR_DIR = "assets/editor"  # in the built site: editor.js, with editor.css from docs/
SCRIPT = "editor.js"
# Material's instant navigation runs a page's scripts again on each page it swaps in; the
# banner makes the bundle define window.CodeEditor once a tab (each run made a CodeMirror
# of its own that the tab kept: its heap grew about 1.5 MiB a chapter page).
ONCE = "--banner:js=if (!window.CodeEditor)"  # esbuild puts it before the bundle's statement
ESBUILD = ["entry.js", "--bundle", "--minify", "--format=iife", f"--outfile={SCRIPT}", ONCE]
WITHOUT = f"code editor (CodeMirror {CODEMIRROR})"  # runtime.HOW_TO_ENABLE's {what}


class EditorUnavailableError(Exception):
    """The editor cannot be bundled here (no npm, or npm or esbuild failed)."""


def bundle_key(source: Path = SOURCE) -> str:
    """The hash of what makes the bundle: a change to any of the three files, or to
    esbuild's command, makes a new one."""
    digest = hashlib.sha256(" ".join(ESBUILD).encode() + b"\0")
    for name in SOURCES:
        digest.update(name.encode() + b"\0" + (source / name).read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def build_bundle(target: Path, source: Path = SOURCE) -> None:
    """``npm ci`` (integrity checked against the lockfile), then esbuild, into ``target``."""
    command = [npm(EditorUnavailableError), "ci", "--no-audit", "--no-fund", "--silent"]
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        folder = Path(scratch)
        for name in SOURCES:
            shutil.copyfile(source / name, folder / name)
        run_tool(command, folder, "npm ci", EditorUnavailableError)
        esbuild = folder / "node_modules" / ".bin" / "esbuild"
        run_tool([str(esbuild), *ESBUILD], folder, "esbuild", EditorUnavailableError)
        (folder / SCRIPT).replace(target)


def editor_bundle(source: Path = SOURCE) -> Path:
    """The bundled editor script, from the cache or built into it."""
    bundle = cache_dir() / f"editor-{bundle_key(source)}" / SCRIPT
    if not bundle.exists():
        build_bundle(bundle, source)
    return bundle


def install_editor(bundle: Path, site: Path) -> None:
    """Copy the bundled editor into the built site (its stylesheet comes from docs/)."""
    folder = site / EDITOR_DIR
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(bundle, folder / SCRIPT)


def editor_tags(assets: str) -> str:
    """Where a page finds the editor, as page data (page_data.py): notebook.js loads it
    when the reader first reaches for a fence (the pointer over a fence or its Run bar, the
    focus on it, or a Run), and learner.js for the learner's engine, so that a reader who
    only reads never loads its 380 kB. ``assets``: the site's assets/ folder from the page."""
    urls = {"script": f"{assets}/editor/{SCRIPT}", "style": f"{assets}/editor/editor.css"}
    return page_data.element(urls, id="code-editor")
