"""The book's site for MkDocs 1.6 and ProperDocs (``hooks:`` in mkdocs.yml): a thin adapter.

The site pass (tools/site/prepare.py) makes docs/ into a tree of Markdown and assets under
build/, named for where the site goes (builds may run side by side), which the generator
renders in place of docs/. While serving, docs/ is watched, and each build first tangles a
saved chapter into the engine. mkdocs imports this file by its path: hence ``sys.path``.
"""

import hashlib
import logging
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mkdocs.exceptions import PluginError

from tools.site import prepare, runtime

log = logging.getLogger("mkdocs.hooks.book")
_book = {"serving": False, "docs": None, "tree": None}


def on_startup(command, dirty):
    _book["serving"] = command == "serve"


def on_config(config):
    _book["docs"], root = config.docs_dir, Path(config.config_file_path).parent
    name = hashlib.sha256(str(Path(config.site_dir).absolute()).encode()).hexdigest()[:12]
    try:
        made = prepare.prepare(Path(config.docs_dir), root / "build" / name, _book["serving"])
    except runtime.RuntimeIntegrityError as error:
        raise PluginError(str(error)) from None
    said(made, config)
    config.docs_dir = _book["tree"] = str(made.tree)
    return config


def said(made: prepare.Prepared, config) -> None:
    """The pass's warnings (--strict fails on them) and news in mkdocs's log, and what the
    site goes without, marked, so that `dev.py build` says it again last (tools/publish.py)."""
    for warning in made.warnings:
        log.warning("%s", warning)
    for line in made.news + [runtime.LESSER + reason for reason in made.lesser]:
        log.info("%s", line)
    if not made.search_from_disk:
        shim = runtime.SHIM.files["shim/index.js"]
        config.extra["polyfills"] = [p for p in config.extra.get("polyfills", []) if p != shim]


def on_serve(server, config, builder):
    server.unwatch(config.docs_dir)  # the tree, made again before each build
    server.watch(_book["docs"])
    return server


def on_shutdown():
    if _book["tree"] is not None:
        shutil.rmtree(_book["tree"], ignore_errors=True)


def on_template_context(context, template_name, config, **_):
    # mkdocs gives the 404 page site_url's path as its base (an absolute path, wrong from
    # disk or in a subfolder): it is at the site's root, so "." finds its assets.
    if template_name == "404.html":
        context["base_url"] = "."
    return context
