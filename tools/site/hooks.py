"""Every mkdocs event the book's site handles, thin, in build order (``hooks:`` in mkdocs.yml).

The work is done by plain functions in this folder and in tools/, which a script could call
as well (Material's successor runs no hooks). This file puts the repository root on
``sys.path`` (mkdocs imports a hook by its file path); nothing else does.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from mkdocs.exceptions import PluginError  # noqa: E402 (after the path is set)
from mkdocs.plugins import event_priority  # noqa: E402
from mkdocs.structure.files import File  # noqa: E402
from mkdocs.utils import get_relative_url  # noqa: E402

from tools import ENGINE, ROOT, tangle  # noqa: E402
from tools.chapter import Chapter, chapters  # noqa: E402
from tools.figures.from_chapters import FIGURES, nudged, recorded, with_data_in  # noqa: E402
from tools.notebook import import_engine  # noqa: E402
from tools.page import steps  # noqa: E402
from tools.page.kernel import installed  # noqa: E402
from tools.site import editor, lab, learner, mathfont, notebooks, page_data, runtime, weave  # noqa: E402
from tools.site.figures import inline_figures, with_data  # noqa: E402
from tools.site.marks import label_folds, offer_download  # noqa: E402
from tools.site.mathml import math_in_html  # noqa: E402

log = logging.getLogger("mkdocs.hooks.book")
_build = {
    "serving": False,
    "runtime": None,
    "editor": None,
    "shim": None,
    "woven": None,
    "files": None,
    "start": None,  # the page data #python-start (runtime.start_data)
}


def on_startup(command, dirty):
    _build["serving"] = command == "serve"


def on_config(config):
    _build["start"] = None  # mkdocs serve builds again: the engine may have changed
    _build["runtime"] = _fetched(runtime.runtime_tarballs, runtime.HOW_TO_ENABLE)
    if _build["runtime"] is not None and not (Path(config.docs_dir) / runtime.WORKER_JS).exists():
        _build["runtime"] = None  # a book without the page's scripts: nothing to run them
        _lesser(f"no Run buttons: this book has no {runtime.WORKER_JS} in its docs")
    if _build["runtime"] is not None:
        try:
            _build["editor"] = editor.editor_bundle()
        except editor.EditorUnavailableError as why:
            _build["runtime"] = None  # no Run buttons without an editor for their code
            _lesser(editor.HOW_TO_ENABLE.format(why=why, version=editor.CODEMIRROR))
    shim = (runtime.SHIM,)
    _build["shim"] = _fetched(lambda: runtime.runtime_tarballs(shim), runtime.SEARCH_FROM_DISK)
    if _build["shim"] is None:
        dropped = runtime.SHIM.files["shim/index.js"]
        config.extra["polyfills"] = [p for p in config.extra.get("polyfills", []) if p != dropped]
    return config


def _fetched(fetch, how_to_enable: str):
    """What ``fetch`` fetched from npm; None if it cannot be had here (saying how to enable
    it). A tarball that is not the one pinned stops the build."""
    try:
        return fetch()
    except runtime.RuntimeUnavailableError as why:
        _lesser(how_to_enable.format(why=why, version=runtime.PYODIDE))
    except runtime.RuntimeIntegrityError as error:
        raise PluginError(str(error)) from None
    return None


def _lesser(reason: str) -> None:
    """Say what the site goes without and what to install, marked so that `dev.py build`,
    which reads mkdocs's log, can say it again last (tools/publish.py)."""
    log.info("%s%s", runtime.LESSER, reason)


def on_pre_build(config):
    if not _build["serving"]:
        return
    docs = Path(config.docs_dir)
    engine = Path(config.config_file_path).parent / ENGINE
    try:
        done = tangle.update(docs, engine, root=docs.parent)
    except tangle.TangleError as error:  # a refusal too: its text is what sync would do
        log.warning("tangle: %s", error)
    else:
        if done.startswith("wrote"):
            log.info("tangle: %s", done)


def on_files(files, config):
    _build["files"] = files  # the site's files, for links between pages
    files.append(File.generated(config, ENGINE, abs_src_path=str(ROOT / ENGINE)))
    script = files.get_file_from_path(runtime.PROTOCOL_JS)  # the messages filled in
    if script is not None:
        files.remove(script)
        text = runtime.protocol_script(Path(script.abs_src_path).read_text(encoding="utf-8"))
        files.append(File.generated(config, runtime.PROTOCOL_JS, content=text))
    docs = Path(config.docs_dir)
    for chapter in filter(notebooks.has_notebook, chapters(docs)):  # beside its page
        text = notebooks.notebook_text(chapter, docs)
        files.append(File.generated(config, notebooks.notebook_name(chapter), content=text))
    try:
        _build["woven"] = woven = weave.weave(docs, root=docs.parent)
    except tangle.TangleError as error:
        _build["woven"] = None
        log.warning("no woven engine page: %s", error)
        return files
    files.append(File.generated(config, weave.PAGE, content=weave.engine_page(woven)))
    return files


def on_page_markdown(markdown, page, **_):
    if page.file.src_uri == "index.md":
        page.meta.setdefault("title", "Home")
    return markdown.replace(f"](../{ENGINE})", f"]({ENGINE})")


@event_priority(50)  # before the print-site plugin copies the page (default priority: 0)
def on_page_content(html, page, config, **_):
    def warn(latex, error):
        log.warning("%s: cannot convert math %r to MathML: %s", page.file.src_path, latex, error)

    html = offer_download(label_folds(math_in_html(html, warn)))
    return inline_figures(html, Path(config["docs_dir"]))


@event_priority(10)  # before the search plugin indexes the page (default priority: 0)
def on_page_context(context, page, config, **_):
    chapter = Path(config.docs_dir) / page.file.src_path
    woven = _build["woven"]
    if woven is not None and chapter in woven.chapters:
        page.content = _with_used_in(page, woven, chapter)
    source = page.file.abs_src_path
    if _build["runtime"] is not None and source and Chapter.read(Path(source)).cells:
        assets = get_relative_url("assets", page.url)
        fences = page_data.element(page_data.page_fences(Path(source)), id="notebook-fences")
        start = page_data.element(_start_data(Path(config.docs_dir)), id="python-start")
        page.content += fences + editor.editor_tags(assets) + start
        if page.file.src_uri == learner.PAGE:
            page.content = _with_learner(page, config, assets)
        if lab.PLACEHOLDER in page.content:
            page.content = _with_lab(page, assets, Path(config.docs_dir))
    if figures := with_data_in(page.file.src_path):  # steps, nudges
        page.content = _with_figure_data(page, figures)
    return context


def _start_data(docs: Path) -> dict:
    """What every chapter page says of Python's start (the same for each: made once)."""
    if _build.get("start") is None:
        key = runtime.start_key(docs)
        _build["start"] = runtime.start_data((docs / learner.PAGE).exists(), key)
    return _build["start"]


def _href(page):
    """A section's URL from ``page``: ``href(src, anchor)``."""

    def href(src: str, anchor: str) -> str:
        url = _build["files"].get_file_from_path(src).url_relative_to(page.file)
        return f"{url}#{anchor}" if anchor else url

    return href


def _with_learner(page, config, assets: str) -> str:
    data = learner.page_data(Path(config.docs_dir), _href(page))
    html, found = learner.learner_html(page.content, data, assets)
    if not found:
        log.warning(
            "%s: no paragraph starting %r: no editor", page.file.src_path, learner.PLACEHOLDER
        )
    return html


def _with_lab(page, assets: str, docs: Path) -> str:
    """The page with its lab, drawn before its first step; its problems link to learner
    mode if the site has it."""
    has_learner = _build["files"].get_file_from_path(learner.PAGE) is not None
    href = _href(page)(learner.PAGE, "") if has_learner else ""
    first = lab.first_frame(Path(page.file.abs_src_path), docs)
    return lab.lab_html(page.content, href, assets, first)[0]


def _with_figure_data(page, figures: list[str]) -> str:
    """The page with the data of its figures' controls: steps, and nudges."""
    try:
        with installed(import_engine(ROOT / ENGINE)):  # the engine as saved, while serving
            recordings = recorded(figures)
            nudges = nudged(figures)
    except Exception as error:
        log.warning("%s: no controls under its figures: %s", page.file.src_path, error)
        return page.content
    html = page.content
    controls = {
        (name, "steps"): steps.page_data(name, t, FIGURES[name].key)
        for name, t in recordings.items()
    }
    controls |= {(name, "nudges"): nudge for name, nudge in nudges.items()}
    for (name, kind), data in controls.items():
        placed = with_data(html, name, kind, data)
        if placed is None:
            log.warning("%s: figure %s is not in the page: no control", page.file.src_path, name)
        html = placed or html
    return html


def _with_used_in(page, woven, chapter: Path) -> str:
    html, found = weave.add_used_in(page.content, woven, chapter, _href(page))
    expected = sum(chunk.fence.path == chapter for chunk in woven.tangled.chunks)
    if found != expected:
        log.warning(
            "%s: found %d rendered engine fences for %d engine chunks: no used-in lines",
            page.file.src_path,
            found,
            expected,
        )
    return html


def on_post_page(output, page, **_):
    # After search has read the page and the print page has copied it: the link to the
    # chapter's notebook is for the page alone.
    source = page.file.abs_src_path
    if source and notebooks.has_notebook(Path(source)):
        return notebooks.with_link(output, Path(source))
    return output


def on_template_context(context, template_name, config, **_):
    # mkdocs gives the 404 page site_url's path as its base (an absolute path, wrong from
    # disk or in a subfolder), and the print-site plugin renders the whole-book page from
    # the same context: both pages are at the site's root, so "." finds their assets
    # wherever the site is served or opened.
    if template_name == "404.html":
        context["base_url"] = "."
    return context


def on_post_build(config, **_):
    try:
        mathfont.install_font(Path(config["site_dir"]), Path(config["docs_dir"]))
    except ImportError as error:
        raise PluginError(str(error)) from None
    if _build["shim"] is not None:
        runtime.install_packages(_build["shim"], Path(config["site_dir"]))
    if _build["runtime"] is not None:
        runtime.install_runtime(
            _build["runtime"], Path(config["site_dir"]), Path(config["docs_dir"])
        )
        editor.install_editor(_build["editor"], Path(config["site_dir"]))
        if (Path(config.docs_dir) / learner.PAGE).exists():
            learner.install_bundle(Path(config["site_dir"]), Path(config.docs_dir))
        runtime.install_disk_copies(Path(config["site_dir"]))  # of all the above
