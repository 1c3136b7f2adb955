"""Search that works opened from disk: Material's offline plugin, and the shim it needs.

Chromium will not start Material's search worker from a ``file://`` page; the
``iframe-worker`` shim runs it in a hidden iframe. This module pins the site's own copy
(``extra.polyfills`` in mkdocs.yml), fetched and checked as the page's runtimes are.
"""

from __future__ import annotations

from tools.site.runtime import Package

SHIM_DIR = "assets/iframe-worker"  # in the site; mkdocs.yml's extra.polyfills names shim.js
# `npm view iframe-worker@VERSION dist.integrity` gives the pin of another version.
SHIM = Package(
    "iframe-worker",
    "1.0.4",
    "sha512-"
    "roeaaI+Lg1LJNfgpCjoRe/+WzEjy9+Z08LoEvu85MCPbBjwm+qXz8Ag5U05lHa6V1CysZyGzE0SOkAtSUA5q7Q==",
    {"shim/index.js": f"{SHIM_DIR}/shim.js", "LICENSE": f"{SHIM_DIR}/LICENSE"},
)
HOW_TO_ENABLE = (
    "Search works only when the site is served: {why}, so the site has no copy of the "
    f"{SHIM.name} shim that runs it from disk. Install npm and build again to add it."
)
