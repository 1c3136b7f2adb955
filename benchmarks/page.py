"""Time what a reader waits for in the page, in Chromium: outside the test suite.

    python3 tools/dev.py build                      # or any built site in site/
    .venv/bin/python -m benchmarks.page [SITE]     # prints a table; saves nothing
    .venv/bin/python -m benchmarks.page --memory [SITE]   # only the tab's memory
    .venv/bin/python -m benchmarks.page --weight [SITE]   # only the bytes each page loads
    .venv/bin/python -m benchmarks.page --lab [SITE]      # only the two-moons lab
    .venv/bin/python -m benchmarks.page --start [SITE]    # only Python's start (start())

Each mode's measures (in the page, with performance.now(), medians of REPEATS; the tab's
memory from /proc and DevTools' JSHeapUsedSize) and the runs recorded: benchmarks/README.md,
"The page", written once there.

The machine may be shared: look at the load average printed with the results.
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import statistics
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the repository's packages importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.helpers.drive import bar, code, serve
from tools import DOCS, ROOT
from tools.chapter import chapters
from tools.site.runtime import PAGE_ZIP, VIZ

REPEATS = 5


def _diamond_fence() -> dict:
    from tools.site.page_data import page_fences

    fences = page_fences(ROOT / "docs" / "03-backward.md")["fences"]
    [fence] = [f for f in fences if "def diamond(x_value=3.0):" in f["code"]]
    return fence


FIRST_OUTPUT = """line => new Promise(done => {
  const bar = document.querySelector(`.notebook-bar[data-line="${line}"]`);
  const t0 = performance.now();
  new MutationObserver((_, watch) => {
    if (bar.dataset.state === 'ran' || bar.dataset.state === 'failed') {
      watch.disconnect(); done([performance.now() - t0, bar.dataset.state]);
    }
  }).observe(bar, {attributes: true});
  bar.querySelector('.notebook-run').click();
})"""
OPEN_DETAILS = "b => { const d = b.closest('details'); if (d) d.open = true; }"
# Chapter 3 and the two after it, as the footer's "next" links lead (the book's order).
_ORDER = [chapter.name for chapter in chapters(DOCS)]
CHAPTERS = tuple(_ORDER[_ORDER.index("03-backward.md") :][:3])


def _run_first(tab, chapter: str, reach: float | None) -> tuple[float, str]:
    """Once ``chapter`` is shown in ``tab``, the pointer on its first fence's Run bar ``reach``
    seconds before the click (None: never; the page starts Python when it arrives), then a
    click on Run: (ms from the click to "ran" or "failed", which of the two)."""
    from tools.site.page_data import page_fences

    shown = f'body[data-notebook=idle][data-chapter="docs/{chapter}"]'
    tab.wait_for_selector(shown, state="attached")
    first = page_fences(ROOT / "docs" / chapter)["fences"][0]
    if reach is not None:
        bar(tab, first["line"]).hover()
        tab.wait_for_timeout(reach * 1000)
    took, state = tab.evaluate(FIRST_OUTPUT, first["line"])
    return took, state


def python_start(browser, url: str, reach: float) -> tuple[list[tuple[str, float, str]], dict]:
    """(chapter, ms from a click on its first fence's Run to "ran", its state), chapter
    after chapter in one visit; the pointer reaches the Run bar ``reach`` seconds before
    the click (the page starts Python then). And the requests for the worker and Python's
    WebAssembly the visit made, by file name."""
    tab = browser.new_context().new_page()
    requested: list[str] = []
    tab.on("request", lambda request: requested.append(request.url.rsplit("/", 1)[-1]))
    tab.goto(url + "/" + CHAPTERS[0].replace(".md", ".html"))
    times = []
    for k, chapter in enumerate(CHAPTERS):
        if k:
            _follow(tab, "next")
        times.append((chapter, *_run_first(tab, chapter, reach)))
    tab.context.close()
    return times, {name: requested.count(name) for name in ("worker.js", "pyodide.asm.wasm")}


def _browser_processes() -> list[tuple[list[str], bytes]]:
    """The processes started under this one (the browser and all of its; the page's workers
    run in its renderers), each as its /proc/PID/stat fields after the name and its command
    line."""
    parents, found = {}, {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue  # ended meanwhile
        pid = int(stat.parent.name)
        parents[pid], found[pid] = int(fields[1]), (fields, cmdline)

    def ours(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == os.getpid():
                return True
        return False

    return [process for pid, process in found.items() if ours(pid)]


def _browser_cpu() -> float:
    """CPU seconds (user and system) the browser and all its processes have used."""
    ticks = sum(int(f[11]) + int(f[12]) for f, _ in _browser_processes())  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def _memory_now(tab, cdp) -> tuple[float, float]:
    """(MiB resident in the browser's renderer processes, MiB of the page's JavaScript heap
    in use)."""
    cdp.send("HeapProfiler.collectGarbage")
    tab.wait_for_timeout(500)  # let the renderer settle after the collection
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    renderers = [f for f, cmdline in _browser_processes() if b"--type=renderer" in cmdline]
    rss = sum(int(fields[21]) for fields in renderers) * os.sysconf("SC_PAGE_SIZE")
    return rss / 2**20, metrics["JSHeapUsedSize"] / 2**20


def _learner_check(tab) -> None:
    """A Check of chapter 2 in learner mode (the editor holds the skeleton: fast)."""
    tab.wait_for_selector(".learner[data-state=idle]", state="attached")
    done = int(tab.locator(".learner").get_attribute("data-checked") or 0) + 1
    tab.select_option(".learner-chapter", "02-the-value-atom.md")
    tab.click(".learner-check")
    tab.wait_for_selector(f'.learner[data-checked="{done}"]', state="attached", timeout=600_000)


def _follow(tab, way: str) -> None:
    """Follow the footer's "next" or "prev" link, until the page it leads to is shown (its
    footer links back to the page left: instant navigation has swapped it in)."""
    back = {"next": "prev", "prev": "next"}[way]
    was = tab.url
    tab.locator(f"a.md-footer__link--{way}").click()
    shown = f"url => document.querySelector('a.md-footer__link--{back}')?.href === url"
    tab.wait_for_function(shown, arg=was)


def memory(browser, url: str) -> list[tuple[str, float, float, int]]:
    """(step, renderers' RSS MiB, page's JS heap MiB, Python workers) over the visit."""
    from tools.site.learner import PAGE

    tab = browser.new_context().new_page()
    cdp = tab.context.new_cdp_session(tab)
    cdp.send("Performance.enable")
    found = []

    def record(step: str) -> None:
        workers = sum(w.url.endswith("/notebook/worker.js") for w in tab.workers)
        found.append((step, *_memory_now(tab, cdp), workers))
        print(*found[-1], file=sys.stderr, flush=True)  # as it goes

    tab.goto(url + "/index.html")
    record("index.html, loaded")
    learner = PAGE.removesuffix(".md") + ".html"
    while True:
        shown = tab.url.rsplit("/", 1)[-1]
        done = "read"
        run_all = tab.locator(".notebook-run-all")
        if run_all.count():
            tab.wait_for_selector("body[data-notebook=idle]", state="attached")
            run_all.evaluate(OPEN_DETAILS)  # above a first fence in <details>, it is in them
            run_all.click()
            tab.wait_for_selector("body[data-notebook=idle]", state="attached", timeout=600_000)
            ran = tab.locator(".notebook-bar[data-state=ran]").count()
            done = f"Run all ({ran} of {tab.locator('.notebook-bar[data-state]').count()} ran)"
        if shown == learner:
            _learner_check(tab)
            done = "a Check"
        record(f"{shown}, {done}")
        if not tab.locator("a.md-footer__link--next").count():
            break
        _follow(tab, "next")
    found[-1] = (f"every page ({found[-1][0]})", *found[-1][1:])
    while not tab.url.endswith("/" + learner):  # back to learner mode's chapter
        _follow(tab, "prev")
    for k in range(5):
        _follow(tab, "prev")
        _follow(tab, "next")
        _learner_check(tab)
        editors = tab.locator(".learner .cm-editor").count()
        record(f"return {k + 1} to {learner}, a Check ({editors} editor)")
    tab.context.close()
    return found


def print_memory(found) -> None:
    print("| step of the visit | renderers' RSS | page's JS heap | Python workers |")
    print("|---|---:|---:|---:|")
    for step, rss, heap, workers in found:
        print(f"| {step} | {rss:.0f} MiB | {heap:.1f} MiB | {workers} |")


LAB_WATCH = """() => {
  const lab = document.querySelector('.lab');
  const seen = {frames: [], redraws: 0, gap: 0};
  let board = null, last = performance.now();
  const tick = (now) => {
    seen.gap = Math.max(seen.gap, now - last);
    last = now;
    const frame = window.bookLab.frame;
    const drawn = lab.querySelector('.lab-boundary');
    if (drawn !== board) { board = drawn; seen.redraws += 1; }
    if (frame) seen.frames.push([now, frame.step]);
    if (lab.dataset.state !== 'idle' || !frame || !frame.done) requestAnimationFrame(tick);
    else window.__labDone(seen);
  };
  return new Promise(done => { window.__labDone = done; requestAnimationFrame(tick); });
}"""
PAUSE = """() => new Promise(done => {
  const lab = document.querySelector('.lab');
  const t0 = performance.now();
  lab.querySelector('.lab-pause').click();
  new MutationObserver((_, watch) => {
    if (lab.dataset.state === 'idle') { watch.disconnect(); done(performance.now() - t0); }
  }).observe(lab, {attributes: true});
})"""

NEXT = """() => new Promise(done => {
  const lab = document.querySelector('.lab');
  const text = lab.querySelector('.lab-apart-text');
  const t0 = performance.now();
  new MutationObserver((_, watch) => { watch.disconnect(); done(performance.now() - t0); })
    .observe(text, {childList: true, characterData: true, subtree: true});
  lab.querySelector('.lab-next').click();
})"""


def lab(browser, url: str) -> dict:
    """The lab's pace while Train runs the book's 100 steps, and its Pause latencies."""
    from tools.site.lab import PLACEHOLDER

    [page] = [p for p in sorted((ROOT / "docs").glob("*.md")) if PLACEHOLDER in p.read_text()]
    tab = browser.new_context().new_page()
    tab.goto(url + "/" + page.name.replace(".md", ".html"))
    tab.wait_for_selector(".lab[data-state=idle]")
    tab.locator(".lab-reset").click()  # starts Python, and the lab at step 0
    tab.wait_for_function("window.bookLab.frame?.step === 0", timeout=300_000)
    tab.wait_for_selector(".lab[data-state=idle]")
    tab.evaluate("() => { window.__seen = (" + LAB_WATCH + ")(); }")  # not awaited here
    tab.locator(".lab-train").click()
    seen = tab.evaluate("window.__seen")
    (t0, s0), (t1, s1) = seen["frames"][0], seen["frames"][-1]
    pauses = []
    for _ in range(REPEATS):
        tab.locator(".lab-reset").click()
        tab.wait_for_function("window.bookLab.frame.step === 0")
        tab.wait_for_selector(".lab[data-state=idle]")
        tab.locator(".lab-train").click()
        tab.wait_for_function("window.bookLab.frame.step >= 5")
        pauses.append(tab.evaluate(PAUSE))
    tab.locator(".lab-apart > summary").click()  # not the nested list's
    tab.locator(".lab-take-apart").click()
    tab.wait_for_selector(".lab-apart-text:not(:empty)")
    tab.wait_for_selector(".lab[data-state=idle]")
    nexts = []
    for _ in range(REPEATS * 3):
        if tab.locator(".lab-next").is_disabled():  # the last part shown: take the step apart anew
            tab.locator(".lab-take-apart").click()
            tab.wait_for_selector(".lab-next:enabled")
        nexts.append(tab.evaluate(NEXT))
        tab.wait_for_selector(".lab[data-state=idle]")
    tab.context.close()
    return {
        "steps": s1 - s0,
        "seconds": (t1 - t0) / 1000,
        "redraws": seen["redraws"],
        "gap": seen["gap"],
        "pauses": pauses,
        "nexts": nexts,
    }


def print_lab(found: dict) -> None:
    per_second = found["steps"] / found["seconds"]
    redraws = found["redraws"] / found["seconds"]
    print("| the two-moons lab, the book's settings | median | worst |")
    print("|---|---:|---:|")
    steps = f"training steps a second, Train from step 0 to {found['steps']}"
    print(f"| {steps} | {per_second:.1f} | |")
    print(f"| boundary and network redrawn a second | {redraws:.1f} | |")
    print(f"| longest gap between two animation frames while training | | {found['gap']:.0f} ms |")
    for what, times in (
        ("Pause: click to standing still", found["pauses"]),
        ("one step taken apart: Next to the next part shown", found["nexts"]),
    ):
        print(f"| {what} | {statistics.median(times):.0f} ms | {max(times):.0f} ms |")


STEP = """f => new Promise(done => {
  const region = document.querySelector(f);
  const t0 = performance.now();
  region.querySelector('.steps-next').click();
  requestAnimationFrame(() => done(performance.now() - t0));
})"""
LIVE = """([line, f]) => {
  window.__live = new Promise(done => {
    const bar = document.querySelector(`.notebook-bar[data-line="${line}"]`);
    let ran = null;
    new MutationObserver((_, watch) => {
      if (ran === null && bar.dataset.state === 'ran') ran = performance.now();
      const svg = document.querySelector(`${f} svg[data-live=yes]`);
      if (ran !== null && svg && svg !== window.__old) {
        watch.disconnect(); window.__old = svg; done(performance.now() - ran);
      }
    }).observe(document.body, {subtree: true, childList: true, attributes: true});
  });
}"""


def waits(browser, url: str, site: Path) -> dict:
    """A step, live redraws and Python's starts (``python_start``) in ``site``, served at
    ``url``; what drawing adds to the site; and the tab's memory over a visit (``memory``)."""
    fence = _diamond_fence()
    tab = browser.new_page()
    requested: list[str] = []
    tab.on("request", lambda request: requested.append(request.url))
    tab.goto(url + "/03-backward.html")
    figure = '.steps[data-figure="03-careless-walk"]'
    tab.locator(f"{figure} .steps-start").click()
    steps = [tab.evaluate(STEP, figure) for _ in range(REPEATS)]
    never = [u for u in requested if "/viz/" in u or "/notebook/tools/" in u]
    editor = code(tab, fence["line"])
    redraws = []
    for k in range(REPEATS + 1):
        value = f"x_value={2.0 + 2 * k}"  # never the book's 3.0
        editor.fill(fence["code"].replace("x_value=3.0", value))
        tab.evaluate(LIVE, [fence["line"], figure])  # sets window.__live, awaited below
        bar(tab, fence["line"]).locator(".notebook-run").click()
        redraws.append(tab.evaluate("window.__live"))
    return {
        "steps": steps,
        "redraws": redraws,
        "never": never,
        "viz": sum((site / place).stat().st_size for place in VIZ.files.values()),
        "python": (site / PAGE_ZIP).stat().st_size,
        "started": {reach: python_start(browser, url, reach) for reach in (0.0, 1.0)},
        "memory": memory(browser, url),
    }


def print_waits(found: dict) -> None:
    steps, redraws, rest = found["steps"], found["redraws"], found["redraws"][1:]
    print("| what | median | worst |")
    print("|---|---:|---:|")
    print(f"| a step (click to frame) | {statistics.median(steps):.0f} ms | {max(steps):.0f} ms |")
    print(f"| first live redraw (loads Graphviz) | {redraws[0]:.0f} ms | |")
    print(f"| later live redraws | {statistics.median(rest):.0f} ms | {max(rest):.0f} ms |")
    print(f"| Graphviz in the site | {found['viz'] / 1e6:.2f} MB | |")
    print(f"| the Python that draws, in the site | {found['python'] / 1e3:.0f} kB | |")
    print(f"| loaded by a page that never draws live | {len(found['never'])} files | |")
    for reach, (times, asked) in found["started"].items():
        for k, (chapter, took, state) in enumerate(times):
            which = "first chapter of the visit" if k == 0 else "next chapter"
            print(
                f"| click to first output, {which} ({chapter}, {state}), "
                f"pointer on the bar {reach:g} s before | {took:.0f} ms | |"
            )
        said = ", ".join(f"{name}: {count}" for name, count in asked.items())
        print(f"| requests in that visit of {len(times)} chapters | {said} | |")
    print()
    print_memory(found["memory"])


def _first_output(tab, url: str, reach: float | None) -> tuple[float, float, str]:
    """Open chapter 3 at ``url`` (a site's root) in ``tab``; the pointer on its first
    fence's Run bar ``reach`` seconds before the click (None: never), then Run: (ms from the
    click to "ran", CPU seconds the browser spent from the page's load to then, how Python
    started: started, restored or afresh)."""
    tab.goto(url + "/" + CHAPTERS[0].replace(".md", ".html"))
    tab.wait_for_selector("body[data-notebook=idle]", state="attached")
    cpu = _browser_cpu()
    took, _ = _run_first(tab, CHAPTERS[0], reach)
    used = _browser_cpu() - cpu
    how = tab.evaluate("window.bookPython.how")
    tab.evaluate("window.bookPython.keeping")  # the snapshot kept before the next visit
    return took, used, how


def start(browser, url: str, site: Path) -> list[tuple[str, float, float, str]]:
    """Python's start, click to first output of chapter 3's first fence, and the browser's
    CPU meanwhile: cold (a fresh browser profile: nothing cached or kept), cached (the same
    profile, the page loaded again: files in the HTTP cache, the start kept), after intent
    (the same, the pointer on the Run bar a second before the click), revisit (the next
    chapter, by its link: instant navigation keeps the worker), and from disk (file://, a
    fresh profile, then loaded again)."""
    found = []
    tab = browser.new_context().new_page()
    for what, reach in (("cold", None), ("cached", None), ("after intent", 1.0)):
        found.append((what, *_first_output(tab, url, reach)))
    cpu = _browser_cpu()
    _follow(tab, "next")
    took, _ = _run_first(tab, CHAPTERS[1], None)
    found.append(("revisit (next chapter, Python loaded)", took, _browser_cpu() - cpu, "kept"))
    tab.context.close()
    tab = browser.new_context().new_page()  # a fresh profile again
    for what in ("from disk, cold", "from disk, again"):
        found.append((what, *_first_output(tab, site.resolve().as_uri(), None)))
    tab.context.close()
    return found


def print_start(found: list[tuple[str, float, float, str]]) -> None:
    print("| start | click to first output | browser CPU | Python |")
    print("|---|---:|---:|---|")
    for what, took, cpu, how in found:
        print(f"| {what} | {took:.0f} ms | {cpu:.1f} s | {how} |")


def _count(loaded: list[int], request) -> None:
    loaded.append(request.sizes()["responseBodySize"])


def weight(browser, url: str) -> list[tuple[str, int, int]]:
    """(page, bytes, files) that each page of the site loads in a fresh browser, the page's
    workers included (search), until the network has been idle for a while, before any
    sign that the reader wants to edit or run (the pointer stays away from the page)."""
    from tests.helpers.site import SITE_PAGES, url_path

    found = []
    for page in SITE_PAGES:
        context = browser.new_context()
        loaded: list[int] = []
        context.on("requestfinished", functools.partial(_count, loaded))
        tab = context.new_page()
        tab.goto(url + url_path(page), wait_until="networkidle")
        tab.wait_for_function("document.fonts.status === 'loaded'")
        tab.wait_for_timeout(5000)  # for what the page's scripts ask for after the load
        tab.wait_for_load_state("networkidle")
        found.append((page.name, sum(loaded), len(loaded)))
        context.close()
    return found


def print_weight(found: list[tuple[str, int, int]]) -> None:
    print("| page | bytes before any intent | files |")
    print("|---|---:|---:|")
    for name, size, files in found:
        print(f"| {name} | {size / 1e6:.2f} MB | {files} |")


def measured(site: Path, measure, show) -> None:
    """Serve ``site``, run ``measure(browser, url)`` in Chromium, then ``show`` what it found;
    with the machine's load average before and after."""
    from playwright.sync_api import sync_playwright

    load = lambda: " ".join(f"{x:.2f}" for x in os.getloadavg())  # noqa: E731
    print(f"load average before: {load()}")
    with serve(site) as url, sync_playwright() as playwright:
        chromium = shutil.which("chromium")
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        found = measure(browser, url)
        browser.close()
    print(f"load average after: {load()}")
    show(found)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--memory", action="store_true", help="only the tab's memory over a visit")
    only.add_argument("--weight", action="store_true", help="only the bytes each page loads")
    only.add_argument("--lab", action="store_true", help="only the two-moons lab")
    only.add_argument("--start", action="store_true", help="only Python's start (start())")
    parser.add_argument("site", nargs="?", type=Path, default=ROOT / "site", help="a built site")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        parser.error(f"{args.site} holds no built site (python3 tools/dev.py build makes one)")
    if args.memory:
        measured(args.site, memory, print_memory)
    elif args.weight:
        measured(args.site, weight, print_weight)
    elif args.lab:
        measured(args.site, lab, print_lab)
    elif args.start:
        measured(args.site, functools.partial(start, site=args.site), print_start)
    else:
        measured(args.site, functools.partial(waits, site=args.site), print_waits)


if __name__ == "__main__":
    main()
