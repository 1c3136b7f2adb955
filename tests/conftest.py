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
    """The folder of the built site; fails at once (see test_site_builds_strictly) if none."""
    if site_build.returncode != 0:
        pytest.fail("the site did not build: see test_site_builds_strictly", pytrace=False)
    return site_build.site
