"""Driving the built site in Chromium: what a clean page is, and a fence's Run bar.

The browser tests (tests/site/test_every_page.py, test_run_buttons.py,
test_engine_in_the_page.py, test_every_fence.py) share these; their fixtures (browser,
open_page, site_url, runtime) are in tests/site/conftest.py; test_every_page.py opens its
tabs with ``open_tab`` itself, one a page.
"""

import json
import re
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

from tests.helpers.drive import bar
from tests.helpers.site import PAGES, url_path
from tools import DOCS, ENGINE
from tools.learn.child import check
from tools.learn.skeleton import skeleton
from tools.learn.table import page_table
from tools.notebook import Notebook
from tools.page import bridge
from tools.publish import archive
from tools.site.page_data import page_fences
from tools.site.runtime import RUNTIME_FILES, START_PHASES, engine_json

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
RUN_TIMEOUT = 300_000  # ms: loading Python, then running a whole chapter, on a busy machine


CHROMIUM = ["--no-sandbox", "--proxy-server=http://127.0.0.1:9"]  # the browser's, the profile's


class Watch:
    """Everything a browser context does that a clean page must not: errors, failed
    requests, and requests to other hosts (refused before they leave: CHROMIUM's proxy).
    It routes nothing: Playwright keeps no HTTP cache for a page that routes requests."""

    def __init__(self, context):
        self.problems: list[str] = []
        self.requested: list[str] = []
        context.on("request", self.request)
        context.on("requestfailed", self.failed)
        context.on("response", self.response)
        context.on("console", self.console)
        context.on("weberror", lambda error: self.problems.append(f"uncaught: {error.error}"))

    @staticmethod
    def local(url: str) -> bool:
        parts = urlsplit(url)
        return parts.scheme in ("data", "blob", "about", "file") or parts.hostname in LOOPBACK

    def request(self, request):
        self.requested.append(request.url)
        if not self.local(request.url):
            self.problems.append(f"request to another host: {request.url}")

    def failed(self, request):
        if self.local(request.url):
            self.problems.append(f"request failed: {request.failure}: {request.url}")

    def response(self, response):
        if response.status >= 400:
            self.problems.append(f"HTTP {response.status}: {response.url}")

    def console(self, message):
        if message.type in ("error", "assert"):
            self.problems.append(f"console.{message.type}: {message.text} {message.location}")


def open_tab(browser, url: str, *, dark: bool = False, phone: bool = False, script: str = ""):
    """A page opened in a fresh browser context (closed with ``tab.context.close()``), its
    requests and errors kept in ``tab.watch`` (``Watch``); ``script`` runs in each page
    before the page's own."""
    context = browser.new_context(
        color_scheme="dark" if dark else "light",
        viewport=PHONE if phone else DESKTOP,
    )
    context.set_default_timeout(30_000)
    if script:
        context.add_init_script(script)
    watch = Watch(context)
    page = context.new_page()
    page.watch = watch
    try:
        page.goto(url, wait_until="load")
    except BaseException:
        context.close()
        raise
    return page


def origin(url: str) -> str:
    return "://".join(urlsplit(url)[:2])  # what the browser keeps storage by: file:// too


def clear(tab, origins, what: str = "all") -> None:
    """Clear what the browser stores for each of ``origins`` (CDP's storage types) in the
    context of ``tab``, as a fresh context has it."""
    cdp = tab.context.new_cdp_session(tab)
    for origin in origins:
        cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": what})
    cdp.detach()


def assert_clean(page, what: str) -> None:
    assert not page.watch.problems, f"{what} in Chromium: {page.watch.problems}"


def editor_text(editor) -> str:
    """The text a code editor holds (``code(tab, line)``, or the learner's .cm-content)."""
    return editor.evaluate("e => CodeEditor.text(CodeEditor.of(e))")


def run(tab, line: int) -> None:
    """Click Run on a fence and wait until the chapter has stopped running. A fence in a
    folded block (checks, a solution) is first unfolded, as a reader would."""
    bar(tab, line).evaluate(
        "b => { for (let d = b.closest('details'); d; d = d.parentElement.closest('details'))"
        " d.open = true; }"
    )
    bar(tab, line).locator(".notebook-run").click()
    tab.wait_for_selector("body[data-notebook=idle]", state="attached", timeout=RUN_TIMEOUT)


def reaches(tab, line: int, state: str) -> None:
    """Wait until the Run bar of the fence at ``line`` says ``state`` (Python may start first)."""
    shown = f'.notebook-bar[data-line="{line}"][data-state={state}]'
    tab.wait_for_selector(shown, timeout=RUN_TIMEOUT)


def states(tab) -> dict[int, str]:
    """Each Run bar's state by fence line: idle, running, ran, failed, not-run, stopped."""
    bars = tab.locator(".notebook-bar:not(.notebook-blocked)").all()
    return {int(b.get_attribute("data-line")): b.get_attribute("data-state") for b in bars}


def printed(tab, line: int) -> str:
    """What the fence printed when it last ran, as the page shows it."""
    result = bar(tab, line).locator("xpath=following-sibling::div[@class='notebook-result'][1]")
    return result.locator(".notebook-printed").text_content()


def failure(tab, line: int) -> str:
    """How the fence failed when it last ran, as the page shows it."""
    result = bar(tab, line).locator("xpath=following-sibling::div[@class='notebook-result'][1]")
    return result.locator(".notebook-failure").text_content()


def chapter_page(open_page, site_url, name: str, **options):
    [page] = [p for p in PAGES if p.name.startswith(name)]
    tab = open_page(site_url + url_path(page), **options)
    tab.wait_for_selector("body[data-notebook=idle]", state="attached")
    return page, tab


def next_chapter_to(tab, page: Path) -> None:
    """Follow the page's "next" links, as a reader would, until ``page`` is shown and its
    Run buttons are set up. Served over HTTP, Material's instant navigation swaps each
    page in: the tab, and its Python, stay."""
    chapter = page_fences(page)["chapter"]
    for _ in range(len(PAGES)):
        if tab.url.endswith(url_path(page)):
            break
        was = tab.url
        tab.locator("a.md-footer__link--next").click()
        tab.wait_for_function("url => location.href !== url", arg=was)
    else:
        raise AssertionError(f"no run of next links from {tab.url} reaches {page.name}")
    tab.wait_for_selector(f'body[data-notebook=idle][data-chapter="{chapter}"]', state="attached")


def walk_results(region) -> list[str]:
    """The "x.grad = ..." line in the title of each of chapter 3's three careless walks, in
    ``region`` (the figure's step-through, drawn by the build or by the reader's code)."""
    walks = [
        region.locator(f'[id="03-careless-walk-cluster-cluster_{k}"] > text') for k in range(3)
    ]
    return [next(t for t in w.all_text_contents() if t.startswith("x.grad = ")) for w in walks]


def requests_for(tab, name: str) -> int:
    """How many times the tab asked for a file named ``name`` (its Watch records them)."""
    return sum(url.rsplit("/", 1)[-1] == name for url in tab.watch.requested)


def fence_with(page: Path, text: str) -> dict:
    """The one python fence of ``page`` whose code contains ``text``."""
    found = [f for f in page_fences(page)["fences"] if text in f["code"]]
    assert len(found) == 1, f"{page.name}: {len(found)} python fences contain {text!r}"
    return found[0]


def assert_loaded_locally(tab) -> None:
    """The runtime came from the site itself, and nothing went elsewhere (Watch refuses it)."""
    for name in RUNTIME_FILES:
        assert any(url.endswith(f"/assets/pyodide/{name}") for url in tab.watch.requested), name


WORKER_PATH = "/assets/notebook/worker.js"  # the script of the page's Python (notebook.js)
WORKER = "**" + WORKER_PATH  # the same, as Playwright's routes and waits match it


def python_workers(tab) -> list:
    return [worker for worker in tab.workers if worker.url.endswith(WORKER_PATH)]


def one_python(tab) -> bool:
    """Does the tab run one Python worker? A worker the page just ended is still listed
    until Playwright hears that it closed, so a second one is waited out for a while."""
    for _ in range(100):
        if len(python_workers(tab)) == 1:
            return True
        tab.wait_for_timeout(50)  # lets Playwright take in the closing worker's event
    return len(python_workers(tab)) == 1


def python_never_comes(tab) -> None:
    """For a test of the page, not of its Python: the worker a reader's reach starts gets an
    empty script, so the page stays as a reader's does while Python starts, and the start's
    8 s of CPU are not spent for nothing (a start stopped once begun still costs 4-5 s)."""
    empty = {"body": "", "content_type": "text/javascript"}
    tab.context.route(WORKER, lambda route: route.fulfill(**empty))


def box_fits(locator, width: int) -> bool:
    box = locator.bounding_box()
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width


def expected_failure(page: Path, tmp_path: Path, old: str, new: str) -> tuple[int, str, int]:
    """Where pytest's runner stops the chapter with ``old`` replaced by ``new``: the failing
    fence's first line, the error's type, and the chapter line its failure names."""
    copy = tmp_path / page.name
    text = page.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{page.name} should contain {old!r} once"
    copy.write_text(text.replace(old, new), encoding="utf-8")
    book = Notebook(copy, book=DOCS)
    book.run_until(len(book.cells))
    assert book.error is not None, f"{page.name} with {new!r} passes under pytest"
    named = int(re.match(rf".*{re.escape(copy.name)}:(\d+): ", book.failure)[1])
    return book.cells[book.next - 1].line, type(book.error).__name__, named


def page_runner(page: Path):
    """The chapter's notebook made as the page's worker makes it (tools/page/bridge.py),
    from the same fence data and engine chunks, run here in CPython."""
    return bridge.open_chapter(json.dumps(page_fences(page)), engine_json(DOCS))


def expected_run_all(page: Path, old: str, new: str) -> dict[int, str]:
    """What Run all shows after a reader replaced ``old`` by ``new`` in one fence of
    ``page``: each runnable fence's state by its first line, as tools/page/run.py decides."""
    runner = page_runner(page)
    [index] = [i for i, cell in enumerate(runner.cells) if old in cell.code]
    last = max(i for i, cell in enumerate(runner.cells) if not cell.blocked)
    runner.run(last, {index: runner.cells[index].code.replace(old, new)}, all=True)
    found = runner.outcomes.items()
    return {runner.cells[i].line: o.state for i, o in found if o.state != "blocked"}


STATUSES_SEEN = """() => {
  window.__statuses = [];
  new MutationObserver(() => {
    const seen = document.querySelectorAll('.notebook-status');
    for (const s of seen) window.__statuses.push(s.textContent);
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""  # evaluate it, then window.__statuses holds every Run bar status shown since


def _phase(words: str) -> re.Pattern:
    """A status of the start's phase worded ``words`` (tools/site/runtime.py): its numbers
    filled in, after what a dropped snapshot says, then "…" and maybe the seconds so far."""
    number = r"[\d.]+"
    filled = re.escape(words).replace(r"\{received\}", number).replace(r"\{expected\}", number)
    return re.compile(rf"(?:.* )?{filled}…(?: \d+ s)?")


PHASES = {name: _phase(words) for name, words in START_PHASES.items()}


def phases_seen(statuses: list[str]) -> list[str]:
    """The phases of Python's start that ``statuses`` (STATUSES_SEEN) went through, in order."""
    seen: list[str] = []
    for status in statuses:
        found = [name for name, pattern in PHASES.items() if pattern.fullmatch(status)]
        if found and (not seen or seen[-1] != found[0]):
            seen.append(found[0])
    return seen


def how_python_started(tab) -> str:
    """Once the tab's Python is ready: "restored" (from the snapshot the browser kept),
    "started" (nothing kept) or "afresh" (what was kept was dropped)."""
    tab.wait_for_function("window.bookPython.isReady", timeout=RUN_TIMEOUT)
    return tab.evaluate("window.bookPython.how")


def kept_start(tab) -> dict | None:
    """The snapshot the tab's browser keeps, once its writing is done: {key, size}, or None."""
    return tab.evaluate(
        """async () => {
            await window.bookPython.keeping;
            const kept = await window.bookPython.snapshots.read();
            return kept && {key: kept.key, size: kept.bytes.byteLength};
        }"""
    )


def unzipped_book(site: Path, folder: Path) -> Path:
    """``site`` zipped as `build --archive` does (less the PDF), unzipped into ``folder``."""
    with zipfile.ZipFile(archive(site, folder / "the-book.zip")) as zipped:
        zipped.extractall(folder)
    return folder / "the-book"


# Learner mode's last Check as the page shows it, read as text: each row of its table (the
# cells that say something, two spaces apart), then the text below the table.
LEARNER_SHOWN = """[...document.querySelectorAll('.learner-rows tr')].map((row) => [...row.cells]
    .map((cell) => cell.textContent).filter(Boolean).join('  ') + '\\n').join('')
    + document.querySelector('.learner-table').textContent"""


def as_shown(rows: dict | None, text: str) -> str:
    """What LEARNER_SHOWN reads, from what Python sent (tools/learn/table.py's page_table)."""
    rows = [] if rows is None else [rows["head"], *rows["body"], rows["foot"]]
    cells = (("".join(part[0] for part in cell) for cell in row.values()) for row in rows)
    return "".join("  ".join(filter(None, row)) + "\n" for row in cells) + text


def skeleton_table(folder: Path, chapter: Path) -> str:
    """Learner mode's table for the skeleton engine on ``chapter``, as LEARNER_SHOWN reads it."""
    mine = folder / ENGINE
    mine.write_text(skeleton(), encoding="utf-8")
    return as_shown(*page_table(check(mine, [chapter]), ENGINE))
