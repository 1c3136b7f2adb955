"""The book's site for MkDocs 1.6 and ProperDocs (``hooks:`` in mkdocs.yml): a thin adapter.

The site pass (tools/site/prepare.py) makes the pages from docs/ into a tree of Markdown and
assets, which the generator then renders in place of docs/. While serving, a chapter saved
in docs/ is tangled into micrograd.py and the tree made again, before each build. This file
puts the repository root on ``sys.path`` (mkdocs imports a hook by its file path).
"""

import hashlib
import logging
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mkdocs.exceptions import PluginError

from tools import ENGINE, tangle
from tools.site import prepare, runtime

log = logging.getLogger("mkdocs.hooks.book")
_book = {"serving": False, "docs": None, "tree": None}


def on_startup(command, dirty):
    _book["serving"] = command == "serve"


def on_config(config):
    docs, root = Path(config.docs_dir), Path(config.config_file_path).parent
    _book["docs"] = docs  # the tree's own folder name is a digest of where the site goes
    digest = hashlib.sha256(str(Path(config.site_dir).absolute()).encode()).hexdigest()[:12]
    if _book["serving"]:
        retangle(docs, root)
    try:
        made = prepare.prepare(docs, root / "build" / f"docs-{digest}")
    except runtime.RuntimeIntegrityError as error:
        raise PluginError(str(error)) from None
    said(made, config)
    config.docs_dir = _book["tree"] = str(made.tree)
    return config


def retangle(docs: Path, root: Path) -> None:
    """Tangle a saved chapter into the engine; a refusal is said as `sync` would say it."""
    try:
        done = tangle.update(docs, root / ENGINE, root=root)
    except tangle.TangleError as error:
        log.warning("tangle: %s", error)
    else:
        if done.startswith("wrote"):
            log.info("tangle: %s", done)


def said(made: prepare.Prepared, config) -> None:
    """The pass's warnings in mkdocs's log (--strict fails on them), and what the site goes
    without, marked, so that `dev.py build` can say it again last (tools/publish.py)."""
    for warning in made.warnings:
        log.warning("%s", warning)
    for reason in made.lesser:
        log.info("%s%s", runtime.LESSER, reason)
    if not made.search_from_disk:
        shim = runtime.SHIM.files["shim/index.js"]
        config.extra["polyfills"] = [p for p in config.extra.get("polyfills", []) if p != shim]


def on_serve(server, config, builder):
    server.unwatch(config.docs_dir)  # the tree changes as the pass makes it: docs/ is watched
    server.watch(str(_book["docs"]))
    return server


def on_shutdown():
    if _book["serving"] and _book["tree"] is not None:  # the tree of this serve alone
        shutil.rmtree(_book["tree"], ignore_errors=True)


def on_template_context(context, template_name, config, **_):
    # mkdocs gives the 404 page site_url's path as its base (an absolute path, wrong from
    # disk or in a subfolder): it is at the site's root, so "." finds its assets.
    if template_name == "404.html":
        context["base_url"] = "."
    return context
