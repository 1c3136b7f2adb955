"""The page's runtimes from npm: Pyodide for the Run buttons, Graphviz for live figures.

Each is an npm package pinned by version and sha512, fetched once into a cache outside
the repository and checked on every build, then copied into the site with the Python the
page runs (tools/page/, as one zip) and the book's engine chunks. Without npm the site
builds without Run buttons, and says how to enable them (tools/site/hooks.py).
"""

import base64
import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tools import ROOT
from tools.page import protocol
from tools.tangle import engine_chunks


@dataclass(frozen=True)
class Package:
    """An npm package the page needs, pinned, and which of its files the site serves where."""

    name: str
    version: str
    integrity: str  # `npm view NAME@VERSION dist.integrity`
    files: Mapping[str, str] = field(hash=False)  # file (under package/) -> path in the site

    @property
    def spec(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def tarball(self) -> str:
        """The file name `npm pack` gives it ("@viz-js/viz" -> "viz-js-viz-3.25.0.tgz")."""
        return f"{self.name.lstrip('@').replace('/', '-')}-{self.version}.tgz"


RUNTIME_DIR = "assets/pyodide"  # in the built site
RUNTIME_FILES = (  # all that pure Python needs from the tarball (the rest is maps and types)
    "pyodide.js",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
PYODIDE = "314.0.7"
PYODIDE_PACKAGE = Package(
    "pyodide",
    PYODIDE,
    "sha512-"
    "0YvXxEhfEdpLfb/XkM2BFAeMROq0iMUX2bzzH9pOttyMcWkwq+HbE5uyuGD82LN7y2q+SNvi/6V5JEsOlD2R1A==",
    {name: f"{RUNTIME_DIR}/{name}" for name in RUNTIME_FILES},
)
# Graphviz 14.1.3 with its WebAssembly inside one ES module (1.5 MB). 3.26.0 to 3.31.0 fail
# in Debian's Chromium ("WebAssembly.instantiate(): unknown type form"): keep 3.25.0 until
# tests/site/test_live_figures.py passes with another.
VIZ = Package(
    "@viz-js/viz",
    "3.25.0",
    "sha512-"
    "dM7zAYMdf7mcRz5Kdb+YJb6+qv5Rjk0rPZ18gROdpMrP/3S7RFOp8uxybeiz5RypHrE1zo1vccA8Twh4mIcLZw==",
    {"dist/viz.js": "assets/viz/viz.js"},
)
PACKAGES = (PYODIDE_PACKAGE, VIZ)
# Search from disk: Chromium will not start Material's search worker from a file:// page;
# the iframe-worker shim (mkdocs.yml's extra.polyfills) runs it in a hidden iframe.
SHIM = Package(
    "iframe-worker",
    "1.0.4",
    "sha512-"
    "roeaaI+Lg1LJNfgpCjoRe/+WzEjy9+Z08LoEvu85MCPbBjwm+qXz8Ag5U05lHa6V1CysZyGzE0SOkAtSUA5q7Q==",
    {"shim/index.js": "assets/iframe-worker/shim.js", "LICENSE": "assets/iframe-worker/LICENSE"},
)
# The accessibility checker of the browser tests (tests/site/test_every_page.py): pinned
# and checked as the page's packages are, but only the tests use it. It is not in PACKAGES,
# so the site never ships it; ``files`` names the script the tests put in a page.
AXE = Package(
    "axe-core",
    "4.14.1",
    "sha512-"
    "FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ==",
    {"axe.min.js": "axe.min.js"},
)
NOTEBOOK_DIR = "assets/notebook"  # notebook.js and worker.js (from docs/), and what follows
PAGE_PYTHON = ROOT / "tools" / "page"  # what the page's Python runs: the folder, whole
PAGE_ZIP = f"{NOTEBOOK_DIR}/page.zip"  # ... as tools/page/*.py, unpacked by worker.js
ENGINE_JSON = f"{NOTEBOOK_DIR}/engine.json"  # the engine chunks, in book order
PROTOCOL_JS = f"{NOTEBOOK_DIR}/protocol.js"  # the page's messages: from docs/, filled in
PROTOCOL_IMPORT = 'import "./protocol.js";'  # in worker.js, served; inlined from disk
PROTOCOL_PLACEHOLDER = "/* the site build writes tools/page/protocol.py's FAMILIES here */ null"
WORKER_JS = f"{NOTEBOOK_DIR}/worker.js"  # copied from docs/ by mkdocs
LEARNER_BUNDLE = "assets/learner/book.zip"  # tools/site/learner.py writes it
# From disk (a page opened by double-click, file://) a browser refuses to fetch a file, to
# import a module or to start a worker from a file: URL; it still runs classic <script src>
# files. So each file the page's Python needs is also written as a classic script that
# holds it in base64 (assets/disk/): notebook.js loads those only when the page is opened
# from disk, starts the worker from a data: URL and hands it the bytes. Served, the page
# never asks for them. Site path -> the content type the worker answers it with.
DISK_DIR = "assets/disk"
_TYPES = {".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm"}
_TYPES |= {".zip": "application/zip", ".json": "application/json"}  # by the file's suffix
_ON_DISK = [WORKER_JS, *(f"{RUNTIME_DIR}/{name}" for name in RUNTIME_FILES), PAGE_ZIP]
_ON_DISK += [ENGINE_JSON, VIZ.files["dist/viz.js"], LEARNER_BUNDLE]
DISK_FILES = {path: _TYPES[Path(path).suffix] for path in _ON_DISK}
# What the page says while Python starts, phase by phase, in the order they come (the
# worker names the phase; docs/assets/notebook/python.js fills in the numbers, never goes
# back to an earlier phase, and shows a phase's seconds once it has lasted one).
START_PHASES = {
    "read": "loading Python from the book's folder: file {received} of {expected}",
    "unpack": "unpacking Python",
    "begin": "loading Python",
    "download": "loading Python: {received} of {expected} MB downloaded",
    "restore": "restoring Python as this browser kept it after its first start",
    "start": "starting Python (this takes a few seconds on a slow machine)",
    "engine": "loading the book's engine",
    "keep": "keeping this Python in the browser, so that the next start takes a second",
}
START_WAITING = "{phase}… {seconds} s"  # a phase that has lasted a second or more
START_STALL = 120  # seconds without a word from the starting worker: the start has failed
START_STALLED = "no progress for {seconds} s while {phase}"
# Said once, on the fence that waits, when a kept Python could not be used ({why}).
START_AFRESH = "The Python kept in this browser could not be used ({why}): Python started afresh."
AFRESH_BECAUSE = {  # why, by what the page (build, large) or Pyodide (refused) found
    "build": "it was kept for another build of the book",
    "large": "it is too large to restore",
    "refused": "Pyodide refused it: {error}",
}
# A heap over 30 MiB fails to restore in Pyodide 314 ("offset is out of bounds",
# pyodide#6254). A snapshot is the heap (it grows by 64 KiB pages) and a header of some
# hundred bytes: one larger than this is neither kept nor restored. The page's is 30 MiB.
SNAPSHOT_LIMIT = 30 * 1024 * 1024 + 64 * 1024
HOW_TO_ENABLE = (  # {what}: the runtime, or the code editor (tools/site/editor.py)
    "Run buttons are off: {why}, so the site has no {what}. To turn them on, install npm "
    "(apt-get install nodejs npm) and build again with the npm registry in reach."
)
WITHOUT = f"Python runtime (Pyodide {PYODIDE})"  # HOW_TO_ENABLE's {what}
SEARCH_FROM_DISK = (
    "Search works only when the site is served: {why}, so the site has no copy of the "
    f"{SHIM.name} shim that runs it from disk. Install npm and build again to add it."
)

# Marks each such reason in mkdocs's log (one line each): tools/publish.py says them again, last.
LESSER = "lesser site: "


class RuntimeUnavailableError(Exception):
    """The runtime cannot be had here (no npm, or npm failed): build without Run buttons."""


class RuntimeIntegrityError(Exception):
    """A runtime tarball is not the one pinned: never use it."""


def cache_dir() -> Path:
    """Where fetched runtimes are kept, outside the repository."""
    override = os.environ.get("MICROGRAD_CACHE")
    return Path(override) if override else Path.home() / ".cache" / "literate-micrograd"


def check_integrity(tarball: Path, package: Package = PYODIDE_PACKAGE) -> None:
    """Raise RuntimeIntegrityError unless ``tarball`` has ``package``'s pinned sha512."""
    digest = hashlib.sha512(tarball.read_bytes()).digest()
    found = "sha512-" + base64.b64encode(digest).decode()
    if found != package.integrity:
        raise RuntimeIntegrityError(
            f"{tarball} is not {package.spec} as pinned in tools/site/runtime.py "
            f"(its integrity is {found}, the pin is {package.integrity}); delete it to fetch "
            "it again, or fix the pin"
        )


def npm(error: type[Exception] = RuntimeUnavailableError) -> str:
    """The npm command, or ``error`` saying there is none."""
    found = shutil.which("npm")
    if found is None:
        raise error("npm is not installed")
    return found


def run_tool(command: list, folder: Path, what: str, error: type[Exception]) -> None:
    """Run ``command`` (npm, esbuild) in ``folder``; ``error`` says in one line why it failed."""
    try:
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        raise error(f"`{what}` took over 10 minutes") from None
    if done.returncode != 0:
        said = ((done.stderr or done.stdout).strip().splitlines() or ["no message"])[-1]
        raise error(f"`{what}` failed ({said})")


def fetch_runtime(tarball: Path, package: Package = PYODIDE_PACKAGE) -> None:
    """Fetch ``package`` with `npm pack` into ``tarball``, checked before it lands."""
    npm_path, what = npm(), f"npm pack {package.spec}"
    tarball.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=tarball.parent) as folder:
        command = [npm_path, "pack", package.spec, "--pack-destination", folder, "--silent"]
        run_tool(command, Path(folder), what, RuntimeUnavailableError)
        fetched = Path(folder) / package.tarball
        if not fetched.exists():
            raise RuntimeUnavailableError(f"`{what}` failed (no {package.tarball})")
        check_integrity(fetched, package)
        fetched.replace(tarball)


def runtime_tarball(package: Package = PYODIDE_PACKAGE) -> Path:
    """``package``'s tarball, from the cache or fetched into it, checked either way."""
    tarball = cache_dir() / package.tarball
    if not tarball.exists():
        fetch_runtime(tarball, package)
    check_integrity(tarball, package)
    return tarball


def runtime_tarballs(packages: tuple[Package, ...] = PACKAGES) -> dict[Package, Path]:
    """Each package with its tarball (RuntimeUnavailableError if one cannot be had: by
    default, every package the page needs, and the page then runs nothing)."""
    return {package: runtime_tarball(package) for package in packages}


def install_packages(tarballs: Mapping[Package, Path], site: Path) -> None:
    """Copy the packages' files into the built site, each to its place."""
    for package, tarball in tarballs.items():
        with tarfile.open(tarball) as archive:
            for name, place in package.files.items():
                target = site / place
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(archive.extractfile(f"package/{name}").read())


def zipped(files: Mapping[str, bytes]) -> bytes:
    """A zip of ``files`` (name -> bytes), the same bytes on every build."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return out.getvalue()


def page_files() -> list[str]:
    """What page.zip holds: every Python file of tools/page/, with the package it is in
    (tools/__init__.py: the standard library only), as paths from the repository."""
    files = [ROOT / "tools" / "__init__.py", *sorted(PAGE_PYTHON.rglob("*.py"))]
    return [path.relative_to(ROOT).as_posix() for path in files]


def page_zip() -> bytes:
    """page.zip: ``page_files``, under their paths from the repository."""
    return zipped({name: (ROOT / name).read_bytes() for name in page_files()})


def protocol_script(template: str) -> str:
    """docs/assets/notebook/protocol.js with tools/page/protocol.py's FAMILIES in it."""
    if template.count(PROTOCOL_PLACEHOLDER) != 1:
        raise ValueError(
            f"docs/{PROTOCOL_JS} must hold `{PROTOCOL_PLACEHOLDER}` once, where the site "
            "build writes the messages of tools/page/protocol.py"
        )
    return template.replace(PROTOCOL_PLACEHOLDER, protocol.as_json())


def engine_json(docs: Path) -> str:
    """The book's engine chunks in book order: each chapter page's Python takes the ones
    before it (its fence data says how many) to build the engine as of its place."""
    chunks = [
        {"chapter": c.chapter, "line": c.fence.line, "code": c.fence.code, "file": c.fence.engine}
        for c in engine_chunks(docs)
    ]
    return json.dumps(chunks, indent=0)


def install_runtime(tarballs: Mapping[Package, Path], site: Path, docs: Path) -> None:
    """Copy the runtimes' files and the page's Python into the built site (then, with
    learner mode's bundle in place, ``install_disk_copies``)."""
    install_packages(tarballs, site)
    (site / NOTEBOOK_DIR).mkdir(parents=True, exist_ok=True)
    (site / PAGE_ZIP).write_bytes(page_zip())
    (site / ENGINE_JSON).write_text(engine_json(docs), encoding="utf-8")


def disk_script(path: str) -> str:
    """Where the classic-script copy of the site file ``path`` goes."""
    return f"{DISK_DIR}/{path.removeprefix('assets/').replace('/', '--')}.js"


def disk_copy(path: str, data: bytes) -> str:
    """The classic script that holds ``data`` (the site file ``path``) for a page opened
    from disk: it adds it, in base64, to ``self.bookDisk``."""
    text = base64.b64encode(data).decode("ascii")
    return f'(self.bookDisk = self.bookDisk || {{}})[{json.dumps(path)}] = "{text}";\n'


def worker_for_disk(site: Path) -> bytes:
    """The site's worker.js with its protocol.js written in where it imports it: from disk
    the worker runs from a data: URL, against which "./protocol.js" resolves to nothing."""
    worker = (site / WORKER_JS).read_text(encoding="utf-8")
    if worker.count(PROTOCOL_IMPORT) != 1:
        raise ValueError(f"docs/{WORKER_JS} must hold `{PROTOCOL_IMPORT}` once")
    protocol_js = (site / PROTOCOL_JS).read_text(encoding="utf-8")
    return worker.replace(PROTOCOL_IMPORT, protocol_js).encode("utf-8")


def disk_files(learner: bool) -> list[dict]:
    """Each of ``DISK_FILES`` (learner mode's bundle if ``learner``), as the page loads it."""
    files = [p for p in DISK_FILES if learner or p != LEARNER_BUNDLE]  # path -> its copy
    return [{"path": p, "script": disk_script(p), "type": DISK_FILES[p]} for p in files]


def install_disk_copies(site: Path) -> list[dict]:
    """Write the classic-script copy of each of ``DISK_FILES`` the site has (learner mode's
    bundle, if built); return what the page needs to load them (``start_data``'s ``disk``)."""
    written = [file for file in disk_files(True) if (site / file["path"]).exists()]
    for path, script in ((file["path"], site / file["script"]) for file in written):
        data = worker_for_disk(site) if path == WORKER_JS else (site / path).read_bytes()
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(disk_copy(path, data), encoding="ascii")
    return written


def start_key(docs: Path) -> str:
    """What a kept start (a memory snapshot) is for: this Pyodide, and the Python the page
    imports before a snapshot is made (page.zip, the engine, worker.js's start)."""
    digest = hashlib.sha256(PYODIDE_PACKAGE.integrity.encode())
    for part in (page_zip(), engine_json(docs).encode(), (docs / WORKER_JS).read_bytes()):
        digest.update(hashlib.sha256(part).digest())
    return f"{PYODIDE}-{digest.hexdigest()[:16]}"


def start_data(learner: bool, key: str) -> dict:
    """What a chapter page's scripts need to start Python (the page data #python-start):
    the words of each phase, the copies to load from disk (``learner``: the site has
    learner mode, and so its bundle), and which kept starts it can use (``start_key``)."""
    return {
        "phases": list(START_PHASES.items()),  # in order: page data sorts an object's keys
        "waiting": START_WAITING,
        "stall": START_STALL,
        "stalled": START_STALLED,
        "afresh": START_AFRESH,
        "because": AFRESH_BECAUSE,
        "disk": disk_files(learner),
        "key": key,
        "limit": SNAPSHOT_LIMIT,
    }
