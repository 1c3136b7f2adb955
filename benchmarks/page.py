"""Time what a reader waits for in the page, in Chromium: outside the test suite.

    python3 tools/dev.py build                      # or any built site in site/
    .venv/bin/python -m benchmarks.page [SITE]     # prints a table; saves nothing

Measured (in the page, with performance.now(), median of REPEATS):

* step: a click on Next to the figure showing the step (chapter 3's careless walks);
* live redraw: chapter 3's figure drawn again from an edited fence, from the moment that
  fence's status says it ran to the new figure in place (Graphviz loaded the first time,
  so the first redraw is reported apart);
* what drawing adds to the site: the size of Graphviz (assets/viz/viz.js) and of the
  Python the page loads to draw; and what a page that never draws live loads of either;
* Python's start: a click on Run of a chapter's first fence to that fence's status saying
  it ran, on a first chapter (nothing cached), then on the next chapters of the same visit
  (reached by the page's own "next" link, as a reader would: served, Material's instant
  navigation swaps the page in, and the Python of the first chapter serves the next ones);
  and how many times the visit asked for the worker and for Python's WebAssembly.

The machine may be shared: look at the load average printed with the results.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
from pathlib import Path

from benchmarks.drive import code, serve
from tools import ROOT
from tools.site.runtime import PAGE_ZIP, VIZ

REPEATS = 5


def _diamond_fence() -> dict:
    from tools.site.fences import page_fences

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
CHAPTERS = ("03-backward.md", "04-a-scalar-neuron.md", "05-neuron-layer-mlp.md")


def python_start(browser, url: str, reach: float) -> tuple[list[tuple[str, float, str]], dict]:
    """(chapter, ms from a click on its first fence's Run to "ran", its state), chapter
    after chapter in one visit; the pointer reaches the Run bar ``reach`` seconds before
    the click (the page starts Python then). And the requests for the worker and Python's
    WebAssembly the visit made, by file name."""
    from tools.site.fences import page_fences

    tab = browser.new_context().new_page()
    requested: list[str] = []
    tab.on("request", lambda request: requested.append(request.url.rsplit("/", 1)[-1]))
    tab.goto(url + "/" + CHAPTERS[0].replace(".md", ".html"))
    times = []
    for k, chapter in enumerate(CHAPTERS):
        if k:
            tab.locator("a.md-footer__link--next").click()
            tab.wait_for_url("**/" + chapter.replace(".md", ".html"))
        shown = f'body[data-notebook=idle][data-chapter="docs/{chapter}"]'
        tab.wait_for_selector(shown, state="attached")
        first = page_fences(ROOT / "docs" / chapter)["fences"][0]
        tab.locator(f'.notebook-bar[data-line="{first["line"]}"]').hover()
        tab.wait_for_timeout(reach * 1000)
        took, state = tab.evaluate(FIRST_OUTPUT, first["line"])
        times.append((chapter, took, state))
    tab.context.close()
    return times, {name: requested.count(name) for name in ("worker.js", "pyodide.asm.wasm")}


def main(site: Path) -> None:
    from playwright.sync_api import sync_playwright

    fence = _diamond_fence()
    viz = sum((site / place).stat().st_size for place in VIZ.files.values())
    python = (site / PAGE_ZIP).stat().st_size
    with serve(site) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=shutil.which("chromium"), args=["--no-sandbox"]
        )
        tab = browser.new_page()
        requested: list[str] = []
        tab.on("request", lambda request: requested.append(request.url))
        tab.goto(url + "/03-backward.html")
        figure = '.steps[data-figure="03-careless-walk"]'
        tab.locator(f"{figure} .steps-start").click()
        steps = []
        for _ in range(REPEATS):
            steps.append(
                tab.evaluate(
                    """f => new Promise(done => {
                      const region = document.querySelector(f);
                      const t0 = performance.now();
                      region.querySelector('.steps-next').click();
                      requestAnimationFrame(() => done(performance.now() - t0));
                    })""",
                    figure,
                )
            )
        never = [u for u in requested if "/viz/" in u or "/notebook/tools/" in u]
        bar = tab.locator(f'.notebook-bar[data-line="{fence["line"]}"]')
        editor = code(tab, fence["line"])
        redraws = []
        for k in range(REPEATS + 1):
            value = f"x_value={2.0 + 2 * k}"  # never the book's 3.0
            editor.fill(fence["code"].replace("x_value=3.0", value))
            tab.evaluate(
                """([line, f]) => {
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
                }""",
                [fence["line"], figure],
            )
            bar.locator(".notebook-run").click()
            redraws.append(tab.evaluate("window.__live"))
        started = {reach: python_start(browser, url, reach) for reach in (0.0, 1.0)}
        browser.close()
    load = os.getloadavg()
    print(f"load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print("| what | median | worst |")
    print("|---|---:|---:|")
    print(f"| a step (click to frame) | {statistics.median(steps):.0f} ms | {max(steps):.0f} ms |")
    print(f"| first live redraw (loads Graphviz) | {redraws[0]:.0f} ms | |")
    rest = redraws[1:]
    print(f"| later live redraws | {statistics.median(rest):.0f} ms | {max(rest):.0f} ms |")
    print(f"| Graphviz in the site | {viz / 1e6:.2f} MB | |")
    print(f"| the Python that draws, in the site | {python / 1e3:.0f} kB | |")
    print(f"| loaded by a page that never draws live | {len(never)} files | |")
    for reach, (times, asked) in started.items():
        for k, (chapter, took, state) in enumerate(times):
            which = "first chapter of the visit" if k == 0 else "next chapter"
            print(
                f"| click to first output, {which} ({chapter}, {state}), "
                f"pointer on the bar {reach:g} s before | {took:.0f} ms | |"
            )
        said = ", ".join(f"{name}: {count}" for name, count in asked.items())
        print(f"| requests in that visit of {len(times)} chapters | {said} | |")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "site")
