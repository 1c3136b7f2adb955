"""The site pass: docs/ in, a tree of Markdown with inline HTML and assets out, which MkDocs
and ProperDocs build through hooks.py, and Zensical as it is (`python -m tools.site.prepare
[DOCS] [TREE]`). A page is its chapter with math as MathML, figures inline, folds classed,
the engine as a download, used-in lines, the notebook link, the lab, learner mode, and the
data of Run buttons and figure controls; beside: the woven engine, the whole book
(print_page.md), notebooks, the engine, the page's Python from npm. Raw HTML links end in
.html. A file made the same is left untouched (`serve --dirty`)."""

import filecmp
import hashlib
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tools import DOCS, ENGINE, ENGINES, ROOT, tangle
from tools.chapter import Chapter, chapters
from tools.figures.from_chapters import FIGURES, nudged, recorded, with_data_in
from tools.notebook import import_engine
from tools.page import steps
from tools.page.kernel import installed
from tools.site import editor, lab, learner, mathfont, notebooks, page_data, runtime, weave
from tools.site.figures import inline_figures, with_data
from tools.site.marks import label_folds, offer_download
from tools.site.mathml import math_in_markdown

WHOLE_BOOK = "print_page.md"  # print_page.html: the whole book, printed by tools/publish.py


@dataclass
class Prepared:  # what ``prepare`` made, and what a generator's log should say of it
    tree: Path
    warnings: list[str] = field(default_factory=list)  # the build is wrong: --strict fails
    news: list[str] = field(default_factory=list)  # what was done besides: a re-tangle
    lesser: list[str] = field(default_factory=list)  # what the site goes without, and why
    search_from_disk: bool = True  # the shim named in mkdocs.yml's extra.polyfills is there

    def told(self) -> list[str]:  # what was done besides, then what the site goes without
        return self.news + [runtime.LESSER + reason for reason in self.lesser]

    def polyfills(self, named: list[str]) -> list[str]:  # less the search shim if not there
        shim = runtime.SHIM.files["shim/index.js"]
        return [p for p in named if self.search_from_disk or p != shim]


def tree_for(root: Path, site: str) -> Path:
    """The tree of a site built into ``site``: named for it, so builds run side by side."""
    return root / "build" / hashlib.sha256(str(Path(site).absolute()).encode()).hexdigest()[:12]


def _href(src: str, anchor: str) -> str:
    return Path(src).with_suffix(".html").name + (f"#{anchor}" if anchor else "")


def page_markdown(path: Path, docs: Path, woven: list, data: dict | None, warn) -> str:
    """The chapter at ``path`` as its page in the tree, with a used-in line under each fence
    of each engine woven; ``data`` None: as the whole book holds it (no used-in lines, lab,
    learner mode, notebook link or page data)."""
    text, chapter = path.read_text(encoding="utf-8"), Chapter.read(path)
    if data is not None:
        text = _with_used_in(text, chapter, woven, warn)
    for name in ENGINES:
        text = text.replace(f"](../{name})", f"]({name})")
    text = math_in_markdown(
        offer_download(label_folds(text)),
        lambda latex, error: warn(f"{path.name}: cannot convert math {latex!r} to MathML: {error}"),
    )
    text = inline_figures(text, docs)
    if data is None:
        return text
    if path.name == "index.md" and not text.startswith("---\n"):
        text = "---\ntitle: Home\n---\n\n" + text
    if figures := with_data_in(path.name):  # steps, nudges
        text = _with_figure_data(text, path, figures, warn)
    if notebooks.has_notebook(path):
        link = notebooks.link(path)  # under the title
        text = re.sub(r"^# .*$", lambda m: f"{m[0]}\n\n{link}", text, count=1, flags=re.M)
    if data["runtime"] and chapter.cells:
        fences = page_data.element(page_data.page_fences(path), id="notebook-fences")
        start = page_data.element(data["start"], id="python-start")
        text += f"\n<div>{fences}{editor.editor_tags('assets')}{start}</div>\n"
        if path.name == learner.PAGE:
            text, found = learner.learner_html(text, learner.page_data(docs, _href), "assets")
            if not found:
                warn(f"{path.name}: no paragraph starting {learner.PLACEHOLDER!r}: no editor")
        if lab.PLACEHOLDER in text:  # drawn before its first step, from the book's engine
            href = _href(learner.PAGE, "") if (docs / learner.PAGE).exists() else ""
            text = lab.lab_html(text, href, "assets", lab.first_frame(path, docs))[0]
    return text


def _with_used_in(text: str, chapter: Chapter, woven: list, warn) -> str:
    """``text`` with a used-in line under each fence of each engine woven (under its output
    block, if any)."""
    lines, said = text.split("\n"), []
    for engine in woven:
        mine = [(i, c) for i, c in enumerate(engine.tangled.chunks) if c.fence.path == chapter.path]
        anchors = weave.chunk_anchors(engine) if mine else []
        for index, chunk in mine:
            cell = next((c for c in chapter.cells if c.fence.line == chunk.fence.line), None)
            end = ((cell and cell.output) or chunk.fence).end
            said.append((end, weave.used_in_html(engine, index, _href, anchors[index])))
    for end, line in sorted(said, reverse=True):  # after its closing backticks (1-based)
        lines[end:end] = ["", line]
    return "\n".join(lines)


def _with_figure_data(text: str, path: Path, figures: list[str], warn) -> str:
    """``text`` with the data of its figures' controls: steps, and nudges."""
    try:
        with installed(import_engine(ROOT / ENGINE)):  # the engine as saved, while serving
            controls = {
                (n, "steps"): steps.page_data(n, t, FIGURES[n].key)
                for n, t in recorded(figures).items()
            }
            controls |= {(n, "nudges"): nudge for n, nudge in nudged(figures).items()}
    except Exception as error:
        warn(f"{path.name}: no controls under its figures: {error}")
        return text
    for (name, kind), data in controls.items():
        placed = with_data(text, name, kind, data)
        if placed is None:
            warn(f"{path.name}: figure {name} is not in the page: no control")
        text = placed or text
    return text


_LINK = re.compile(
    r"(\]\(|^\[[^\]\n]+\]: *)(?P<page>[\w.-]+\.md)?(?:#(?P<anchor>[\w-]+))?(?=[) ]|$)",
    re.M,
)


_FIGURE = re.compile(r'<svg data-figure="(?P<name>[^"]+)".*?</svg>', re.S)


def whole_book(pages: dict[Path, str]) -> str:
    """The pages (their path and Markdown as the whole book holds it), in order, on one
    page: each in a section named by its file, its headings' ids made unique over the
    whole, a figure shown again (the home page shows chapter 10's) with ids of its own (the
    page's stem before each, and before each use), and every link to a page of the book
    made a link to its place in the whole."""
    out = ["---\ntitle: The whole book\nhide: [navigation, toc]\nsearch: {exclude: true}\n---\n"]
    shown: set = set()

    def again(match: re.Match, stem: str) -> str:
        if match["name"] not in shown:
            shown.add(match["name"])
            return match[0]
        return re.sub(r'((?<![\w-])id="|url\(#|href="#)', rf"\g<1>{stem}-", match[0])

    out += [
        f'<section class="print-page" id="{p.stem}" markdown="1">\n\n'
        + _FIGURE.sub(lambda m, s=p.stem: again(m, s), t)
        + "\n\n</section>\n"
        for p, t in pages.items()
    ]
    whole = iter(Chapter.read(Path(WHOLE_BOOK), "\n".join(out[1:])).headings)
    anchors = {}
    for path, page in pages.items():
        own = Chapter.read(path, page).headings
        anchors |= {(path.name, h.anchor): next(whole).anchor for h in own}
        anchors[path.name, ""] = anchors[path.name, own[0].anchor] if own else ""

    def to(match: re.Match, page: str) -> str:
        key = (match["page"] or page, match["anchor"] or "")
        return f"{match[1]}#{anchors[key]}" if key in anchors else match[0]

    parts = (_LINK.sub(lambda m, p=p: to(m, p.name), part) for p, part in zip(pages, out[1:]))
    return out[0] + "\n".join(parts)


def fetch(docs: Path, done: Prepared) -> list:
    """What the site needs from npm (the runtimes' tarballs, the editor's bundle, the
    search shim's tarball), each None if it cannot be had here, ``done`` saying why; a
    tarball that is not the one pinned raises RuntimeIntegrityError."""
    got = []
    for packages, how_to_enable in (
        (runtime.PACKAGES, runtime.HOW_TO_ENABLE),
        ((runtime.SHIM,), runtime.SEARCH_FROM_DISK),
    ):
        try:
            got.append(runtime.runtime_tarballs(packages))
        except runtime.RuntimeUnavailableError as why:
            got.append(done.lesser.append(how_to_enable.format(why=why, what=runtime.WITHOUT)))
    tarballs, shim = got
    if tarballs is not None and not (docs / runtime.WORKER_JS).exists():
        tarballs = None  # a book without the page's scripts: nothing to run them
        done.lesser.append(f"no Run buttons: this book has no {runtime.WORKER_JS} in its docs")
    bundle = None
    if tarballs is not None:
        try:
            bundle = editor.editor_bundle()
        except editor.EditorUnavailableError as why:
            tarballs = None  # no Run buttons without an editor for their code
            done.lesser.append(runtime.HOW_TO_ENABLE.format(why=why, what=editor.WITHOUT))
    done.search_from_disk = shim is not None
    return [tarballs, bundle, shim]


def tangled(docs: Path, done: Prepared) -> None:
    """Tangle the chapters into each engine file beside ``docs`` if one was saved; a refusal
    (both sides edited) says what `sync` would do."""
    try:
        for out in tangle.engine_files(docs, None):
            said = tangle.update(docs, docs.parent / out.name, root=docs.parent)
            done.news += [f"tangle: {said}"] if said.startswith("wrote") else []
    except tangle.TangleError as error:
        done.warnings.append(f"tangle: {error}")


def prepare(docs: Path = DOCS, tree: Path = ROOT / "build" / "docs", retangle=False) -> Prepared:
    """Make ``tree`` from ``docs``; ``retangle``: tangle the engine first (``tangled``)."""
    done = Prepared(tree)
    if retangle:
        tangled(docs, done)
    tarballs, bundle, shim = fetch(docs, done)
    tree.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{tree.name}-", dir=tree.parent))
    try:
        shutil.copytree(docs, stage, dirs_exist_ok=True)
        _generated(docs, stage, tarballs, done)
        if shim is not None:
            runtime.install_packages(shim, stage)
        if tarballs is not None:
            runtime.install_runtime(tarballs, stage, docs)
            editor.install_editor(bundle, stage)
            if (docs / learner.PAGE).exists():
                learner.install_bundle(stage, docs)
            runtime.install_disk_copies(stage)  # of all the above
        mathfont.install_font(stage, docs)
        _sync(stage, tree)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return done


def _generated(docs: Path, stage: Path, tarballs, done: Prepared) -> None:
    """The pages, the engines, the filled-in protocol.js and the notebooks, into ``stage``."""
    for name in ENGINES:
        shutil.copyfile(ROOT / name, stage / name)
    if (script := stage / runtime.PROTOCOL_JS).exists():  # the messages filled in
        script.write_text(runtime.protocol_script(script.read_text(encoding="utf-8")), "utf-8")
    woven = []
    for engine in (path.name for path in tangle.engine_files(docs, None)):  # the book's
        try:
            woven.append(weave.weave(docs, root=docs.parent, engine=engine))
        except tangle.TangleError as error:
            done.warnings.append(f"no woven {engine} page: {error}")
        else:
            (stage / woven[-1].page).write_text(weave.engine_page(woven[-1]), encoding="utf-8")
    data = {"runtime": tarballs is not None}
    if tarballs is not None:
        data["start"] = runtime.start_data((docs / learner.PAGE).exists(), runtime.start_key(docs))
    whole = {}
    for path in chapters(docs):
        page = page_markdown(path, docs, woven, data, done.warnings.append)
        (stage / path.name).write_text(page, encoding="utf-8")
        whole[path] = page_markdown(path, docs, woven, None, done.warnings.append)
        if notebooks.has_notebook(path):  # beside its page
            notebook = notebooks.notebook_text(path, docs)
            (stage / notebooks.notebook_name(path)).write_text(notebook, encoding="utf-8")
    for engine in woven:
        whole[stage / engine.page] = (stage / engine.page).read_text(encoding="utf-8")
    (stage / WHOLE_BOOK).write_text(whole_book(whole), encoding="utf-8")


def _sync(stage: Path, tree: Path) -> None:
    """``tree`` made the same as ``stage``, its files that already were left untouched."""
    made = {p.relative_to(stage) for p in stage.rglob("*") if p.is_file()}
    for old in [p for p in tree.rglob("*") if p.is_file() and p.relative_to(tree) not in made]:
        old.unlink()
    for name in sorted(made):
        if not (tree / name).exists() or not filecmp.cmp(stage / name, tree / name, False):
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            os.replace(stage / name, tree / name)


if __name__ == "__main__":
    made = prepare(*(Path(a).absolute() for a in sys.argv[1:3]))
    for line in made.warnings + made.told():
        print(f"prepare: {line}", file=sys.stderr)
    sys.exit(f"prepare: {len(made.warnings)} warnings" if made.warnings else 0)
