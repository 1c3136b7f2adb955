"""MkDocs hooks for the engine on the site (named under ``hooks:`` in mkdocs.yml).

Thin: the logic is in tools/tangle.py and tools/weave.py.

* ``mkdocs serve`` re-tangles micrograd.py before every build, so saving a chapter
  updates it; if micrograd.py has edits of its own, it is left alone with a warning.
* The woven engine: a generated page (engine.md, after the chapters) shows micrograd.py
  whole, each chunk under a link to its section, and an index of its names.
* Under each engine fence of a chapter, a line names the later chapters that use it.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools import tangle, weave  # noqa: E402 (needs the repository root on sys.path)

log = logging.getLogger("mkdocs.hooks.engine_hooks")
_build = {"serving": False, "woven": None}


def on_startup(command, dirty):
    _build["serving"] = command == "serve"


def on_pre_build(config):
    if not _build["serving"]:
        return
    docs = Path(config.docs_dir)
    engine = Path(config.config_file_path).parent / tangle.ENGINE
    try:
        done = tangle.update(docs, engine, root=docs.parent)
    except tangle.RefusalError:
        log.warning(
            "%s was edited since it was generated, so it was not re-tangled: run `%s` to "
            "write the edit back into the chapters",
            engine.name,
            tangle.SYNC,
        )
    except tangle.TangleError as error:
        log.warning("tangle: %s", error)
    else:
        if done.startswith("wrote"):
            log.info("tangle: %s", done)


def on_files(files, config):
    docs = Path(config.docs_dir)
    try:
        _build["woven"] = woven = weave.weave(docs, root=docs.parent)
    except tangle.TangleError as error:
        _build["woven"] = None
        log.warning("no woven engine page: %s", error)
        return files
    files.append(File.generated(config, weave.PAGE, content=weave.engine_page(woven)))
    return files


def on_page_content(html, page, config, files):
    woven = _build["woven"]
    chapter = Path(config.docs_dir) / page.file.src_path
    if woven is None or chapter not in woven.chapters:
        return html

    def href(src: str, anchor: str) -> str:
        url = files.get_file_from_path(src).url_relative_to(page.file)
        return f"{url}#{anchor}" if anchor else url

    html, found = weave.add_used_in(html, woven, chapter, href)
    expected = sum(chunk.fence.path == chapter for chunk in woven.tangled.chunks)
    if found != expected:
        log.warning(
            "%s: found %d rendered engine fences for %d engine chunks: no used-in lines",
            page.file.src_path,
            found,
            expected,
        )
    return html
