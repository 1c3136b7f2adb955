"""The built site opened from disk in a real browser: Debian's headless Chromium, via
Playwright. Served, every page is swept by test_every_page.py; the Run buttons:
test_run_buttons.py and test_every_fence.py; from disk: test_from_disk.py.

The site is built once (tests/site/conftest.py), and opened in one Chromium for the whole
session (a fresh context per test, or a tab of a kept one: open_page). Skipped where
`chromium` is not installed (apt-get install chromium fonts-liberation), except on CI
(CI=true), where that is a failure; the same for the site's Python runtime (it needs
npm). Playwright drives Debian's chromium; it never downloads a browser.
"""

from tests.helpers.browser import open_tab
from tests.helpers.site import PAGES, url_path


def test_opened_from_disk_the_site_works_as_served(open_page, built_site):
    home = open_page((built_site / "index.html").as_uri())
    first, second = PAGES[1], PAGES[2]
    home.locator("a.md-footer__link--next").click()
    home.wait_for_load_state("load")
    assert home.url.endswith(url_path(first)), home.url
    home.locator("a.md-footer__link--next").click()
    home.wait_for_load_state("load")
    assert home.url.endswith(url_path(second)), home.url
    assert home.locator("article h1").first.is_visible()

    # Material's components start, as when served (tools/site/theme/main.html): a copy button
    # on every code block, a header that names the section scrolled to, and folds that open
    # for print (the event Chromium sends before it prints; the PDF: test_whole_book.py).
    blocks = home.locator("article div.highlight pre").count()  # buttons come with the page
    copies = home.locator("article div.highlight .md-code__button").count()
    assert blocks and copies == blocks, f"from disk, {copies} copy buttons for {blocks} blocks"
    home.locator("article h2").nth(1).scroll_into_view_if_needed()
    home.locator(".md-header__title--active").wait_for(state="attached")
    folds = home.locator("article details:not(.notebook-book)")
    assert folds.count() and not any(f.evaluate("d => d.open") for f in folds.all())
    home.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    shut = [
        f.locator("summary").text_content() for f in folds.all() if not f.evaluate("d => d.open")
    ]
    assert not shut, f"from disk, printing leaves these folds shut: {shut}"

    # Python runs from disk too (test_from_disk.py), but only for a reader who reaches for
    # it: one who reads loads none of its copies (assets/disk/, 20 MB).
    disk = [url for url in home.watch.requested if "/assets/disk/" in url]
    assert not disk, f"from disk, reading alone loaded {disk}"
    outside = [url for url in home.watch.requested if not url.startswith("file://")]
    assert not outside, f"opened from disk, the site asked for {outside}"


def test_a_request_to_another_host_fails_before_it_leaves_and_is_reported(
    browser, open_page, tmp_path
):
    """In the browser's contexts and the profile's (open_page's): CHROMIUM's proxy."""
    page, away = tmp_path / "away.html", ["http://example.com/a.png", "http://203.0.113.9/b"]
    page.write_text(f'<link rel=icon href=data:,><img src="{away[0]}">')
    own = open_tab(browser, page.as_uri())
    for tab in (own, open_page(page.as_uri())):
        with tab.expect_event("requestfailed") as failed:
            tab.evaluate(f"fetch('{away[1]}').catch(() => null)")
        assert failed.value.failure == "net::ERR_PROXY_CONNECTION_FAILED"
        assert {f"request to another host: {url}" for url in away} <= set(tab.watch.problems)
    own.context.close()
