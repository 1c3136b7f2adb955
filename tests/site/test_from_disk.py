"""The downloaded book runs its Python from disk: the archive `build --archive` writes,
unzipped, opened by double-click (file://) in Chromium with its default rules for file:
pages (no flag or profile that relaxes them).

One reader, one tab, three pages as a reader would open them: chapter 3 runs an edited
fence and draws its figure again (the first start: the files read from the book's folder,
the start kept in the browser), the lab of chapter 10 trains a few steps, and learner mode
checks the skeleton engine and gives a hint (each a new page from disk, so a new Python:
restored from what the first kept).
Nothing is asked of the network, nor of a server: every request is a file:, data: or
blob: URL, and none is refused.
"""

from urllib.parse import urlsplit

import pytest

from tests.helpers.browser import (
    LEARNER_SHOWN,
    STATUSES_SEEN,
    assert_clean,
    fence_with,
    how_python_started,
    kept_start,
    open_tab,
    phases_seen,
    run,
    skeleton_table,
    states,
    unzipped_book,
)
from tests.helpers.drive import code
from tests.test_lab import LAB_PAGE
from tools import ROOT
from tools.site.learner import PAGE as LEARNER_PAGE

pytestmark = pytest.mark.usefixtures("runtime")

FROM_DISK = ("file", "data", "blob")
VALUE_CHAPTER = ROOT / "docs" / "02-the-value-atom.md"
CHAPTER_3 = ROOT / "docs" / "03-backward.md"
PART_II = ROOT / "docs" / "19-matmul-and-cross-entropy.md"


def test_the_unzipped_book_runs_code_the_lab_and_learner_mode_from_disk(
    browser, built_site, tmp_path
):
    folder = unzipped_book(built_site, tmp_path)
    tab = open_tab(browser, (folder / "03-backward.html").as_uri())
    tab.wait_for_selector("body[data-notebook=idle]", state="attached")
    # What the context and the page ask for (a file: URL the worker fetched would be
    # refused, and its Python would not start).
    requested = list(tab.watch.requested)
    tab.on("request", lambda request: requested.append(request.url))

    # Chapter 3: Run on its first fence starts Python, saying each phase as it goes; then a
    # fence edited in its editor runs, and the figure under it is drawn again from the edit
    # (Graphviz, from disk too).
    tab.evaluate(STATUSES_SEEN)
    first = min(states(tab))
    run(tab, first)
    seen = phases_seen(tab.evaluate("window.__statuses"))
    assert seen[:2] == ["read", "unpack"] and seen[-3:] == ["start", "engine", "keep"], seen
    diamond = fence_with(CHAPTER_3, "def diamond(x_value=3.0):")
    code(tab, diamond["line"]).fill(diamond["code"].replace("x_value=3.0", "x_value=2.0"))
    run(tab, diamond["line"])
    ran = states(tab)
    assert set(ran.values()) <= {"ran", "idle"} and ran[diamond["line"]] == "ran", ran
    tab.locator('.steps[data-figure="03-careless-walk"] svg[data-live=yes]').wait_for()
    assert how_python_started(tab) == "started"
    kept = kept_start(tab)
    assert kept is not None, "from disk, the browser kept no snapshot of the start"

    # The lab (a new page, a new Python: restored) trains a few steps.
    tab.goto((folder / LAB_PAGE.with_suffix(".html").name).as_uri(), wait_until="load")
    tab.wait_for_selector(".lab[data-state=idle]")
    tab.locator(".lab-steps").fill("3")
    tab.locator(".lab-train").click()
    tab.wait_for_function("window.bookLab.frame && window.bookLab.frame.step === 3")
    tab.wait_for_selector(".lab[data-state=idle]")
    trained = tab.evaluate("window.bookLab.frame")
    assert len(trained["losses"]) == 3 and trained["status"].startswith("3 of 3 steps done.")
    assert tab.locator(".lab-boundary rect").count() > 0  # the boundary, drawn
    assert how_python_started(tab) == "restored"

    # Part II: a chapter 19 fence runs on both engines; the site's tensor.py is the book's.
    tab.goto((folder / PART_II.with_suffix(".html").name).as_uri(), wait_until="load")
    tab.wait_for_selector("body[data-notebook=idle]", state="attached")
    run(tab, (both := fence_with(PART_II, "from tensor import cross_entropy"))["line"])
    assert states(tab)[both["line"]] == "ran", states(tab)
    assert (folder / "tensor.py").read_bytes() == (ROOT / "tensor.py").read_bytes()

    # Learner mode: Check the skeleton engine (the terminal's very table), then a Hint.
    tab.goto((folder / LEARNER_PAGE.replace(".md", ".html")).as_uri(), wait_until="load")
    tab.wait_for_selector(".learner[data-state=idle]", state="attached")
    tab.select_option(".learner-chapter", VALUE_CHAPTER.name)
    tab.click(".learner-check")
    tab.wait_for_selector('.learner[data-checked="1"]', state="attached", timeout=300_000)
    expected = skeleton_table(tmp_path, VALUE_CHAPTER)
    assert tab.evaluate(LEARNER_SHOWN) == expected
    tab.click(".learner-hint")
    assert tab.locator(".learner-hint-text").text_content().strip()
    assert how_python_started(tab) == "restored"

    asked = {urlsplit(url).scheme for url in requested}
    assert asked <= set(FROM_DISK), [url for url in requested if not url.startswith("file")]
    assert_clean(tab, "the unzipped book")
    tab.context.close()
