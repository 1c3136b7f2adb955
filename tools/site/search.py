"""Search that works opened from disk: Material's offline plugin, and the shim it needs.

Material's search runs in a Web Worker, which Chromium refuses to start from a ``file://``
page. Its ``offline`` plugin (mkdocs.yml) writes the index also as a script,
``search/search_index.js``, and expects the ``iframe-worker`` shim (squidfunk's, for this
purpose), which runs the worker in a hidden iframe when the page is a ``file://`` one. As
shipped, the plugin loads that shim from unpkg.com; mkdocs.yml names the site's own copy
instead (``extra.polyfills``), and this module pins it: an npm package fetched, checked
and copied into the site as the page's runtimes are (tools/site/runtime.py). Without npm
the site builds without it, and search works only when the site is served.
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
