"""The book in WebKit (Safari's engine) as WebKitGTK: Debian's WebKitWebDriver drives its
MiniBrowser in an Xvfb display through Selenium, one browser for the module, in
test_firefox.py's steps. Served and from the unzipped archive: a Run (Python's first start,
kept), then a new page restored from it: served the lab's step, from disk learner mode's
Check (its files come through the worker's fetch). What Chromium proves is not repeated.
"""

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers.browser import skeleton_table, unzipped_book
from tests.helpers.site import missing
from tests.site.test_firefox import VALUE_CHAPTER, Firefox, first_start, lab_step, learner_check
from tools.site.learner import PAGE as LEARNER_PAGE

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("runtime")]
pytestmark.append(pytest.mark.filterwarnings("ignore:setting remote_server_addr"))  # Selenium's

WAIT = 300  # s: Python's start, or a check, on a busy machine
FAILED = """[...document.querySelectorAll('.notebook-failure, .lab-problem, .learner-status')]
    .map(e => e.textContent).filter(t => / could not |Python stopped/.test(t))"""


@pytest.fixture(scope="module")
def webkit():
    """WebKitGTK's MiniBrowser, driven by Selenium, on an X display of its own (Xvfb)."""
    driver = shutil.which("WebKitWebDriver")
    browsers = sorted(Path("/usr/lib").glob("*/webkit2gtk-4.*/MiniBrowser"))
    if not (driver and browsers and shutil.which("Xvfb") and importlib.util.find_spec("selenium")):
        missing("WebKitGTK is missing: apt-get install webkit2gtk-driver xvfb (and selenium)")
    from selenium.webdriver import WebKitGTK, WebKitGTKOptions, WebKitGTKService

    command = ["Xvfb", "-displayfd", "1", "-nolisten", "tcp"]  # it says which display it took
    xvfb = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    options = WebKitGTKOptions()
    options.binary_location = str(browsers[-1])
    options.add_argument("--automation")
    display = {**os.environ, "DISPLAY": ":" + xvfb.stdout.readline().decode().strip()}
    # JavaScriptCore's optimizing WebAssembly tier (OMG) off: compiling Python's hot code with
    # it cost more CPU than it saved in these short runs (a start and a restore: 32 CPU-s with
    # it, 19 without). What the page does is the same in either tier.
    display["JSC_useOMGJIT"] = "false"
    try:
        browser = WebKitGTK(options=options, service=WebKitGTKService(driver, env=display))
        browser.set_script_timeout(WAIT)
        yield WebKit(browser)
        browser.quit()
    finally:
        xvfb.terminate()
        xvfb.wait()


class WebKit(Firefox):
    """test_firefox.py's steps through Selenium (wait_for, how_python_started: Firefox's)."""

    def __init__(self, driver):
        from selenium.webdriver.support.select import Select

        self.driver = driver
        self.open = self.goto = driver.get
        self.element = lambda selector: driver.find_element("css selector", selector)
        self.click = lambda selector: self.element(selector).click()
        self.select = lambda selector, value: Select(self.element(selector)).select_by_value(value)

    def evaluate(self, expression: str):  # a promise's value, as puppeteer's evaluate gives
        return self.driver.execute_async_script(f"Promise.resolve({expression}).then(arguments[0])")

    def wait(self, expression: str) -> None:
        """Until ``expression`` is true; a failure the page says (FAILED) fails the test."""
        from selenium.webdriver.support.wait import WebDriverWait

        def done(driver):
            value, failed = driver.execute_script(f"return [{expression}, {FAILED}]")
            assert not failed, f"WebKit, waiting for {expression}: the page says {failed}"
            return value

        WebDriverWait(self.driver, WAIT, 0.25).until(done, f"WebKit never had {expression}")

    def fill(self, selector: str, value: str) -> None:
        self.element(selector).clear()
        self.element(selector).send_keys(value)  # a reader's focus, which starts Python


def test_served_a_reader_runs_a_fence_then_trains_the_lab(webkit, site_url):
    first_start(webkit, f"{site_url}/03-backward.html")
    assert lab_step(webkit, site_url) == "restored"  # a new page: restored


def test_from_disk_a_reader_runs_a_fence_then_checks_an_engine(webkit, built_site, tmp_path):
    folder = unzipped_book(built_site, tmp_path)
    first_start(webkit, (folder / "03-backward.html").as_uri())
    table = skeleton_table(tmp_path, VALUE_CHAPTER)  # as the terminal gives it
    learner = (folder / LEARNER_PAGE.replace(".md", ".html")).as_uri()
    assert learner_check(webkit, learner, table) == "restored"  # file: pages share a store
