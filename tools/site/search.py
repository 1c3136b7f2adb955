"""Search that works opened from disk: Material's offline plugin, and the shim it needs.

Material's search runs in a Web Worker, which Chromium refuses to start from a ``file://``
page. Its ``offline`` plugin (mkdocs.yml) writes the index also as a script,
``search/search_index.js``, and expects the ``iframe-worker`` shim (squidfunk's, for this
purpose), which runs the worker in a hidden iframe when the page is a ``file://`` one. As
shipped, the plugin loads that shim from unpkg.com; mkdocs.yml names the site's own copy
instead (``extra.polyfills``), and this module puts it there: the npm package pinned by
version and sha512, fetched once by ``npm pack`` into the cache the Python runtime uses
(tools/site/runtime.py), checked on every build. Without npm the site builds without it,
and search works only when the site is served.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from tools.site.runtime import cache_dir

# `npm view iframe-worker@VERSION dist.integrity` gives the pin of another version.
SHIM = "iframe-worker"
SHIM_VERSION = "1.0.4"
SHIM_INTEGRITY = (
    "sha512-"
    "roeaaI+Lg1LJNfgpCjoRe/+WzEjy9+Z08LoEvu85MCPbBjwm+qXz8Ag5U05lHa6V1CysZyGzE0SOkAtSUA5q7Q=="
)
SHIM_FILES = {"shim/index.js": "shim.js", "LICENSE": "LICENSE"}  # in the tarball: in the site
SHIM_DIR = "assets/iframe-worker"  # in the site; mkdocs.yml's extra.polyfills names shim.js
HOW_TO_ENABLE = (
    "Search works only when the site is served: {why}, so the site has no copy of the "
    f"{SHIM} shim that runs it from disk. Install npm and build again to add it."
)


class ShimUnavailableError(Exception):
    """The shim cannot be had here (no npm, or npm failed)."""


class ShimIntegrityError(Exception):
    """A shim tarball is not the one pinned: never use it."""


def _integrity(path: Path) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()


def shim_tarball() -> Path:
    """The pinned shim's tarball, from the cache or fetched into it, checked either way."""
    tarball = cache_dir() / f"{SHIM}-{SHIM_VERSION}.tgz"
    if not tarball.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise ShimUnavailableError("npm is not installed")
        tarball.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=tarball.parent) as folder:
            spec = f"{SHIM}@{SHIM_VERSION}"
            command = [npm, "pack", spec, "--pack-destination", folder, "--silent"]
            try:
                result = subprocess.run(command, capture_output=True, text=True, timeout=300)
            except subprocess.TimeoutExpired:
                raise ShimUnavailableError(f"`npm pack {spec}` took over 5 minutes") from None
            fetched = Path(folder) / tarball.name
            if result.returncode != 0 or not fetched.exists():
                said = (result.stderr.strip().splitlines() or ["no message"])[-1]
                raise ShimUnavailableError(f"`npm pack {spec}` failed ({said})")
            fetched.replace(tarball)
    found = _integrity(tarball)
    if found != SHIM_INTEGRITY:
        raise ShimIntegrityError(
            f"{tarball} is not {SHIM}@{SHIM_VERSION} as pinned in tools/site/search.py (its "
            f"integrity is {found}, the pin is {SHIM_INTEGRITY}); delete it to fetch it again"
        )
    return tarball


def install_shim(tarball: Path, site: Path) -> None:
    """Copy the shim and its licence into the built site."""
    folder = site / SHIM_DIR
    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(tarball) as archive:
        for inside, name in SHIM_FILES.items():
            (folder / name).write_bytes(archive.extractfile(f"package/{inside}").read())
