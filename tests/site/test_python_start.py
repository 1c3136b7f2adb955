"""Python's start fails safe: a kept start (a memory snapshot, docs/assets/notebook/worker.js)
that cannot be used is dropped without an error, Python starts the plain way, and the page
says so once; storage refused, full or missing costs nothing but the kept start. A start
that cannot end never hangs: a runtime file missing from the site (the built site copied,
one file taken away at a time) is named with its HTTP status on the fence, Run stays
usable and the next Run starts again; a start with no word from its worker for the time
tools/site/runtime.py states (START_STALL) fails at one second past it, not at it.

The page's own decisions are tested without Python: the worker's script is replaced by one
that answers the page's start message with what it was handed (``handed``). One test starts
Python for real, with a snapshot only Pyodide can refuse.
"""

import shutil

import pytest

from tests.helpers.browser import (
    RUN_TIMEOUT,
    STATUSES_SEEN,
    WORKER,
    assert_clean,
    chapter_page,
    failure,
    how_python_started,
    kept_start,
    open_tab,
    python_never_comes,
    run,
    states,
)
from tests.helpers.drive import bar, serve
from tools.site.runtime import (
    AFRESH_BECAUSE,
    RUNTIME_DIR,
    RUNTIME_FILES,
    SNAPSHOT_LIMIT,
    START_AFRESH,
    START_PHASES,
    START_STALL,
    START_STALLED,
    START_WAITING,
)

pytestmark = pytest.mark.usefixtures("runtime")

# The worker, replaced: it tells what the page's start message handed it, and nothing more,
# on a channel of its own (the page's Python would take any message of it as a broken one).
ECHO = """onmessage = ({data}) => new BroadcastChannel("start-echo").postMessage({kind: "echo",
  keep: data.keep, kept: data.kept && {key: data.kept.key, size: data.kept.bytes.byteLength}});"""

HANDED = """() => new Promise(resolve => {
  const channel = new BroadcastChannel("start-echo");
  channel.onmessage = ({data}) => { channel.close(); resolve(data); };
  window.bookPython.warm();
})"""

KEY = "bookPage.data(document.getElementById('python-start')).key"

PLANT = """async ([key, size]) => {
  await window.bookPython.snapshots.write(key, new Uint8Array(size));
  return (await window.bookPython.snapshots.read()).bytes.byteLength;
}"""

STORAGE = {  # what the browser does to the page's IndexedDB, before the page's scripts run
    "refused": """IDBFactory.prototype.open = function () {
        const request = {}; setTimeout(() => request.onerror && request.onerror()); return request;
    };""",
    "full": """IDBObjectStore.prototype.put = function () {
        throw new DOMException("the disk is full", "QuotaExceededError");
    };""",
    "missing": "Object.defineProperty(window, 'indexedDB', {value: undefined});",
}


def echoing(tab) -> None:
    echo = {"body": ECHO, "content_type": "text/javascript"}
    tab.context.route(WORKER, lambda route: route.fulfill(**echo))


def afresh(because: str, error: str = "") -> str:
    return START_AFRESH.format(why=AFRESH_BECAUSE[because].format(error=error))


def test_a_snapshot_of_another_build_or_too_large_is_dropped_and_one_of_this_build_handed(
    open_page, site_url
):
    """In one tab, each start after the one before was stopped (bookPython.stop, a fence's
    Stop): python.js's start() reads what is kept afresh each time, as a first start does."""
    _, tab = chapter_page(open_page, site_url, "03-")
    echoing(tab)
    key = tab.evaluate(KEY)  # at the limit, this build's is handed; one byte more is dropped
    for kind, size in [("build", 1024), ("large", SNAPSHOT_LIMIT + 1), ("this", SNAPSHOT_LIMIT)]:
        planted = "314.0.0-another-build" if kind == "build" else key
        assert tab.evaluate(PLANT, [planted, size]) == size
        handed = tab.evaluate(HANDED)
        if kind == "this":
            assert handed["kept"] == {"key": key, "size": size}, handed
            assert tab.evaluate("window.bookPython.afresh") == ""
            continue
        assert handed == {"kind": "echo", "keep": True, "kept": None}, (kind, handed)
        assert tab.evaluate("window.bookPython.afresh") == afresh(kind)
        tab.wait_for_function("window.bookPython.snapshots.read().then(kept => kept === null)")
        tab.evaluate("window.bookPython.stop()")
    assert_clean(tab, "snapshots dropped and handed")


@pytest.mark.parametrize("storage", sorted(STORAGE))
def test_storage_refused_full_or_missing_starts_python_the_plain_way_quietly(
    open_page, site_url, storage
):
    _, tab = chapter_page(open_page, site_url, "03-", script=STORAGE[storage])
    echoing(tab)
    handed = tab.evaluate(HANDED)
    assert handed == {"kind": "echo", "keep": storage != "missing", "kept": None}, handed
    if storage != "missing":  # a snapshot made now is not kept, and nothing says so
        kept = """async key => {
            window.bookPython.receive({kind: "snapshot", key, bytes: new Uint8Array(64)});
            await window.bookPython.keeping;
            return await window.bookPython.snapshots.read();
        }"""
        assert tab.evaluate(kept, tab.evaluate(KEY)) is None
    assert tab.evaluate("window.bookPython.afresh") == ""
    assert_clean(tab, f"storage {storage}")


def test_a_snapshot_pyodide_refuses_is_dropped_and_python_starts_afresh(open_page, site_url):
    """The one test here that starts Python: a snapshot of this build's key whose bytes are
    no snapshot (a truncated or damaged one). Pyodide refuses it; Python starts the plain
    way, the fence runs, the page said why once, and a sound snapshot is kept instead."""
    _, tab = chapter_page(open_page, site_url, "03-")
    key = tab.evaluate(KEY)
    tab.evaluate(PLANT, [key, 1 << 20])
    tab.evaluate(STATUSES_SEEN)
    first = min(states(tab))
    run(tab, first)
    assert states(tab)[first] == "ran", tab.locator(".notebook-failure").all_text_contents()
    assert how_python_started(tab) == "afresh"
    said = afresh("refused", "Snapshot has invalid magic number")
    assert tab.evaluate("window.bookPython.afresh") == said
    statuses = tab.evaluate("window.__statuses")
    assert any(status.startswith(said) for status in statuses), statuses
    kept = kept_start(tab)
    assert kept is not None and kept["key"] == key and kept["size"] > 1 << 20, kept
    assert_clean(tab, "a snapshot Pyodide refused")


@pytest.fixture(scope="module")
def site_copy(built_site, tmp_path_factory):
    """The built site, copied to take files away from, and served: (folder, url)."""
    folder = tmp_path_factory.mktemp("copy") / "site"
    shutil.copytree(built_site, folder)
    with serve(folder) as url:
        yield folder, url


# What the toolbar's and the fences' buttons are: [class, disabled] of each shown.
BUTTONS = """() => [...document.querySelectorAll('.notebook-tools button, .notebook-bar button')]
  .filter((b) => !b.hidden).map((b) => [b.className, b.disabled])"""


def could_not_start(tab, line: int, why: str) -> None:
    """The fence at ``line`` says the start failed, and why; every button is usable."""
    assert states(tab)[line] == "broken", states(tab)
    said = f"Python could not start: {why}. The next Run tries again."
    assert failure(tab, line) == said, failure(tab, line)
    assert bar(tab, line).locator(".notebook-status").text_content() == "Python could not run"
    assert not any(disabled for _, disabled in tab.evaluate(BUTTONS)), tab.evaluate(BUTTONS)


def test_a_runtime_file_missing_is_named_with_its_status_and_the_next_run_starts_again(
    open_page, site_copy
):
    """Each file taken away in turn, in one tab: a Run after a failed start makes a new worker
    as the first does, and each file is asked for again (the server says no-cache). The
    wasm, the one issue 46 found hanging, goes last: put back, Run starts."""
    folder, url = site_copy
    _, tab = chapter_page(open_page, url, "03-")
    first = min(states(tab))
    for name in sorted(RUNTIME_FILES, key=lambda name: name == "pyodide.asm.wasm"):
        missing, aside = folder / RUNTIME_DIR / name, folder / "aside"
        missing.rename(aside)
        before = len(tab.watch.problems)
        try:
            run(tab, first)
            could_not_start(tab, first, f"{RUNTIME_DIR}/{name}: HTTP 404")
        finally:
            aside.rename(missing)
        # What the console has: the file's 404, and what Pyodide's own scripts say of it.
        pyodide = f"/{RUNTIME_DIR}/pyodide."  # pyodide.js, pyodide.asm.mjs
        others = [p for p in tab.watch.problems[before:] if name not in p and pyodide not in p]
        assert not others, f"{name} missing: {others}"
    run(tab, first)
    assert states(tab)[first] == "ran", failure(tab, first)


def test_the_starts_words_go_forward_count_each_phase_and_fail_one_second_past_the_limit(
    browser, site_url
):
    """In a context of its own: the clock it installs is the context's, not the tab's."""
    _, tab = chapter_page(lambda url: open_tab(browser, url), site_url, "03-")
    python_never_comes(tab)  # the worker's script is empty: what it says, the test says
    tab.clock.install(time=0)
    tab.clock.pause_at(1000)  # the page's time moves only when the test says
    first = min(states(tab))
    status = bar(tab, first).locator(".notebook-status")
    bar(tab, first).locator(".notebook-run").click()
    tab.wait_for_selector(f'.notebook-bar[data-line="{first}"][data-state=loading]')
    tab.clock.run_for(2500)
    assert status.text_content() == START_WAITING.format(phase=START_PHASES["begin"], seconds=2)
    phases = list(START_PHASES)
    assert phases.index("download") < phases.index("restore")  # an earlier phase comes late
    for phase in ("restore", "download"):
        tab.evaluate(
            f"bookPython.receive({{kind: 'loading', phase: '{phase}', received: 1, expected: 2}})"
        )
        assert status.text_content() == START_PHASES["restore"] + "…", status.text_content()
    tab.clock.run_for(1000)  # the restore's own first second, not the start's fourth
    assert status.text_content() == START_WAITING.format(phase=START_PHASES["restore"], seconds=1)
    tab.clock.run_for((START_STALL - 1) * 1000)  # at the limit: still starting
    assert states(tab)[first] == "loading", failure(tab, first)
    tab.clock.run_for(1000)  # one second past it
    tab.wait_for_selector("body[data-notebook=idle]", state="attached", timeout=RUN_TIMEOUT)
    stalled = START_STALLED.format(seconds=START_STALL + 1, phase=START_PHASES["restore"])
    could_not_start(tab, first, stalled)
    assert_clean(tab, "a start that never said a word")
    tab.context.close()
