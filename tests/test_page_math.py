"""page.js sets a display equation a little wider than its column smaller, and lets one far
wider scroll: in Chromium, on a small page with the site's math.css (quick: in `check`)."""

import shutil

import pytest

from tests.helpers.browser import open_tab
from tests.helpers.drive import serve
from tools import ROOT

pytestmark = pytest.mark.browser

ASSETS = ROOT / "docs" / "assets"

# An equation as wide as ``width`` ems of its own size, in a 500 px column: page.js with the
# site's math.css sets it smaller (--fit) when it comes within 2 % of the column or past it,
# down to 80 %; wider still, it scrolls, marked as such.
EQUATION = (
    '<div class="arithmatex" id="{id}"><math display="block">'
    '<mspace width="{width}em" height="1em"></mspace></math></div>'
)
FITTED = """() => [...document.querySelectorAll("div.arithmatex")].map((box) => ({
  fit: box.style.getPropertyValue("--fit") || null, scrolls: box.dataset.scrolls ?? null,
  overflows: box.scrollWidth > box.clientWidth + 1, column: box.clientWidth,
}))"""


def test_an_equation_near_or_a_little_past_the_column_is_set_smaller_not_scrolled(
    browser, tmp_path
):
    page = tmp_path / "math"
    page.mkdir()
    shutil.copyfile(ASSETS / "page" / "page.js", page / "page.js")
    shutil.copyfile(ROOT / "docs" / "stylesheets" / "math.css", page / "math.css")
    em = 20  # the display math's size: 1.25 x 16 px
    widths = {"narrower": 0.9, "just-narrower": 0.99, "a-little-wider": 1.1, "far-wider": 1.5}
    equations = "".join(
        EQUATION.format(id=name, width=share * 500 / em) for name, share in widths.items()
    )
    (page / "page.html").write_text(
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>math</title>"
        "<link rel=icon href=data:,>"  # no favicon.ico asked for
        '<link rel="stylesheet" href="math.css"><style>body { margin: 0; font-size: 16px; }'
        "article { width: 500px; } math { font-family: serif; }</style></head>"
        f'<body><article class="md-typeset">{equations}</article>'
        '<script src="page.js"></script></body></html>',
        encoding="utf-8",
    )
    with serve(tmp_path) as url:
        tab = open_tab(browser, f"{url}/math/page.html")
        try:
            tab.wait_for_load_state("load")
            tab.evaluate("document.fonts.ready.then(() => new Promise(requestAnimationFrame))")
            shown = dict(zip(widths, tab.evaluate(FITTED)))
        finally:
            tab.context.close()
    assert all(s["column"] == 500 for s in shown.values()), shown
    assert shown["narrower"]["fit"] is None and not shown["narrower"]["overflows"], shown
    for name in ("just-narrower", "a-little-wider"):
        fit = float(shown[name]["fit"] or 1)
        assert fit < 1, f"the {name} equation is not set smaller: {shown[name]}"
        assert not shown[name]["overflows"] and shown[name]["scrolls"] is None, shown[name]
    assert shown["far-wider"]["fit"] == "0.800" and shown["far-wider"]["overflows"], shown
    assert shown["far-wider"]["scrolls"] == "yes", shown["far-wider"]
