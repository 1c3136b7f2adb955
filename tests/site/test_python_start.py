"""Python's start fails safe: a kept start (a memory snapshot, docs/assets/notebook/worker.js)
that cannot be used is dropped without an error, Python starts the plain way, and the page
says so once; storage refused, full or missing costs nothing but the kept start.

The page's own decisions are tested without Python: the worker's script is replaced by one
that answers the page's start message with what it was handed (``handed``). One test starts
Python for real, with a snapshot only Pyodide can refuse.
"""

from __future__ import annotations

import pytest

from tests.helpers.browser import (
    STATUSES_SEEN,
    WORKER,
    assert_clean,
    chapter_page,
    how_python_started,
    kept_start,
    open_tab,
    run,
    states,
)
from tests.helpers.site import PAGES, url_path
from tools.site.runtime import AFRESH_BECAUSE, SNAPSHOT_LIMIT, START_AFRESH

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


@pytest.mark.parametrize("kind", ["build", "large"])
def test_a_snapshot_of_another_build_or_too_large_is_dropped_before_python_starts(
    open_page, site_url, kind
):
    _, tab = chapter_page(open_page, site_url, "03-")
    echoing(tab)
    key = tab.evaluate(KEY) if kind == "large" else "314.0.0-another-build"
    size = SNAPSHOT_LIMIT + 1 if kind == "large" else 1024
    assert tab.evaluate(PLANT, [key, size]) == size
    handed = tab.evaluate(HANDED)
    assert handed == {"kind": "echo", "keep": True, "kept": None}, handed
    assert tab.evaluate("window.bookPython.afresh") == afresh(kind)
    tab.wait_for_function("window.bookPython.snapshots.read().then(kept => kept === null)")
    assert_clean(tab, f"a snapshot dropped ({kind})")


def test_a_snapshot_of_this_build_is_handed_to_the_worker(open_page, site_url):
    _, tab = chapter_page(open_page, site_url, "03-")
    echoing(tab)
    key = tab.evaluate(KEY)
    tab.evaluate(PLANT, [key, 4096])
    handed = tab.evaluate(HANDED)
    assert handed["kept"] == {"key": key, "size": 4096}, handed
    assert tab.evaluate("window.bookPython.afresh") == ""


@pytest.mark.parametrize("storage", sorted(STORAGE))
def test_storage_refused_full_or_missing_starts_python_the_plain_way_quietly(
    browser, site_url, storage
):
    [page] = [p for p in PAGES if p.name.startswith("03-")]
    tab = open_tab(browser, site_url + url_path(page), script=STORAGE[storage])
    try:
        tab.wait_for_selector("body[data-notebook=idle]", state="attached")
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
    finally:
        tab.context.close()


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
