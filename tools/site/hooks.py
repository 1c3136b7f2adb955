"""The book's site for MkDocs 1.6 and ProperDocs (``hooks:`` in mkdocs.yml): a thin adapter.
The site pass (prepare.py) makes docs/ into a tree under build/, named for where the site
goes (builds run side by side), which is built in place of docs/; serve watches docs/."""

import hashlib
import logging
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # mkdocs imports it by path

from mkdocs.exceptions import PluginError

from tools.site import prepare, runtime

log = logging.getLogger("mkdocs.hooks.book")
_book = {"serving": False, "docs": None, "tree": None}


def on_startup(command, dirty):
    _book["serving"] = command == "serve"  # then each build tangles a saved chapter first


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
    """Warnings fail --strict; what the site goes without is marked for tools/publish.py."""
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
    if template_name == "404.html":  # mkdocs gives it site_url's path: "." works from disk
        context["base_url"] = "."
    return context
