"""The page's scripts and its worker, fed what its Python says: a stand-in for Pyodide
(tests/helpers/stand_in.py) answers each call of the page's Python (bridge.run, the lab's
answer, learner mode's check and table) with what CPython told and returned for the same
call, and refuses a call other than the one recorded: what the worker sends, and in what
order, is worker.js's own. What the page then shows (each fence's state and status, what it
printed, how it failed, the book's output block kept, marked, hidden or folded; which buttons
are shown and usable after a fence's Stop; where Esc leaves the focus; Reset all refused and
agreed) must be what Python decided. A message outside the protocol
is reported on the fence and in the console. The lab (lab.js under the two-moons chapter's
fences) shows each frame Python answered for Reset, Step and the gradients' box, says a
refusal and keeps its frame, and lets it go. Learner mode (learner.js) shows the table of a
Check as tools/learn/in_page.py made it, the places it names as links to their sections,
its hints one at a time and none left from the Check before, and asks before its Reset.
Chromium only, quick: it runs in `check`. What Pyodide itself does is tests/site/'s.
"""

import json
import shutil

import pytest

from tests.helpers.browser import clear, failure, open_tab
from tests.helpers.drive import bar, serve
from tests.helpers.recorded import learner_check
from tests.helpers.stand_in import ASSETS, CHAPTER, Session, assert_shows, book_engine, shown_as
from tools import DOCS
from tools.chapter import Chapter
from tools.page import lab
from tools.site.lab import PLACEHOLDER, lab_html
from tools.site.learner import PLACEHOLDER as LEARNER_HERE
from tools.site.learner import learner_html
from tools.site.learner import page_data as learner_data
from tools.site.page_data import page_fences
from tools.site.runtime import SNAPSHOT_LIMIT

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fixture")
    with serve(folder) as url:
        yield folder, url


@pytest.fixture(scope="module")
def keeper(browser):
    """One context for the module's tabs: a fresh one a tab doubles its CPU."""
    tab = open_tab(browser, "about:blank")
    yield tab
    tab.context.close()


@pytest.fixture
def opened(keeper, served):
    """Opens a session's fixture page, with its edits kept in the browser as a reader's
    are; each closed after the test, which fails if the page had a problem it left there.
    What the test's pages stored (edits, a kept start) goes with them."""
    tabs, problems = [], keeper.watch.problems

    def open_(session: Session):
        key = f"literate-micrograd:edits:{session.page['chapter']}"
        kept = {session.page["names"][i]: code for i, code in session.edits.items()}
        tabs.append(keeper.context.new_page())
        tabs[-1].watch = keeper.watch
        tabs[-1].add_init_script(
            f"localStorage.setItem({json.dumps(key)}, {json.dumps(json.dumps(kept))})"
        )
        tabs[-1].goto(f"{served[1]}/{session.folder.name}/page.html", wait_until="load")
        return tabs[-1]

    yield open_
    for tab in tabs:
        tab.close()
    clear(keeper, [served[1]])
    left, problems[:] = list(problems), []
    assert not left, left


# Every runnable fence has its editor: notebook.js makes them all once a reader reaches for
# one (the pointer entering a Run bar) or has edits kept, and they move what is below them.
EDITORS_MADE = """() => document.querySelectorAll('.notebook-editor').length
  === document.querySelectorAll('.notebook-bar:not(.notebook-blocked)').length"""


def click(tab, button) -> None:
    """Click a button of a Run bar as a reader's pointer does, once the page has made what
    the pointer's arrival asks for: else the editors (the stand-in's textareas, taller than
    the code they replace) can move the button between the pointer's arrival and its press,
    which then lands on another element and is lost (1 run in 6 with both cores busy)."""
    button.hover()
    tab.wait_for_function(EDITORS_MADE)
    button.click()


def click_and_wait(tab, button) -> None:
    if button.evaluate("b => !!b.closest('.notebook-bar')"):
        click(tab, button)
    else:  # Run all, above the fences: no reach for a fence, nothing moves it
        button.click()
    tab.wait_for_selector("body[data-notebook=idle]", state="attached", timeout=30_000)


def first_with_output() -> int:
    """The chapter's first fence, but the first, that prints what its output block shows."""
    fences, cells = page_fences(CHAPTER)["fences"], Chapter.read(CHAPTER).cells
    return next(
        i for i, cell in enumerate(cells)
        if i > 0 and cell.output is not None and not cell.fence.is_engine
        and not fences[i]["blocked"]
    )  # fmt: skip


@pytest.mark.parametrize("past", [0, 1], ids=["at the limit", "one byte past"])
def test_a_start_is_kept_up_to_the_snapshot_limit_and_not_past_it(opened, served, past):
    session = Session(served[0] / f"kept-{past}", {})
    session.record("snapshot", None, returns=SNAPSHOT_LIMIT + past)  # the worker's start
    session.expect(0)
    tab = opened(session)
    click_and_wait(tab, bar(tab, session.line(0)).locator(".notebook-run"))
    tab.evaluate("window.bookPython.keeping")  # the page's writing of it, done
    kept = tab.evaluate("window.bookPython.snapshots.read().then(k => k?.bytes.byteLength)")
    assert kept == (None if past else SNAPSHOT_LIMIT), kept


def test_run_all_a_failure_with_output_the_fences_not_run_and_stale_ones(opened, served):
    edited = first_with_output()
    first = Chapter.read(CHAPTER).cells[0].fence.code  # it prints the announcer's limit
    planted = "print('y' * 401)\nraise ValueError('planted')\n"  # one past it
    session = Session(served[0] / "all", {0: first + "print('x' * 400)\n", edited: planted})
    last = max(i for i, f in enumerate(session.page["fences"]) if not f["blocked"])
    told = session.expect(last, all=True)
    assert any(e["kind"] == "not-run" for e in told), "nothing after the failure to leave unrun"
    again = session.expect(0)
    tab = opened(session)
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


# Every button of the chapter's code, where it is ("tools", or its fence's first line):
# {(where, its class): [hidden, disabled]}.
BUTTONS = """() => [...document.querySelectorAll('.notebook-tools button, .notebook-bar button')]
  .map((b) => [b.closest('.notebook-bar')?.dataset.line ?? 'tools', b.classList[1],
               b.hidden, b.disabled])"""


def buttons(tab) -> dict[tuple[str, str], list[bool]]:
    return {(where, name): [hidden, disabled] for where, name, hidden, disabled
            in tab.evaluate(BUTTONS)}  # fmt: skip


def test_a_single_fences_stop_the_toolbar_the_books_folded_output_focus_and_reset_all(
    opened, served
):
    edited = first_with_output()
    session = Session(served[0] / "stop", {edited: 'print("not the book\'s output")\n'})
    first = str(session.line(0))
    session.expect(0, hang=True)
    tab = opened(session)
    click(tab, bar(tab, session.line(0)).locator(".notebook-run"))
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


def test_a_failure_without_output_under_an_output_block_hides_the_books_output(opened, served):
    edited = first_with_output()
    session = Session(
        served[0] / "bare", {edited: "raise ValueError('planted, nothing printed')\n"}
    )
    told = session.expect(edited)
    assert [e["kind"] for e in told if e.get("index") == edited][-1] == "done"
    tab = opened(session)
    click_and_wait(tab, bar(tab, session.line(edited)).locator(".notebook-run"))
    assert_shows(tab, shown_as(told, session.chapter.cells))
    book = bar(tab, session.line(edited)).locator("xpath=following-sibling::div[1]")
    assert book.is_hidden() and "ValueError" in failure(tab, session.line(edited))


def test_a_start_pyodide_refuses_is_said_in_one_sentence_and_the_next_run_starts_again(
    opened, served
):
    session = Session(served[0] / "refused", {})
    refusal = "TypeError: Cross-origin script load denied by Cross-Origin Resource Sharing policy."
    session.record("refuse", None, returns=refusal)
    tab = opened(session)
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
    tab.watch.problems[:] = [p for p in tab.watch.problems if refusal not in p]  # said


def test_a_message_outside_the_protocol_is_reported_on_the_fence_and_in_the_console(opened, served):
    session = Session(served[0] / "bad", {})
    session.expect(0, told=[json.dumps({"kind": "done", "index": 0})])
    tab = opened(session)
    click_and_wait(tab, bar(tab, session.line(0)).locator(".notebook-run"))
    said = "run event 'done': missing field 'state'"
    assert said in failure(tab, session.line(0)), failure(tab, session.line(0))
    assert any(said in problem for problem in tab.watch.problems), tab.watch.problems
    tab.watch.problems.clear()


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


def test_the_lab_shows_each_frame_and_refusal_that_python_answers(opened, served):
    folder = served[0]
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
    tab = opened(session)
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


def test_learner_mode_shows_the_table_its_links_and_the_hints_python_made(opened, served, tmp_path):
    folder = served[0]
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
    tab = opened(session)
    tab.wait_for_selector(".learner[data-state=idle]", state="attached")
    tab.locator(".learner-chapter").select_option(CHECKED.name)
    tab.locator(".learner-check").click()
    tab.wait_for_selector(".learner[data-checked='1']", state="attached")
    # The table: its caption, then each row's cells (the header row's and each row's first
    # are th, with their scope), their text and their links.
    rows, at = table["rows"], f"{served[1]}/learner/"  # where the page is
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
