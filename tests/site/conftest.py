"""Fixtures of the site's tests: the site, built once per session, and one browser.

Every test in this folder builds, serves or opens the site, so each is marked `site`:
`python3 tools/dev.py check` (-m "not site") leaves them out. Those that drive Chromium are
also marked `browser`: what they test runs in the page (its JavaScript, and Pyodide's
Python), not in the Python that runs pytest, so .ci/run leaves them out on the oldest one.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock

from tests.helpers import run_text
from tests.helpers.browser import CHROMIUM, DESKTOP, PHONE, WORKER, Watch, clear, origin
from tests.helpers.drive import serve
from tests.helpers.site import build_small_site, missing
from tools import ROOT
from tools.site.runtime import RUNTIME_FILES

HERE = Path(__file__).parent


@pytest.hookimpl(tryfirst=True)  # before -m deselects by mark
def pytest_collection_modifyitems(items):
    for item in items:
        if HERE in item.path.parents:
            item.add_marker("site")
            if "browser" in item.fixturenames:  # it drives Chromium (open_page needs it too)
                item.add_marker("browser")


def build_site(site: Path) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` into ``site``; the result also carries ``.site``."""
    result = run_text(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=False,
    )
    result.site = site
    return result


@pytest.fixture(scope="session")
def site_builder():
    """build_site itself, for a test that needs a build of its own."""
    return build_site


def once_a_run(tmp_path_factory, name: str, make) -> dict:
    """``make(folder)``'s record (a dict that JSON can hold), made once per test run: under
    pytest-xdist the first process to need it makes it, in a folder every process of the
    run shares, and the others wait for it and read the same record."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return make(tmp_path_factory.mktemp(name))
    shared = tmp_path_factory.getbasetemp().parent
    record = shared / f"{name}.json"
    with FileLock(shared / f"{name}.lock"):
        if not record.exists():
            folder = shared / name
            folder.mkdir(exist_ok=True)  # a process before may have failed in it
            record.write_text(json.dumps(make(folder)), encoding="utf-8")
    return json.loads(record.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def site_build(tmp_path_factory) -> subprocess.CompletedProcess:
    """The site, built once per test run into a temporary folder (``once_a_run``)."""

    def make(folder: Path) -> dict:
        done = build_site(folder / "site")
        kept = {"args": done.args, "returncode": done.returncode}
        return kept | {"stdout": done.stdout, "stderr": done.stderr, "site": str(done.site)}

    kept = once_a_run(tmp_path_factory, "site-build", make)
    result = subprocess.CompletedProcess(
        kept["args"], kept["returncode"], kept["stdout"], kept["stderr"]
    )
    result.site = Path(kept["site"])
    return result


@pytest.fixture(scope="session")
def small_site(tmp_path_factory) -> Path:
    """A small site (tests/helpers/site.py), built once per test run: a chapter with what
    no real chapter needs, and two more that go on building its class."""
    kept = once_a_run(
        tmp_path_factory, "small-site", lambda f: {"site": str(build_small_site(f, {})[0])}
    )
    return Path(kept["site"])


@pytest.fixture(scope="session")
def built_site(site_build) -> Path:
    """The folder of the built site. If the build failed, test_site_builds_strictly says why
    (once), and every test that needs the site is skipped with a pointer to it."""
    if site_build.returncode != 0:
        pytest.skip("the site did not build: see the failure of test_site_builds_strictly")
    return site_build.site


@pytest.fixture(scope="session")
def site_url(built_site):
    """The built site, served once for the session."""
    with serve(built_site) as url:
        yield url


@pytest.fixture(scope="session")
def runtime(built_site) -> None:
    """The built site has the Python runtime (tools/site/runtime.py could fetch it)."""
    if not (built_site / "assets" / "pyodide" / RUNTIME_FILES[0]).exists():
        reason = "the site was built without its Python runtime: is npm installed?"
        missing(reason)


@pytest.fixture(scope="session")
def kept_context(browser, tmp_path_factory):
    """open_page's tabs: one Chromium profile a test process, whose HTTP cache, and with it
    V8's code cache of Pyodide's wasm and the page's scripts, outlives a test: a test's first
    visit costs what a reader's second does (a Python start 2.5 CPU-s less, a load 0.8).
    Its keeper tab (the first) has the Watch, and ``origins``: those its tabs have asked."""
    profile = browser.browser_type.launch_persistent_context(
        tmp_path_factory.mktemp("profile"), executable_path=shutil.which("chromium"), args=CHROMIUM
    )
    keeper, keeper.origins = profile.pages[0], {"file://"}
    keeper.watch = Watch(profile)
    profile.on("request", lambda request: keeper.origins.add(origin(request.url)))
    yield keeper
    profile.close()


@pytest.fixture
def open_page(browser, request):  # browser: what marks a test "browser"
    """Open a page in a tab of kept_context: open_page(url, dark=, phone=, script=), its
    Watch emptied. With kept=True, the tab finds the Python start the tabs before it kept
    (a restore: 1.5 CPU-s, not 5); else every origin's storage is cleared first, as a fresh
    context has it, so open it before any other of the test. After the test, what the tab
    leaves to the next goes: readers' edits (localStorage) and routes."""
    tabs, keeper = [], request.getfixturevalue("kept_context")

    def open_(url: str, *, dark: bool = False, phone: bool = False, kept=False, script=""):
        if not kept:
            assert all(tab.is_closed() for tab in tabs), "a fresh tab clears the others' storage"
            clear(keeper, keeper.origins)
        tabs.append(tab := keeper.context.new_page())
        tab.watch = keeper.watch
        tab.watch.problems.clear()
        tab.watch.requested.clear()
        tab.set_viewport_size(PHONE if phone else DESKTOP)
        tab.emulate_media(color_scheme="dark" if dark else "light")
        if script:
            tab.add_init_script(script)
        tab.goto(url, wait_until="load")
        return tab

    yield open_
    for tab in tabs:
        if not tab.is_closed():
            tab.evaluate("async () => { await window.bookPython?.keeping; }")  # the snapshot
            clock = "tab.clock stays on every later tab: install it in an open_tab(browser, url)"
            assert not tab.evaluate("'__pwClock' in window"), clock
            tab.close()
    keeper.context.unroute(WORKER)  # python_never_comes's
    clear(keeper, {origin(tab.url) for tab in tabs}, "local_storage")
