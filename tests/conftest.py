"""Fixtures shared by the site's tests: the site, built once per session."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tools.tangle import ROOT


@pytest.fixture(scope="session")
def site_build(tmp_path_factory) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` into a temporary folder, run once per session."""
    site = tmp_path_factory.mktemp("site")
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
def built_site(site_build) -> Path:
    """The folder of the built site. If the build failed, test_site_builds_strictly says why
    (once), and every test that needs the site is skipped with a pointer to it."""
    if site_build.returncode != 0:
        pytest.skip("the site did not build: see the failure of test_site_builds_strictly")
    return site_build.site
