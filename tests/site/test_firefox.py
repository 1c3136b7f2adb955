"""The book in Debian's firefox-esr with readers' strict file-origin rule, driven over
WebDriver BiDi by puppeteer-core (tests/firefox/, pinned by its lockfile, `npm ci` into the
cache once), one browser for the module: served and from the unzipped archive, a Run, a
restore from the kept start, the lab, learner mode's Check. What Chromium proves of each
(test_from_disk.py and others) is not proved again: only that Firefox gets there cleanly.
"""

import hashlib
import json
import shutil
import subprocess

import pytest
from filelock import FileLock

from tests.helpers.browser import LEARNER_SHOWN, skeleton_table, unzipped_book
from tests.helpers.site import missing
from tests.test_lab import LAB_PAGE
from tools import ROOT
from tools.site.learner import PAGE as LEARNER_PAGE
from tools.site.runtime import RuntimeUnavailableError, cache_dir, npm, run_tool

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("runtime")]

DRIVER = ROOT / "tests" / "firefox"  # package.json, package-lock.json, bridge.mjs
VALUE_CHAPTER = ROOT / "docs" / "02-the-value-atom.md"


class Firefox:
    """One firefox-esr, one page at a time, through bridge.mjs: each call one op."""

    def __init__(self, process: subprocess.Popen):
        self.process = process

    def __getattr__(self, op: str):
        def call(*args):
            self.process.stdin.write(json.dumps([op, *args]) + "\n")
            self.process.stdin.flush()
            answer = self.process.stdout.readline()
            assert answer, f"Firefox's bridge ended (exit {self.process.poll()}): see stderr"
            answer = json.loads(answer)
            assert "error" not in answer, f"Firefox, {op}{args}: {answer['error']}"
            return answer["value"]

        return call

    def wait_for(self, selector: str) -> None:
        self.wait(f"document.querySelector({json.dumps(selector)})")

    def how_python_started(self) -> str:
        self.wait("window.bookPython && window.bookPython.isReady")
        return self.evaluate("window.bookPython.how")


def puppeteer() -> str:
    """The folder whose node_modules has puppeteer-core, `npm ci` into the cache once."""
    lock = (DRIVER / "package-lock.json").read_bytes()
    folder = cache_dir() / f"firefox-tests-{hashlib.sha256(lock).hexdigest()[:16]}"
    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(f"{folder}.lock"):
        if not (folder / "installed").exists():
            for name in ("package.json", "package-lock.json"):
                shutil.copyfile(DRIVER / name, folder / name)
            command = [npm(), "ci", "--no-audit", "--no-fund", "--silent"]
            run_tool(command, folder, "npm ci", RuntimeUnavailableError)
            (folder / "installed").write_text("npm ci done\n", encoding="utf-8")
    return str(folder)


def run_first_fence(firefox: Firefox) -> None:
    """Run on the page's first fence; every fence it ran (it and those before) ran."""
    firefox.wait_for("body[data-notebook=idle]")
    firefox.click(".notebook-bar:not(.notebook-blocked) .notebook-run")
    firefox.wait_for("body[data-notebook=idle] .notebook-bar[data-state=ran]")
    bars = "[...document.querySelectorAll('.notebook-bar[data-state]')].map(b => b.dataset.state)"
    assert set(firefox.evaluate(bars)) <= {"ran", "idle"}


@pytest.fixture(scope="module")
def firefox():
    executable, node = shutil.which("firefox-esr"), shutil.which("node")
    if not (executable and node and shutil.which("npm")):
        missing("Firefox's tier needs firefox-esr, node, npm: apt-get install firefox-esr npm")
    try:
        command = [node, str(DRIVER / "bridge.mjs"), puppeteer(), executable]
    except RuntimeUnavailableError as why:
        missing(f"puppeteer-core for Firefox's tier cannot be had: {why}")
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as p:
        yield Firefox(p)
        p.stdin.close()
        p.wait(timeout=60)


@pytest.fixture(scope="module")
def expected_table(tmp_path_factory) -> str:
    """Learner mode's table for the skeleton engine on chapter 2, as the terminal gives it."""
    return skeleton_table(tmp_path_factory.mktemp("learner"), VALUE_CHAPTER)


def first_start(firefox: Firefox, url: str) -> None:
    """Open chapter 3 at ``url``, Run its first fence: Python starts, and its start is kept."""
    firefox.open(url)
    run_first_fence(firefox)
    assert firefox.how_python_started() == "started"
    kept = "window.bookPython.keeping.then(() => window.bookPython.snapshots.read()).then(k => !!k)"
    assert firefox.evaluate(kept), "Firefox kept no snapshot of the start"


def lab_step(browser: Firefox, site_url: str) -> str:
    """The lab's page, a new page of the book: one step trained; how its Python started."""
    browser.goto(f"{site_url}/{LAB_PAGE.with_suffix('.html').name}")
    browser.wait_for(".lab[data-state=idle]")
    browser.fill(".lab-steps", "1")
    browser.click(".lab-train")
    browser.wait("bookLab.frame?.step === 1 && document.querySelector('.lab[data-state=idle]')")
    assert len(browser.evaluate("window.bookLab.frame.losses")) == 1
    return browser.how_python_started()


def learner_check(firefox: Firefox, url: str, expected_table: str) -> str:
    """Learner mode at ``url`` checks the skeleton on chapter 2: how its Python started."""
    firefox.goto(url)
    firefox.wait_for(".learner[data-state=idle]")
    firefox.select(".learner-chapter", VALUE_CHAPTER.name)
    firefox.click(".learner-check")
    firefox.wait_for('.learner[data-checked="1"]')
    table = firefox.evaluate(LEARNER_SHOWN)
    assert table == expected_table
    return firefox.how_python_started()


def test_served_a_reader_runs_a_fence_trains_the_lab_and_checks(firefox, site_url, expected_table):
    first_start(firefox, f"{site_url}/03-backward.html")
    assert lab_step(firefox, site_url) == "restored"  # a new page: restored
    learner = f"{site_url}/{LEARNER_PAGE.replace('.md', '.html')}"
    assert learner_check(firefox, learner, expected_table) == "restored"
    assert firefox.problems() == [], "the page threw or logged an error in Firefox"


def test_from_disk_a_reader_runs_a_fence_comes_back_and_checks(
    firefox, built_site, tmp_path, expected_table
):
    """From the unzipped archive. The lab is not trained here: from disk it runs as served
    (lab.js), and Chromium trains it from disk (test_from_disk.py); learner mode has files
    of its own from disk (its bundle), so it is checked."""
    folder = unzipped_book(built_site, tmp_path)
    first_start(firefox, (folder / "03-backward.html").as_uri())
    firefox.goto((folder / "03-backward.html").as_uri())  # the reader comes back: restored
    run_first_fence(firefox)
    assert firefox.how_python_started() == "restored"
    # From disk, Firefox keeps a page's storage for that file alone (strict_origin_policy):
    # another page of the book starts Python the plain way, as a reader's Firefox does.
    learner = (folder / LEARNER_PAGE.replace(".md", ".html")).as_uri()
    assert learner_check(firefox, learner, expected_table) == "started"
    assert firefox.problems() == [], "the page threw or logged an error in Firefox"
    refused = "fetch('index.html').then(() => 'fetched', () => 'refused')"
    assert firefox.evaluate(refused) == "refused", "the profile lets a file: page read others"
