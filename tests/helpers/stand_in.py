"""The fast tier's fixture page (tests/test_page_scripts.py): a chapter's python fences and
```output blocks as the site shows them, its fence data as the build writes it, the real
page.js, protocol.js, Run buttons' scripts and worker.js laid out as in the site, and a
stand-in for Pyodide that answers each call of the page's Python with what CPython told and
returned for the same call (``Session``); and what the page must then show of each fence
(``shown_as``, ``assert_shows``)."""

import functools
import html
import json
import shutil
from pathlib import Path

import yaml

from tools import DOCS, ROOT
from tools.chapter import Chapter
from tools.page import bridge
from tools.site.page_data import element, page_fences
from tools.site.runtime import PROTOCOL_JS, engine_json, protocol_script, start_data

CHAPTER = DOCS / "03-backward.md"
ASSETS = ROOT / "docs" / "assets"
# The Run buttons' scripts after protocol.js, in the order mkdocs.yml loads them.
NOTEBOOK_SCRIPTS = [
    Path(s).name
    for s in yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["extra_javascript"]
    if s.startswith("assets/notebook/") and s != PROTOCOL_JS
]

# The stand-in for Pyodide (assets/pyodide/pyodide.js, which the real worker.js imports):
# loadPyodide gives a Python whose modules answer each call with the next one recorded in
# CPython (calls.json, read at each call: what it was asked, what it told and returned), and
# refuse a call other than the one recorded; a recorded `hang` spins, as a runaway loop does.
PYODIDE = """
let used = 0; // calls answered by this Python
function recorded() {
  const read = new XMLHttpRequest(); // Python's calls are synchronous: so is this
  read.open("GET", new URL(`../../calls.json?${Math.random()}`, import.meta.url), false);
  read.send();
  return JSON.parse(read.responseText)[used] ?? { call: "nothing more" };
}
function answer(call, asked, tell = () => {}) {
  const next = recorded();
  used += 1;
  const [got, want] = [JSON.stringify([call, asked]), JSON.stringify([next.call, next.asked])];
  if (got !== want) throw new Error(`stand-in Python: asked ${got}, recorded ${want}`);
  for (const text of next.told ?? []) tell(text);
  for (;;) if (!next.hang) return next.returns;
}
const modules = {
  "tools.page.bridge": {
    open_chapter: () => ({ namespace: null }),
    run: (book, target, codes, all, tell) =>
      answer("run", { target, all, codes: JSON.parse(codes) }, tell),
    after_restore() {}, finished_engine: () => null,
  },
  "tools.page.lab": { answer: (asked) => answer("lab", { ...JSON.parse(asked), page: undefined }) },
  "tools.learn.in_page": {
    check_in_page: (chapter, engine, tell) => answer("learn", { chapter, engine }, tell),
    table_in_page: (runs, engine, diagnose, record) =>
      answer("learn-table", {
        runs: JSON.parse(runs), engine, diagnose, record: JSON.parse(record),
      }),
  },
  "tools.page.live": { figure() { throw new Error("the stand-in has no Graphviz"); },
                       printed_graphs: () => ({ toJs: () => [] }) },
  "tools.page.pytest": {}, sys: { modules: new Map() },
};
const stack = { _emscripten_stack_get_current: () => 0, _PyThreadState_Get: () => 0 };
globalThis.loadPyodide = async () => {
  const refused = recorded(); // the start, refused as in WebKit: a stack without the message
  if (refused.call !== "refuse") return python;
  used += 1;
  throw Object.assign(new Error(refused.returns), { stack: "loadPyodide@pyodide.js:1:1" });
};
const python = {
  _module: { ...stack, _PyUnstable_ThreadState_SetStackProtection() {} },
  FS: { cwd: () => "/home/pyodide" },
  unpackArchive() {}, runPython() {},
  pyimport: (name) => modules[name],
  makeMemorySnapshot() { // of the size recorded, if a snapshot is the next call
    if (recorded().call !== "snapshot") throw new Error("the stand-in keeps no snapshot");
    return new Uint8Array(answer("snapshot", null));
  },
};
"""

# The stand-in for the code editor (CodeMirror's bundle needs npm): a textarea, which says
# each change of its text, as CodeMirror does.
EDITOR = """
window.CodeEditor = {
  create(host, { doc, onChange }) {
    const area = document.createElement("textarea");
    area.value = doc;
    area.addEventListener("input", () => onChange());
    host.append(area);
    return { area, onChange, destroy: () => area.remove(), focus: () => area.focus() };
  },
  text: (editor) => editor.area.value,
  setText: (editor, text) => ((editor.area.value = text), editor.onChange()),
};
"""


@functools.cache
def book_engine() -> str:
    return engine_json(DOCS)


def fixture_page(chapter: Chapter, page: dict, more: str = "") -> str:
    """The chapter's fences and output blocks as the site renders them, with its data, and
    ``more`` HTML after them."""
    blocks = []
    for cell in chapter.cells:
        code = html.escape(cell.fence.code)
        blocks.append(
            f'<div class="language-python highlight"><pre><code>{code}</code></pre></div>'
        )
        if cell.output is not None:
            out = html.escape(cell.output.code)
            blocks.append(
                f'<div class="language-output highlight"><pre><code>{out}</code></pre></div>'
            )
    editor = {"script": "editor.js", "style": "editor.css"}
    scripts = ["page/page.js", "notebook/protocol.js", *(f"notebook/{n}" for n in NOTEBOOK_SCRIPTS)]
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>fixture</title>"
        "<link rel=icon href=data:,></head>"  # no favicon.ico asked for
        f"<body><article><h1>{html.escape(chapter.title)}</h1>{''.join(blocks)}{more}</article>"
        f"{element(page, id='notebook-fences')}{element(editor, id='code-editor')}"
        f"{element(start_data(False, 'fixture'), id='python-start')}"
        + "".join(f'<script src="assets/{name}"></script>' for name in scripts)
        + "</body></html>"
    )


def shown_as(told: list[dict], cells: list) -> dict[int, dict]:
    """What the page must show of each fence after these run events: its state and status,
    what it printed, its failure."""
    shown: dict[int, dict] = {}
    for event in told:
        index = event.get("index")
        if event["kind"] == "fresh":
            shown = {}
        elif event["kind"] == "running":
            shown[index] = {"state": "running", "status": event["status"], "printed": ""}
        elif event["kind"] == "print":
            shown[index]["printed"] += event["text"]
        elif event["kind"] == "done":
            shown[index].update(state=event["state"], status=event["status"])
            shown[index].update(report=event["report"], same=event["same"])
        elif event["kind"] in ("stale", "not-run", "waiting"):
            shown.setdefault(index, {"printed": ""})
            shown[index].update(state=event["kind"], status=event["status"])
    return {cells[i].line: s for i, s in shown.items()}


class Session:
    """The fixture page for one reader's session, laid out as the site is (the real scripts
    under assets/, the stand-in Pyodide in assets/pyodide/), and the calls its Python will
    be asked, recorded in CPython."""

    def __init__(self, folder: Path, edits: dict[int, str], chapter: Path = CHAPTER, more=""):
        self.chapter = Chapter.read(chapter)
        self.page = page_fences(chapter)
        self.notebook = bridge.open_chapter(json.dumps(self.page), book_engine())
        self.folder, self.edits, self.calls = folder, edits, []
        notebook = folder / "assets" / "notebook"
        notebook.mkdir(parents=True)
        text = fixture_page(self.chapter, self.page, more)
        (folder / "page.html").write_text(text, encoding="utf-8")
        (folder / "assets" / "page").mkdir()
        shutil.copyfile(ASSETS / "page" / "page.js", folder / "assets" / "page" / "page.js")
        for name in (*NOTEBOOK_SCRIPTS, "worker.js"):
            shutil.copyfile(ASSETS / "notebook" / name, notebook / name)
        template = (ROOT / "docs" / PROTOCOL_JS).read_text(encoding="utf-8")
        (folder / PROTOCOL_JS).write_text(protocol_script(template), encoding="utf-8")
        (notebook / "page.zip").write_bytes(b"")  # the stand-in imports nothing from it
        (notebook / "engine.json").write_text(book_engine(), encoding="utf-8")
        (folder / "assets" / "pyodide").mkdir()
        (folder / "assets" / "pyodide" / "pyodide.js").write_text(PYODIDE, encoding="utf-8")
        (folder / "assets" / "pyodide" / "pyodide.asm.mjs").write_text("export default null;")
        (folder / "editor.js").write_text(EDITOR, encoding="utf-8")
        (folder / "editor.css").write_text("", encoding="utf-8")
        (folder / "calls.json").write_text("[]", encoding="utf-8")

    def expect(self, target: int, all=False, told: list | None = None, hang=False) -> list:
        """A Run the page will ask for, and what tools/page/bridge.py tells for it in
        CPython (``told``: other events, as its text): the run's events but its drawings.
        ``hang``: the Run never ends, once its first fence is said to be running."""
        codes = {str(i): code for i, code in self.edits.items()}
        if told is None:
            told, book = [], self.notebook
            if hang:  # what runs on is not this session's: the next Run starts afresh
                book = bridge.open_chapter(json.dumps(self.page), book_engine())
            bridge.run(book, target, json.dumps(codes), all, told.append)
        if hang:
            told = told[: 1 + next(i for i, e in enumerate(told) if '"running"' in e)]
        self.record("run", {"target": target, "all": all, "codes": codes}, told=told, hang=hang)
        events = [json.loads(text) for text in told]
        return [e for e in events if e["kind"] not in ("figure", "graphs")]

    def record(self, call: str, asked, returns=None, told=(), hang=False) -> None:
        """A call the page's Python will be asked next, and its answer."""
        self.calls.append({"call": call, "asked": asked, "told": list(told),
                           "returns": returns, "hang": hang})  # fmt: skip
        (self.folder / "calls.json").write_text(json.dumps(self.calls), encoding="utf-8")

    def line(self, index: int) -> int:
        return self.page["fences"][index]["line"]


# What the page shows of each fence, by its first line: its Run bar, then the book's output
# block (if any), then the result (notebook.js's Cell.decorate).
SHOWN = """() => Object.fromEntries(
  [...document.querySelectorAll(".notebook-bar:not(.notebook-blocked)")].map((bar) => {
    const next = bar.nextElementSibling;
    const book = next.matches("div.language-output") ? next : null;
    const result = (book || bar).nextElementSibling;
    const printed = result.querySelector(".notebook-printed");
    return [bar.dataset.line, {
      state: bar.dataset.state, status: bar.querySelector(".notebook-status").textContent,
      printed: printed.textContent, printedShown: !printed.hidden && !result.hidden,
      failure: result.querySelector(".notebook-failure").textContent,
      book: book && { hidden: book.hidden, run: book.dataset.run ?? null },
    }];
  }))"""


def assert_shows(tab, expected: dict[int, dict]) -> None:
    """Each fence shows what Python decided for it: its state and status, how it failed,
    what it printed, and the book's output block marked (the same), hidden (other output,
    or a failure) or left as it is."""
    page = tab.evaluate(SHOWN)
    for line, want in expected.items():
        got, where = page[str(line)], f"{CHAPTER.name}, the fence at line {line}"
        assert (got["state"], got["status"]) == (want["state"], want["status"]), where
        report = want.get("report") or ""
        assert (got["failure"], got["printed"]) == (report, want["printed"]), where
        same = bool(want.get("same")) and got["book"] is not None  # no second copy, no empty box
        assert got["printedShown"] == (want["printed"] != "" and not same), f"{where}: printed box"
        if want.get("same") and not report:
            assert got["book"] == {"hidden": False, "run": "same"}, f"{where}: {got['book']}"
        elif got["book"] and (want["printed"] or report):
            assert got["book"]["hidden"], f"{where}: the book's output still shown"
