"""The book in WebKit (the engine of Safari and of every browser on iOS), as WebKitGTK:
Debian's WebKitWebDriver drives its MiniBrowser in a virtual display (Xvfb), through
Selenium. Served: a fence of chapter 3 runs (Python's first start) and the start is kept.
Not yet here: the book from disk (worker.js now imports from data: URLs, which WebKit takes
there, but the first Run from disk still ends "broken" in WebKitGTK 2.50), the lab, and
learner mode's Check.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("runtime")]

INSTALL = "apt-get install webkit2gtk-driver xvfb, and selenium (the test extra)"
WAIT = 300  # s: Python's start, or a check, on a busy machine


@pytest.fixture(scope="module")
def webkit():
    """WebKitGTK's MiniBrowser, driven by Selenium, on an X display of its own (Xvfb)."""
    driver = shutil.which("WebKitWebDriver")
    browsers = sorted(Path("/usr/lib").glob("*/webkit2gtk-4.*/MiniBrowser"))
    if not (driver and browsers and shutil.which("Xvfb") and importlib.util.find_spec("selenium")):
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and WebKitGTK is missing: {INSTALL}", pytrace=False)
        pytest.skip(f"WebKitGTK is missing: {INSTALL}")
    from selenium import webdriver
    from selenium.webdriver.webkitgtk.options import Options
    from selenium.webdriver.webkitgtk.service import Service

    command = ["Xvfb", "-displayfd", "1", "-nolisten", "tcp"]  # it says which display it took
    xvfb = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    display = ":" + xvfb.stdout.readline().decode().strip()
    options = Options()
    options.binary_location = str(browsers[-1])
    options.add_argument("--automation")
    try:
        browser = webdriver.WebKitGTK(
            options=options, service=Service(driver, env={**os.environ, "DISPLAY": display})
        )
        yield browser
        browser.quit()
    finally:
        xvfb.terminate()
        xvfb.wait()


def until(browser, script: str):
    """Wait until ``script`` (a JavaScript expression) is true; return its value."""
    from selenium.webdriver.support.wait import WebDriverWait

    return WebDriverWait(browser, WAIT, poll_frequency=0.25).until(
        lambda b: b.execute_script(f"return {script}"), f"WebKit never had: {script}"
    )


def started(browser) -> str:
    """How the page's Python started (tests/helpers/browser.py's how_python_started)."""
    return until(browser, "window.bookPython.isReady && window.bookPython.how")


def test_webkit_runs_a_fence_and_keeps_its_start(webkit, site_url):
    idle = "document.body.dataset.notebook === 'idle'"
    webkit.get(f"{site_url}/03-backward.html")
    until(webkit, idle)
    first = "document.querySelector('.notebook-bar:not(.notebook-blocked)')"
    webkit.execute_script(f"{first}.querySelector('.notebook-run').click()")
    until(webkit, f"{first}.dataset.state !== 'idle' && {idle}")
    assert webkit.execute_script(f"return {first}.dataset.state") == "ran"
    assert started(webkit) == "started"
    kept = "window.bookPython.keeping.then(() => window.bookPython.snapshots.read())"
    assert until(webkit, f"{kept}.then(k => k !== null)")
