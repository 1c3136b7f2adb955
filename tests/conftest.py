"""Fixtures shared by the site's tests: the site, built once per session.

Tests that use it, or a browser, are marked `site`, so `python3 tools/dev.py check`
(-m "not site") skips the build and the browser.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tools.tangle import ROOT

SITE_FIXTURES = {"site_build", "built_site", "site_builder", "browser"}


@pytest.hookimpl(tryfirst=True)  # before -m deselects by mark
def pytest_collection_modifyitems(items):
    for item in items:
        if SITE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker("site")


def build_site(site: Path) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` into ``site``; the result also carries ``.site``."""
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    result.site = site
    return result


@pytest.fixture(scope="session")
def site_builder():
    """build_site itself, for a test that needs a build of its own."""
    return build_site


@pytest.fixture(scope="session")
def site_build(tmp_path_factory) -> subprocess.CompletedProcess:
    """The site, built once per session into a temporary folder."""
    return build_site(tmp_path_factory.mktemp("site"))


@pytest.fixture(scope="session")
def built_site(site_build) -> Path:
    """The folder of the built site. If the build failed, test_site_builds_strictly says why
    (once), and every test that needs the site is skipped with a pointer to it."""
    if site_build.returncode != 0:
        pytest.skip("the site did not build: see the failure of test_site_builds_strictly")
    return site_build.site
