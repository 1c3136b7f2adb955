"""The Python runtime of the site's Run buttons: Pyodide, pinned, checked, served by the site.

* The runtime is Pyodide (CPython compiled to WebAssembly) from npm, pinned below by
  version and sha512 integrity. ``npm pack`` fetches its tarball once into a cache outside
  the repository (``~/.cache/literate-micrograd``, or ``$MICROGRAD_CACHE``); every build
  checks the tarball against the pin and copies the five files Python needs into
  ``assets/pyodide/`` of the site, with the Python files the page runs (the engine, the
  kernel that runs fences, and pytest.raises). The page asks nothing of any other host.
* Without npm (or offline, with an empty cache) the site builds without Run buttons, and
  the build says in one line how to enable them (tools/site/hooks.py).
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from tools import ROOT

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
    "pytest.py": ROOT / "tools" / "site" / "page_pytest.py",
}
HOW_TO_ENABLE = (
    "Run buttons are off: {why}, so the site has no Python runtime (Pyodide {version}). "
    "To turn them on, install npm (apt-get install nodejs npm) and build again with the "
    "npm registry in reach."
)


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
            f"{tarball} is not pyodide@{PYODIDE} as pinned in tools/site/runtime.py "
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
