"""The site pass outlives its generator: ProperDocs (MkDocs 1.6's maintained fork, which
runs the same hooks) builds every page of the book as MkDocs 1.6.1 does.

One build more than the session's: ProperDocs' own, compared page by page with the site the
session built (tests/site/conftest.py), whole, but for the generator's name in each page's
``<meta name="generator">``. Zensical, which runs no hooks, is compared by a report instead
(tools/site/zensical_report.py): it renders enough differently to be no gate.
"""

import os
import re
import sys
from importlib.metadata import version

from tests.helpers import run_text
from tests.helpers.site import PRINT_PAGE, SITE_PAGES, built_file
from tools import ROOT

GENERATOR = re.compile(r'<meta name="generator" content="[^"]*">')


def test_properdocs_builds_every_page_as_mkdocs_does(built_site, tmp_path_factory):
    assert version("mkdocs") == "1.6.1", "the session's site is MkDocs 1.6.1's"
    site = tmp_path_factory.mktemp("properdocs") / "site"
    command = [sys.executable, "-m", "properdocs", "build", "--strict", "-f", "mkdocs.yml"]
    done = run_text(
        [*command, "--site-dir", str(site)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=False,
    )
    assert done.returncode == 0, f"ProperDocs did not build the site:\n{done.stderr[-3000:]}"
    pages = [*SITE_PAGES, PRINT_PAGE]
    for page in pages:
        ours, theirs = (built_file(s, page).read_text(encoding="utf-8") for s in (built_site, site))
        assert "ProperDocs" in theirs and "ProperDocs" not in ours, page.name
        ours, theirs = (GENERATOR.sub("", html).splitlines() for html in (ours, theirs))
        differ = [(a, b) for a, b in zip(ours, theirs) if a != b][:1]
        assert ours == theirs, f"{page.name}: ProperDocs' page differs from MkDocs': {differ}"
    assert len(pages) == len(list(site.glob("*.html"))) - 1, "and no page more (but 404.html)"
