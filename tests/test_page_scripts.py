"""The page's scripts and its worker, fed what its Python says: a stand-in for Pyodide.

A small fixture page holds a chapter's python fences and ```output blocks as the site shows
them, its fence data as the build writes it (tools/site/page_data.py), and the real page.js,
protocol.js (filled in as the build fills it), the Run buttons' scripts and worker.js, laid
out as in the site. Where worker.js loads Pyodide, a stand-in answers each call of the
page's Python (bridge.run, the lab's answer, learner mode's check and table) with what
tools/page/bridge.py, tools/page/lab.py and tools/learn/in_page.py told and returned for
the same call in CPython, and refuses a call other than the one recorded: what the worker
sends, and in what order, is worker.js's own. What the page then shows (each fence's state
and status, what it printed, how it failed, the book's output block kept, marked, hidden or
folded; which buttons are shown and usable after a fence's Stop; where Esc leaves the focus;
Reset all refused and agreed) must be what Python decided. A message outside the protocol
is reported on the fence and in the console. The lab (lab.js under the two-moons chapter's
fences) shows each frame Python answered for Reset, Step and the gradients' box, says a
refusal and keeps its frame, and lets it go. Learner mode (learner.js) shows the table of a
Check as tools/learn/in_page.py made it, the places it names as links to their sections,
its hints one at a time and none left from the Check before, and asks before its Reset.
Chromium only, quick: it runs in `check`. What Pyodide itself does is tests/site/'s.
"""

import functools
import html
import json
import shutil
from pathlib import Path

import pytest
import yaml

from tests.helpers.browser import failure, open_tab
from tests.helpers.drive import bar, serve
from tests.helpers.recorded import learner_check
from tools import DOCS, ROOT
from tools.chapter import Chapter
from tools.page import bridge, lab
from tools.site.lab import PLACEHOLDER, lab_html
from tools.site.learner import PLACEHOLDER as LEARNER_HERE
from tools.site.learner import learner_html
from tools.site.learner import page_data as learner_data
from tools.site.page_data import element, page_fences
from tools.site.runtime import (
    PROTOCOL_JS,
    SNAPSHOT_LIMIT,
    engine_json,
    protocol_script,
    start_data,
)

pytestmark = pytest.mark.browser

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
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>fixture</title></head>"
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


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fixture")
    with serve(folder) as url:
        yield folder, url


def opened(browser, url: str, session: Session):
    """The fixture page, with the session's edits kept in the browser as a reader's are."""
    key = f"literate-micrograd:edits:{session.page['chapter']}"
    names = session.page["names"]
    kept = {names[i]: code for i, code in session.edits.items()}
    tab = open_tab(browser, "about:blank")
    tab.context.add_init_script(
        f"localStorage.setItem({json.dumps(key)}, {json.dumps(json.dumps(kept))})"
    )
    tab.goto(f"{url}/{session.folder.name}/page.html", wait_until="load")
    return tab


def click_and_wait(tab, button) -> None:
    button.click()
    tab.wait_for_selector("body[data-notebook=idle]", state="attached", timeout=30_000)


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


def first_with_output() -> int:
    """The chapter's first fence, but the first, that prints what its output block shows."""
    fences, cells = page_fences(CHAPTER)["fences"], Chapter.read(CHAPTER).cells
    return next(
        i for i, cell in enumerate(cells)
        if i > 0 and cell.output is not None and not cell.fence.is_engine
        and not fences[i]["blocked"]
    )  # fmt: skip


@pytest.mark.parametrize("past", [0, 1], ids=["at the limit", "one byte past"])
def test_a_start_is_kept_up_to_the_snapshot_limit_and_not_past_it(browser, served, past):
    folder, url = served
    session = Session(folder / f"kept-{past}", {})
    session.record("snapshot", None, returns=SNAPSHOT_LIMIT + past)  # the worker's start
    session.expect(0)
    tab = opened(browser, url, session)
    try:
        click_and_wait(tab, bar(tab, session.line(0)).locator(".notebook-run"))
        tab.evaluate("window.bookPython.keeping")  # the page's writing of it, done
        kept = tab.evaluate("window.bookPython.snapshots.read().then(k => k?.bytes.byteLength)")
        assert kept == (None if past else SNAPSHOT_LIMIT), kept
        assert not tab.watch.problems, tab.watch.problems
    finally:
        tab.context.close()


def test_run_all_a_failure_with_output_the_fences_not_run_and_stale_ones(browser, served):
    folder, url = served
    edited = first_with_output()
    first = Chapter.read(CHAPTER).cells[0].fence.code  # it prints the announcer's limit
    planted = "print('y' * 401)\nraise ValueError('planted')\n"  # one past it
    session = Session(folder / "all", {0: first + "print('x' * 400)\n", edited: planted})
    last = max(i for i, f in enumerate(session.page["fences"]) if not f["blocked"])
    told = session.expect(last, all=True)
    assert any(e["kind"] == "not-run" for e in told), "nothing after the failure to leave unrun"
    again = session.expect(0)
    tab = opened(browser, url, session)
    try:
        click_and_wait(tab, tab.locator(".notebook-run-all"))
        assert_shows(tab, shown_as(told, session.chapter.cells))
        said = bar(tab, session.line(last)).locator(".notebook-status").text_content()
        assert said == next(e["status"] for e in told if e["kind"] == "not-run"), said
        click_and_wait(tab, bar(tab, session.line(0)).locator(".notebook-run"))
        assert_shows(tab, shown_as(told + again, session.chapter.cells))
        said = tab.locator(".notebook-announce").text_content()  # at its opening ``` line
        assert said.startswith(f"Fence at line {session.line(0) - 1}: "), said
        assert said.endswith(f"It printed: {'x' * 400}"), said  # at the limit: all of it
        assert "stale" in {bar(tab, session.line(i)).get_attribute("data-state")
                           for i in range(1, edited + 1)}  # fmt: skip
        session.expect(edited)
        click_and_wait(tab, bar(tab, session.line(edited)).locator(".notebook-run"))
        said = tab.locator(".notebook-announce").text_content()  # one past: cut, and said so
        assert f"It printed: {'y' * 400}… ValueError: planted" in said, said
        assert not tab.watch.problems, tab.watch.problems
    finally:
        tab.context.close()


# Every button of the chapter's code, where it is ("tools", or its fence's first line):
# {(where, its class): [hidden, disabled]}.
BUTTONS = """() => [...document.querySelectorAll('.notebook-tools button, .notebook-bar button')]
  .map((b) => [b.closest('.notebook-bar')?.dataset.line ?? 'tools', b.classList[1],
               b.hidden, b.disabled])"""


def buttons(tab) -> dict[tuple[str, str], list[bool]]:
    return {(where, name): [hidden, disabled] for where, name, hidden, disabled
            in tab.evaluate(BUTTONS)}  # fmt: skip


def test_a_single_fences_stop_the_toolbar_the_books_folded_output_focus_and_reset_all(
    browser, served
):
    folder, url = served
    edited = first_with_output()
    session = Session(folder / "stop", {edited: 'print("not the book\'s output")\n'})
    first = str(session.line(0))
    session.expect(0, hang=True)
    tab = opened(browser, url, session)
    try:
        bar(tab, session.line(0)).locator(".notebook-run").click()
        tab.wait_for_selector(f'.notebook-bar[data-line="{first}"][data-state=running]')
        shown = {k: v for k, v in buttons(tab).items() if not v[0]}
        usable = [(first, "notebook-stop"), (str(session.line(edited)), "notebook-reset")]
        assert [k for k, (_, disabled) in shown.items() if not disabled] == usable, shown
        assert ("tools", "notebook-stop") not in shown, "Run all's Stop, on a fence's Run"
        bar(tab, session.line(0)).locator(".notebook-stop").click()
        tab.wait_for_selector("body[data-notebook=idle]", state="attached")
        assert bar(tab, session.line(0)).get_attribute("data-state") == "stopped"
        shown = {k: v for k, v in buttons(tab).items() if not v[0]}
        assert not [k for k, (_, disabled) in shown.items() if disabled], shown
        assert not [k for k in shown if k[1] == "notebook-stop"], shown
        assert tab.locator(".notebook-tools .notebook-status").text_content() == ""

        session.calls = []  # the next Run starts Python again, which asks from the start
        told = session.expect(edited)
        click_and_wait(tab, bar(tab, session.line(edited)).locator(".notebook-run"))
        assert_shows(tab, shown_as(told, session.chapter.cells))
        result = bar(tab, session.line(edited)).locator("xpath=following-sibling::div[2]")
        assert result.locator(".notebook-caption").text_content() == (
            "output of this run, not the book's (folded below)")  # fmt: skip
        folded = result.locator("details.notebook-book")
        assert folded.is_visible() and folded.locator("pre").text_content() == (
            session.chapter.cells[edited].output.code)  # fmt: skip
        editor = bar(tab, session.line(edited)).locator("xpath=preceding-sibling::div[1]")
        editor.locator("textarea").press("Escape")  # the editor lets the keyboard go
        run = bar(tab, session.line(edited)).locator(".notebook-run")
        assert run.evaluate("button => document.activeElement === button")

        tab.once("dialog", lambda dialog: dialog.dismiss())  # Reset all asks; the reader refuses
        tab.locator(".notebook-reset-all").click()
        assert bar(tab, session.line(edited)).get_attribute("data-edited") == "yes"
        tab.once("dialog", lambda dialog: dialog.accept())
        tab.locator(".notebook-reset-all").click()
        assert bar(tab, session.line(edited)).get_attribute("data-edited") == "no"
        assert editor.locator("textarea").input_value() == session.page["fences"][edited][
            "code"
        ].rstrip("\n")
        assert not tab.watch.problems, tab.watch.problems
    finally:
        tab.context.close()


def test_a_failure_without_output_under_an_output_block_hides_the_books_output(browser, served):
    folder, url = served
    edited = first_with_output()
    session = Session(folder / "bare", {edited: "raise ValueError('planted, nothing printed')\n"})
    told = session.expect(edited)
    assert [e["kind"] for e in told if e.get("index") == edited][-1] == "done"
    tab = opened(browser, url, session)
    try:
        click_and_wait(tab, bar(tab, session.line(edited)).locator(".notebook-run"))
        assert_shows(tab, shown_as(told, session.chapter.cells))
        book = bar(tab, session.line(edited)).locator("xpath=following-sibling::div[1]")
        assert book.is_hidden() and "ValueError" in failure(tab, session.line(edited))
        assert not tab.watch.problems, tab.watch.problems
    finally:
        tab.context.close()


def test_a_start_pyodide_refuses_is_said_in_one_sentence_and_the_next_run_starts_again(
    browser, served
):
    folder, url = served
    session = Session(folder / "refused", {})
    refusal = "TypeError: Cross-origin script load denied by Cross-Origin Resource Sharing policy."
    session.record("refuse", None, returns=refusal)
    tab = opened(browser, url, session)
    try:
        run = bar(tab, session.line(0)).locator(".notebook-run")
        click_and_wait(tab, run)
        said = f"Python could not start: {refusal[:-1]}. The next Run tries again."
        assert failure(tab, session.line(0)) == said, failure(tab, session.line(0))
        assert bar(tab, session.line(0)).get_attribute("data-state") == "broken"
        assert not [k for k, (hidden, off) in buttons(tab).items() if off and not hidden]
        session.calls = []  # a new worker: its Python asks from the start, and starts
        told = session.expect(0)
        click_and_wait(tab, run)  # Python starts again, and runs the fence
        assert_shows(tab, shown_as(told, session.chapter.cells))
        assert [p for p in tab.watch.problems if refusal not in p] == [], tab.watch.problems
    finally:
        tab.context.close()


def test_a_message_outside_the_protocol_is_reported_on_the_fence_and_in_the_console(
    browser, served
):
    folder, url = served
    session = Session(folder / "bad", {})
    session.expect(0, told=[json.dumps({"kind": "done", "index": 0})])
    tab = opened(browser, url, session)
    try:
        click_and_wait(tab, bar(tab, session.line(0)).locator(".notebook-run"))
        said = "run event 'done': missing field 'state'"
        assert said in failure(tab, session.line(0)), failure(tab, session.line(0))
        assert any(said in problem for problem in tab.watch.problems), tab.watch.problems
    finally:
        tab.context.close()


LAB_PAGE = next(p for p in sorted(DOCS.glob("*.md")) if PLACEHOLDER in p.read_text())
# What the lab shows of its last answer (lab.js's show).
LAB_SHOWN = """() => {
  const q = (selector) => document.querySelector(selector);
  return {
    frame: window.bookLab.frame, step: q(".lab").dataset.step ?? null,
    refused: q(".lab").dataset.refused ?? null, now: q(".lab-now").textContent,
    problem: q(".lab-problem").hidden ? null : q(".lab-problem").textContent,
    rects: document.querySelectorAll(".lab-boundary rect").length,
    lines: document.querySelectorAll(".lab-network line").length,
    what: q(".lab-what").textContent,
    curves: document.querySelectorAll(".lab-curves polyline").length,
  };
}"""


def test_the_lab_shows_each_frame_and_refusal_that_python_answers(browser, served):
    folder, url = served
    more = lab_html(f"{PLACEHOLDER}: the fixture.", "", ".")[0]
    session = Session(folder / "lab", {}, LAB_PAGE, more)
    shutil.copytree(ASSETS / "lab", folder / "lab" / "lab")
    engine, book = book_engine(), {**lab.BOOK}
    steps = [  # what the reader does, and the request it makes
        (
            "reset",
            {"action": "open", "settings": book, "gradients": False, "codes": {}, "added": ""},
        ),
        ("step", {"action": "step", "settings": book, "gradients": False}),
        ("gradients", {"action": "draw", "settings": book, "gradients": True}),
        ("step", {"action": "step", "settings": {**book, "rate": "fast"}, "gradients": True}),
        ("step", {"action": "step", "settings": book, "gradients": True}),  # the refusal goes
    ]
    answers = []
    for _, request in steps:
        sent = (
            {**request, "page": json.dumps(session.page)}
            if request["action"] == "open"
            else request
        )
        answers.append(json.loads(lab.answer(json.dumps(sent), engine)))
        session.record("lab", request, returns=json.dumps(answers[-1]))
    assert [next(iter(a)) for a in answers] == ["frame", "frame", "frame", "refused", "frame"]
    tab = opened(browser, url, session)
    try:
        tab.wait_for_selector(".lab[data-state=idle]")
        shown = None
        for (what, request), answer in zip(steps, answers):
            tab.locator(".lab-rate").fill(request["settings"]["rate"])
            tab.locator(f".lab-{what}").click()
            tab.wait_for_selector(".lab[data-state=idle]", state="attached")  # answered
            before, shown = shown, tab.evaluate(LAB_SHOWN)
            if "frame" in answer:
                frame = answer["frame"]
                assert shown["frame"] == frame and shown["refused"] is None, what
                assert (shown["step"], shown["now"]) == (str(frame["step"]), frame["status"])
                assert shown["problem"] == frame["problem"] and shown["what"] == frame["shows"]
                assert shown["rects"] == frame["boundary"].count("<rect"), what
                assert shown["lines"] == frame["network"].count("<line"), what
                assert shown["curves"] == frame["curves"].count("<polyline"), what
            else:  # the refusal is said; the lab keeps what it showed
                assert (shown["problem"], shown["refused"]) == (answer["refused"], "yes")
                assert {k: shown[k] for k in ("frame", "now", "step")} == {
                    k: before[k] for k in ("frame", "now", "step")}  # fmt: skip
        assert not tab.watch.problems, tab.watch.problems
    finally:
        tab.context.close()


LEARNER_PAGE = next(p for p in sorted(DOCS.glob("*.md")) if LEARNER_HERE in p.read_text())
CHECKED = DOCS / "02-the-value-atom.md"  # the chapter the learner checks
RECORD = "literate-micrograd:learner:record"  # learner.js keeps its best scores there
TABLE = "literate-micrograd:learner:table"  # and the table of the last Check
# The learner's table as the reader sees it: caption, and each row's cells [tag, scope, text,
# the hrefs of its links].
TABLE_SHOWN = """() => { const table = document.querySelector('.learner-rows table');
  return [table.caption.textContent, [...table.rows].map((row) => [...row.cells].map((c) =>
    [c.tagName, c.scope, c.textContent, [...c.querySelectorAll('a')].map((a) => a.href)]))]; }"""


def _href(data: dict, chapter: str, section: str) -> str:
    """Where learner.js links a place in the book: its section, or its chapter's page."""
    place = data["places"][chapter]
    return place["sections"][section] if section else place["url"]


def test_learner_mode_shows_the_table_its_links_and_the_hints_python_made(
    browser, served, tmp_path
):
    folder, url = served
    href = lambda name, anchor: f"{name[:-3]}.html" + (f"#{anchor}" if anchor else "")  # noqa: E731
    data = learner_data(DOCS, href)
    more = learner_html(f"{LEARNER_HERE}: the fixture.", data, ".")[0]
    session = Session(folder / "learner", {}, LEARNER_PAGE, more)
    shutil.copytree(ASSETS / "learner", folder / "learner" / "learner")
    engine = data["skeleton"]
    runs, table = learner_check(tmp_path, CHECKED.name, engine)
    (session.folder / "learner" / "book.zip").write_bytes(b"")  # unpacked by the stand-in: no
    told = [json.dumps(event) for event in runs[0]["events"]]
    session.record("learn", {"chapter": CHECKED.name, "engine": engine}, told=told)
    asked = {"runs": runs, "engine": engine, "diagnose": True, "record": None}
    session.record("learn-table", asked, returns=json.dumps(table))
    assert table["hints"], "the skeleton fails CHECKED: there are hints"
    tab = opened(browser, url, session)
    try:
        tab.wait_for_selector(".learner[data-state=idle]", state="attached")
        tab.locator(".learner-chapter").select_option(CHECKED.name)
        tab.locator(".learner-check").click()
        tab.wait_for_selector(".learner[data-checked='1']", state="attached")
        # The table: its caption, then each row's cells (the header row's and each row's first
        # are th, with their scope), their text and their links.
        rows, at = table["rows"], f"{url}/learner/"  # where the page is
        cell = lambda parts, tag="TD", scope="": [tag, scope, "".join(p[0] for p in parts),  # noqa: E731
            [at + _href(data, c, section) for _, c, section in parts if c]]  # fmt: skip
        cells = [[cell(parts, "TH", "col") for parts in rows["head"].values()]] + [
            [cell(first, "TH", "row"), *map(cell, more)] for first, *more in
            ([*row.values()] for row in [*rows["body"], rows["foot"]])]  # fmt: skip
        assert tab.evaluate(TABLE_SHOWN) == [rows["caption"], cells] and len(cells) == 3
        assert [len(links) for *_, links in cells[1]] == [1, 0, 1]  # the chapter, its failing
        shown = tab.locator(".learner-table")  # below the table: the text, its places linked
        assert shown.text_content() == "".join(part for part, _, _ in table["table"])
        links = shown.locator("a")
        wanted = [(part, _href(data, chapter, section))
                  for part, chapter, section in table["table"] if chapter]  # fmt: skip
        got = [(links.nth(k).text_content(), links.nth(k).get_attribute("href"))
               for k in range(links.count())]  # fmt: skip
        assert got == wanted and wanted, got
        title = Chapter.read(CHECKED).title
        assert tab.locator(".learner-status").text_content() == f"Checked {title}."
        for level, hint in enumerate(table["hints"][:2], 1):
            tab.locator(".learner-hint").click()
            said = tab.locator(".learner-hint-text").text_content()
            assert said == "".join(part for part, _, _ in hint), f"hint {level}: {said}"
        # A second Check: the hint of the first one goes; Hint gives one again.
        record = tab.evaluate(f"JSON.parse(localStorage.getItem({json.dumps(RECORD)}))")
        session.record("learn", {"chapter": CHECKED.name, "engine": engine}, told=told)
        session.record("learn-table", {**asked, "record": record}, returns=json.dumps(table))
        assert tab.locator(".learner-hint-text").is_visible()
        tab.locator(".learner-check").click()
        tab.wait_for_selector(".learner[data-checked='2']", state="attached")
        assert tab.locator(".learner-hint-text").is_hidden(), "the last Check's hint is left"
        assert tab.locator(".learner-hint").is_enabled()
        # Reset asks first: refused, the learner's engine stays; agreed, the skeleton is back.
        editor = tab.locator(".learner-editor textarea")
        tab.locator(".learner-editor").hover()  # the reader reaches for it: the editor is made
        editor.fill("class Value: pass\n")
        tab.once("dialog", lambda dialog: dialog.dismiss())
        tab.locator(".learner-reset").click()
        assert editor.input_value() == "class Value: pass\n"
        tab.once("dialog", lambda dialog: dialog.accept())
        tab.locator(".learner-reset").click()
        assert editor.input_value() == engine
        # A reload shows the table kept; one kept by an earlier version (a string), as text.
        for kept in [None, {"table": "an earlier version's table"}]:
            if kept:
                tab.evaluate(f"k => localStorage.setItem('{TABLE}', JSON.stringify(k))", kept)
            tab.reload(wait_until="load")
            tab.wait_for_selector(".learner[data-state=idle]", state="attached")
            if kept is None:
                assert tab.evaluate(TABLE_SHOWN) == [rows["caption"], cells]
        shown = tab.locator(".learner-table")
        assert shown.text_content() == kept["table"] and tab.locator(".learner-rows").is_hidden()
        assert not tab.watch.problems, tab.watch.problems
    finally:
        tab.context.close()
