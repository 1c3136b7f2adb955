"""Every page of the built site in a real browser: Debian's headless Chromium.

The site is served from 127.0.0.1 by a stdlib HTTP server; Chromium is driven with the
DevTools protocol over --remote-debugging-pipe (JSON messages on its file descriptors 3
and 4), so the standard library is enough. Each page must load without console errors
or failed requests, ask nothing of any other host, and show its pictures at a real size.

Skipped where `chromium` is not installed (apt-get install chromium fonts-liberation),
except on CI (CI=true), where that is a failure. Set SITE_SCREENSHOTS=<folder> to also
save a light and a dark screenshot of every page there.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import os
import queue
import re
import shutil
import signal
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from test_site import url_path

from tools.tangle import ROOT, chapters, read_fences, runs_at_build

PAGES = chapters(ROOT / "docs")
HTML_OUTPUT = re.compile(r"""\bhtml=["']?(on|true|yes|1)\b""")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
]
TIMEOUT = 20.0  # seconds for any one page

# What the page shows of its pictures (svg.picture, drawn by tools/pictures.py).
PICTURES_JS = """
[...document.querySelectorAll("article svg.picture")].map(svg => {
  const box = svg.getBoundingClientRect(), style = getComputedStyle(svg);
  const column = svg.closest("article").getBoundingClientRect();
  return {width: box.width, height: box.height, hidden: style.visibility !== "visible",
          overflows: box.right > column.right + 1};
})
"""


class DevTools:
    """A headless Chromium and a DevTools-protocol session with one tab."""

    def __init__(self, binary: str, profile: str):
        import fcntl  # POSIX only, like Debian's chromium

        # Chromium reads commands from its fd 3 and writes replies to its fd 4. Our ends
        # are moved to fds >= 10, out of the way of the child's dup2s onto 3 and 4.
        pipes = (*os.pipe(), *os.pipe())
        command_r, command_w, reply_r, reply_w = (
            fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in pipes
        )
        for fd in pipes:
            os.close(fd)
        self.pid = os.posix_spawn(
            binary,
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_DUP2, command_r, 3),
                (os.POSIX_SPAWN_DUP2, reply_w, 4),
            ],
        )
        os.close(command_r)
        os.close(reply_w)
        self.out = os.fdopen(command_w, "wb", buffering=0)
        self.messages: queue.Queue = queue.Queue()
        self.events: list[dict] = []
        self.next_id = 0
        threading.Thread(target=self._read, args=(reply_r,), daemon=True).start()

    def open_tab(self) -> None:
        """Open the tab that visit() uses, and listen to its page, console and network."""
        target = self.call("Target.createTarget", url="about:blank")
        attached = self.call("Target.attachToTarget", targetId=target["targetId"], flatten=True)
        self.session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=self.session)

    def _read(self, fd: int) -> None:
        buffer = b""
        with os.fdopen(fd, "rb", buffering=0) as pipe:
            while chunk := pipe.read(65536):
                *complete, buffer = (buffer + chunk).split(b"\0")
                for message in complete:
                    self.messages.put(json.loads(message))
        self.messages.put(None)  # the browser has gone

    def _receive(self, deadline: float) -> dict:
        try:
            message = self.messages.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise TimeoutError("Chromium did not answer in time") from None
        if message is None:
            raise RuntimeError("Chromium exited")
        return message

    def call(self, method: str, session: str | None = None, **params) -> dict:
        """Send one command and wait for its result, keeping the events that arrive meanwhile."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        self.out.write(json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def wait_until_settled(self, quiet: float = 0.3) -> None:
        """Wait for the load event, then until no event has arrived for ``quiet`` seconds."""
        deadline = time.monotonic() + TIMEOUT
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            self.events.append(self._receive(deadline))
        while True:
            try:
                self.events.append(self._receive(min(deadline, time.monotonic() + quiet)))
            except TimeoutError:
                if time.monotonic() >= deadline:
                    raise
                return

    def visit(self, url: str) -> list[dict]:
        """Open ``url`` in the tab and return the events of its loading."""
        self.events = []
        self.call("Page.navigate", session=self.session, url=url)
        self.wait_until_settled()
        return self.events

    def evaluate(self, expression: str):
        result = self.call(
            "Runtime.evaluate", session=self.session, expression=expression, returnByValue=True
        )
        return result["result"].get("value")

    def screenshot(self, path: Path, *, dark: bool) -> None:
        """Save the whole page, 1280 pixels wide, in the light or the dark scheme."""
        scheme = [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]
        self.call("Emulation.setEmulatedMedia", session=self.session, features=scheme)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            session=self.session,
            width=1280,
            height=900,
            deviceScaleFactor=1,
            mobile=False,
        )
        self.evaluate("localStorage.clear()")  # Material remembers the last scheme shown
        self.events = []
        self.call("Page.reload", session=self.session)
        self.wait_until_settled()
        image = self.call(
            "Page.captureScreenshot", session=self.session, captureBeyondViewport=True
        )
        path.write_bytes(base64.b64decode(image["data"]))
        self.call("Emulation.clearDeviceMetricsOverride", session=self.session)
        self.call("Emulation.setEmulatedMedia", session=self.session, features=[])
        self.evaluate("localStorage.clear()")

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):
            self.call("Browser.close")
        for _ in range(50):
            if os.waitpid(self.pid, os.WNOHANG) != (0, 0):
                return
            time.sleep(0.1)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)


@pytest.fixture(scope="module")
def browser():
    binary = shutil.which("chromium")
    if binary is None:
        reason = "Debian's chromium is not installed (apt-get install chromium fonts-liberation)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and {reason}", pytrace=False)
        pytest.skip(reason)
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        devtools = DevTools(binary, profile)
        try:
            devtools.open_tab()
            yield devtools
        finally:
            devtools.close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site_url(built_site):
    """The built site, served on a free port of 127.0.0.1."""
    handler = functools.partial(_QuietHandler, directory=str(built_site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def problems(events: list[dict]) -> list[str]:
    """Console errors, uncaught exceptions, failed requests, requests to other hosts."""
    found, urls = [], {}
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            found.append(f"uncaught: {details.get('exception', {}).get('description', details)}")
        elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
            found.append(f"console.{params['type']}: {params['args']}")
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            found.append(f"console: {params['entry']['text']} {params['entry'].get('url', '')}")
        elif method == "Network.requestWillBeSent":
            urls[params["requestId"]] = params["request"]["url"]
            url = urlsplit(params["request"]["url"])
            if url.scheme not in ("data", "blob", "about") and url.hostname != "127.0.0.1":
                found.append(f"request to another host: {params['request']['url']}")
        elif method == "Network.responseReceived" and params["response"]["status"] >= 400:
            found.append(f"HTTP {params['response']['status']}: {params['response']['url']}")
        elif method == "Network.loadingFailed":
            url = urls.get(params["requestId"], params["type"])
            found.append(f"request failed: {params.get('errorText')}: {url}")
    return found


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_page_loads_cleanly_in_chromium(browser, site_url, page):
    found = problems(browser.visit(site_url + url_path(page)))
    assert not found, f"{page.name} in Chromium: {found}"

    drawn = sum(  # picture fences: ```python exec="on" html="1"```
        bool(f.is_python and runs_at_build(f.info) and HTML_OUTPUT.search(f.info))
        for f in read_fences(page)
    )
    pictures = browser.evaluate(PICTURES_JS)
    assert len(pictures) >= drawn, f"{page.name}: {drawn} picture fences, {len(pictures)} shown"
    for picture in pictures:
        assert picture["width"] > 0 and picture["height"] > 0, f"{page.name}: empty {picture}"
        assert not picture["hidden"], f"{page.name}: hidden picture {picture}"
        assert not picture["overflows"], f"{page.name}: picture wider than the text {picture}"

    if folder := os.environ.get("SITE_SCREENSHOTS"):
        Path(folder).mkdir(parents=True, exist_ok=True)
        for dark in (False, True):
            name = f"{page.stem}-{'dark' if dark else 'light'}.png"
            browser.screenshot(Path(folder) / name, dark=dark)
