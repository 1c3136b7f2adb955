"""The site as a notebook: a Run button on each python fence, Python in the reader's browser.

Named under ``hooks:`` in mkdocs.yml. The hook functions at the bottom are thin; the work
is done by plain functions that a script could call as well.

* The runtime is Pyodide (CPython compiled to WebAssembly) from npm, pinned below by
  version and sha512 integrity. ``npm pack`` fetches its tarball once into a cache outside
  the repository (``~/.cache/literate-micrograd``, or ``$MICROGRAD_CACHE``); every build
  checks the tarball against the pin and copies the five files Python needs into
  ``assets/pyodide/`` of the site. The page asks nothing of any other host, ever.
* Without npm (or offline, with an empty cache) the site builds without Run buttons, and
  the build says in one line how to enable them.
* Each chapter page carries its python fences as JSON (code, first line, engine or not,
  and why the fence cannot run in a browser, if it cannot), read from the chapter with
  tools/tangle.py. docs/assets/notebook/notebook.js puts the controls on the page's
  python code blocks, which are these fences in the same order. The fences run in a Web
  Worker (docs/assets/notebook/worker.js) through tools/kernel.py, the same code that
  runs them under pytest.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import textwrap
from pathlib import Path

if (_root := str(Path(__file__).resolve().parent.parent)) not in sys.path:
    sys.path.insert(0, _root)  # mkdocs imports a hook by its file path: make tools/ importable

from tools.tangle import ROOT, Fence, _relative, read_fences

log = logging.getLogger("mkdocs.hooks.site_notebook")

# The runtime, pinned. To move to another version: `npm view pyodide@VERSION dist.integrity`.
PYODIDE = "314.0.7"
PYODIDE_INTEGRITY = (
    "sha512-"
    "0YvXxEhfEdpLfb/XkM2BFAeMROq0iMUX2bzzH9pOttyMcWkwq+HbE5uyuGD82LN7y2q+SNvi/6V5JEsOlD2R1A=="
)
RUNTIME_FILES = (  # all that pure Python needs from the tarball (the rest is maps and types)
    "pyodide.js",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
RUNTIME_DIR = "assets/pyodide"  # in the built site
NOTEBOOK_DIR = "assets/notebook"  # notebook.js and worker.js (from docs/), and the .py below
PAGE_PYTHON = {  # written into the browser's Python next to the chapter's fences
    "micrograd.py": ROOT / "micrograd.py",
    "kernel.py": ROOT / "tools" / "kernel.py",
    "pytest.py": ROOT / "tools" / "page_pytest.py",
}
HOW_TO_ENABLE = (
    "Run buttons are off: {why}, so the site has no Python runtime (Pyodide {version}). "
    "To turn them on, install npm (apt-get install nodejs npm) and build again with the "
    "npm registry in reach."
)

# Which fences cannot run in the browser. The page has the standard library, the engine
# and pytest.raises (tools/page_pytest.py), and no files, processes, network or screen.
PAGE_MODULES = {"micrograd", "pytest"}
NOT_IN_A_BROWSER = {
    "subprocess", "multiprocessing", "concurrent", "pty", "signal",  # processes
    "socket", "ssl", "http", "urllib", "ftplib", "smtplib", "webbrowser",  # the network
    "tkinter", "turtle", "curses", "readline", "sqlite3", "venv", "ensurepip",
}  # fmt: skip
FILE_CALLS = {"open", "read_text", "write_text", "read_bytes", "write_bytes", "iterdir"}


class RuntimeUnavailableError(Exception):
    """The runtime cannot be had here (no npm, or npm failed): build without Run buttons."""


class RuntimeIntegrityError(Exception):
    """A runtime tarball is not the one pinned: never use it."""


def cache_dir() -> Path:
    """Where fetched runtimes are kept, outside the repository."""
    override = os.environ.get("MICROGRAD_CACHE")
    return Path(override) if override else Path.home() / ".cache" / "literate-micrograd"


def check_integrity(tarball: Path) -> None:
    """Raise RuntimeIntegrityError unless ``tarball`` has the pinned sha512."""
    digest = hashlib.sha512(tarball.read_bytes()).digest()
    found = "sha512-" + base64.b64encode(digest).decode()
    if found != PYODIDE_INTEGRITY:
        raise RuntimeIntegrityError(
            f"{tarball} is not pyodide@{PYODIDE} as pinned in tools/site_notebook.py "
            f"(its integrity is {found}, the pin is {PYODIDE_INTEGRITY}); delete it to fetch "
            "it again, or fix the pin"
        )


def fetch_runtime(tarball: Path) -> None:
    """Fetch the pinned tarball with `npm pack` into ``tarball``, checked before it lands."""
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeUnavailableError("npm is not installed")
    tarball.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=tarball.parent) as folder:
        command = [npm, "pack", f"pyodide@{PYODIDE}", "--pack-destination", folder, "--silent"]
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            why = f"`npm pack pyodide@{PYODIDE}` took over 10 minutes"
            raise RuntimeUnavailableError(why) from None
        fetched = Path(folder) / f"pyodide-{PYODIDE}.tgz"
        if result.returncode != 0 or not fetched.exists():
            said = (result.stderr.strip().splitlines() or ["no message"])[-1]
            raise RuntimeUnavailableError(f"`npm pack pyodide@{PYODIDE}` failed ({said})")
        check_integrity(fetched)
        fetched.replace(tarball)


def runtime_tarball() -> Path:
    """The pinned runtime's tarball, from the cache or fetched into it, checked either way."""
    tarball = cache_dir() / f"pyodide-{PYODIDE}.tgz"
    if not tarball.exists():
        fetch_runtime(tarball)
    check_integrity(tarball)
    return tarball


def install_runtime(tarball: Path, site: Path) -> None:
    """Copy the runtime files and the page's Python files into the built site."""
    runtime = site / RUNTIME_DIR
    runtime.mkdir(parents=True, exist_ok=True)
    with tarfile.open(tarball) as archive:
        for name in RUNTIME_FILES:
            (runtime / name).write_bytes(archive.extractfile(f"package/{name}").read())
    notebook = site / NOTEBOOK_DIR
    notebook.mkdir(parents=True, exist_ok=True)
    for name, source in PAGE_PYTHON.items():
        shutil.copyfile(source, notebook / name)


def _parse(fence: Fence) -> ast.Module | None:
    """The fence's syntax tree (an engine piece of a class body is dedented first)."""
    try:
        return ast.parse(textwrap.dedent(fence.code))
    except SyntaxError:
        return None  # it fails as it would under pytest, when it runs


def _names(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The names a fence binds, and the names it uses without binding them."""
    bound, used = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (used if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
    return bound, used - bound


def _needs(tree: ast.AST) -> str | None:
    """Why this code cannot run in the page by itself (a module or files), or None."""
    standard = set(sys.stdlib_module_names) - NOT_IN_A_BROWSER
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            modules = [node.module or ""] if node.level == 0 else ["(a relative import)"]
        else:
            modules = []
        for module in modules:
            top = module.split(".")[0]
            if top not in standard | PAGE_MODULES:
                return f"it imports `{module}`, which the page's Python does not have"
        if isinstance(node, ast.Call):
            function = node.func
            name = function.id if isinstance(function, ast.Name) else ""
            name = function.attr if isinstance(function, ast.Attribute) else name
            if name in FILE_CALLS:
                return f"it reads or writes files (`{name}`), and the page has none"
    return None


def blockers(fences: list[Fence]) -> list[str | None]:
    """For each python fence of a chapter, why the page cannot run it, or None if it can.

    A fence cannot run in the page if it imports a module other than the standard
    library's (less NOT_IN_A_BROWSER), micrograd and pytest, or if it reads or writes
    files. Nor can a fence that uses a name which only such a fence above it defines.
    """
    reasons: list[str | None] = []
    defined: set[str] = set()  # names that fences the page runs have bound so far
    missing: dict[str, int] = {}  # names only a fence the page skips binds -> its line
    for fence in fences:
        tree = _parse(fence)
        bound, used = _names(tree) if tree else (set(), set())
        reason = None
        if tree is not None:
            reason = _needs(tree)
            lacking = sorted(used & missing.keys())
            if reason is None and lacking:
                names = ", ".join(f"`{name}`" for name in lacking)
                reason = (
                    f"it uses {names} from the fence at line {missing[lacking[0]] - 1}, "
                    "which the page cannot run"
                )
        if reason is None:
            defined |= bound
            for name in bound:
                missing.pop(name, None)
        else:
            for name in bound - defined:
                missing.setdefault(name, fence.line)
        reasons.append(reason)
    return reasons


def page_fences(path: Path) -> dict:
    """What a chapter page's notebook needs: its python fences in order, and its name."""
    fences = [fence for fence in read_fences(path) if fence.is_python]
    return {
        "chapter": _relative(path, ROOT),
        "fences": [
            {
                "line": fence.line,  # of the first line of code
                "code": fence.code,
                "engine": fence.is_engine,
                "blocked": reason,
            }
            for fence, reason in zip(fences, blockers(fences))
        ],
    }


def fences_script(path: Path) -> str:
    """The page's fence data as a JSON script element (the same bytes on every build)."""
    data = json.dumps(page_fences(path), sort_keys=True, ensure_ascii=True)
    data = data.replace("<", "\\u003c")  # no "</script>" can end it early
    return f'<script type="application/json" id="notebook-fences">{data}</script>'


# The hooks. `_runtime` is the checked tarball when this build has a runtime, else None.
_runtime: Path | None = None


def on_config(config):
    global _runtime
    try:
        _runtime = runtime_tarball()
    except RuntimeUnavailableError as why:
        _runtime = None
        log.info(HOW_TO_ENABLE.format(why=why, version=PYODIDE))
    except RuntimeIntegrityError as error:
        from mkdocs.exceptions import PluginError

        raise PluginError(str(error)) from None
    return config


def on_page_content(html, page, **_):
    if _runtime is None or not page.file.abs_src_path:
        return html
    path = Path(page.file.abs_src_path)
    if not any(fence.is_python for fence in read_fences(path)):
        return html
    return html + fences_script(path)


def on_post_build(config, **_):
    if _runtime is not None:
        install_runtime(_runtime, Path(config["site_dir"]))
