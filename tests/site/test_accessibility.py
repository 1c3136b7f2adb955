"""Every page of the site checked with axe-core, in Chromium: light and dark, 1280 and 390 px.

axe-core is pinned and integrity-checked as the page's own npm packages are
(tools/site/runtime.py, AXE), but only these tests use it: the site never ships it. Each
page is checked light at 1280 px, then at 390 px (the same tab, resized: page.js marks what
then scrolls sideways), then dark at 1280 px with the fences' editors made (the same tab
again, switched with the header's toggle as a reader would, its fences reached for). Any
violation fails, with its rule, where and what to fix, except those named in EXCEPTIONS,
each with the reason the book cannot fix it.
"""

from __future__ import annotations

import os
import tarfile

import pytest

from tests.helpers.browser import DESKTOP, PHONE
from tests.helpers.site import SITE_PAGES, url_path
from tools.site import runtime

# (rule, a CSS selector of the elements it excuses): why the book cannot fix it. Nothing
# else is excused: a new violation of the same rule elsewhere still fails.
EXCEPTIONS = {
    ("landmark-unique", ".md-code__nav"): (
        "Material 9 wraps the copy button of every code block in a <nav> without a name, "
        "added by its own script after the page loads; the book has no template for it"
    ),
    ("scrollable-region-focusable", ".cm-scroller"): (
        "CodeMirror's scroller holds its .cm-content, a contenteditable element that takes "
        "the focus and scrolls it with the caret; axe-core does not count contenteditable "
        "as focusable, and a second tab stop on the scroller would only slow a keyboard"
    ),
}

AXE_RUN = """async (excused) => {
  const found = await axe.run(document, {resultTypes: ["violations"]});
  const problems = [];
  for (const rule of found.violations) {
    const selectors = excused.filter(([id]) => id === rule.id).map(([, selector]) => selector);
    for (const node of rule.nodes) {
      const element = document.querySelector(node.target[0]);
      if (element && selectors.some(selector => element.matches(selector))) continue;
      problems.push(`${rule.id} (${rule.help}) at ${node.target.join(" ")}: ` +
                    node.failureSummary.replace(/\\s+/g, " ").slice(0, 300));
    }
  }
  return problems;
}"""


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core's script, from the pinned tarball (fetched into the cache if need be)."""
    try:
        tarball = runtime.runtime_tarball(runtime.AXE)
    except runtime.RuntimeUnavailableError as why:
        reason = f"axe-core {runtime.AXE.version} cannot be had: {why}"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and {reason}", pytrace=False)
        pytest.skip(reason)
    [script] = runtime.AXE.files
    with tarfile.open(tarball) as archive:
        return archive.extractfile(f"package/{script}").read().decode("utf-8")


def violations(tab, axe_source: str) -> list[str]:
    if not tab.evaluate("typeof axe !== 'undefined'"):
        tab.add_script_tag(content=axe_source)
    return tab.evaluate(AXE_RUN, [list(key) for key in EXCEPTIONS])


def make_editors(tab) -> None:
    """Reach for the page's first fence, as a reader's click does, and wait for every
    runnable fence's editor. The click focuses the code, which starts Python as it would for
    a reader; nothing here runs, so Python is stopped as a fence's Stop stops it (the page
    then looks as before the click: the worker's start is about 8 s of CPU, spent for
    nothing, while axe-core runs)."""
    runnable = tab.locator(".notebook-bar:not(.notebook-blocked)").count()
    if not runnable:
        return
    tab.locator("article div.language-python.highlight").first.dispatch_event("pointerdown")
    tab.wait_for_function(f"document.querySelectorAll('.notebook-editor').length >= {runnable}")
    tab.evaluate("bookPython.worker && bookPython.stop()")


@pytest.mark.parametrize("page", SITE_PAGES, ids=[page.name for page in SITE_PAGES])
def test_every_page_passes_axe_in_light_dark_and_on_a_phone(open_page, site_url, axe_source, page):
    tab = open_page(site_url + url_path(page))
    tab.wait_for_load_state("networkidle")
    found = {"light, 1280 px": violations(tab, axe_source)}
    tab.set_viewport_size(PHONE)
    tab.wait_for_timeout(200)  # page.js marks what scrolls sideways 100 ms after a resize
    found["light, 390 px"] = violations(tab, axe_source)
    tab.set_viewport_size(DESKTOP)
    tab.locator('label[title="Switch to dark mode"]').click()  # the header's toggle
    tab.wait_for_function("document.body.dataset.mdColorScheme === 'slate'")
    make_editors(tab)
    found["dark, 1280 px, editors made"] = violations(tab, axe_source)
    problems = [f"{how}: {problem}" for how, said in found.items() for problem in said]
    assert not problems, (
        f"{page.name}: {len(problems)} accessibility violations (axe-core "
        f"{runtime.AXE.version}); fix them in docs/stylesheets/ or the page's scripts, or, "
        "if Material breaks a rule the book cannot fix, name it in EXCEPTIONS with the "
        "reason:\n" + "\n".join(problems[:20])
    )
