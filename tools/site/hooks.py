"""The book's site for MkDocs 1.6 and ProperDocs (``hooks:`` in mkdocs.yml): a thin adapter.
The site pass (prepare.py) makes docs/ into a tree under build/, built in place of docs/."""

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
    tree = prepare.tree_for(root, config.site_dir)
    try:
        made = prepare.prepare(Path(config.docs_dir), tree, _book["serving"])
    except runtime.RuntimeIntegrityError as error:
        raise PluginError(str(error)) from None
    for warning in made.warnings:  # they fail --strict
        log.warning("%s", warning)
    for line in made.told():  # tools/publish.py finds the lines marked LESSER
        log.info("%s", line)
    config.extra["polyfills"] = made.polyfills(config.extra.get("polyfills", []))
    config.docs_dir = _book["tree"] = str(made.tree)
    return config


def on_serve(server, config, builder):  # serve watches docs/, not the tree made from it
    server.unwatch(config.docs_dir)
    server.watch(_book["docs"])
    return server


def on_shutdown():
    if _book["tree"] is not None:
        shutil.rmtree(_book["tree"], ignore_errors=True)
