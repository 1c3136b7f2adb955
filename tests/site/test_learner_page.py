"""Learner mode in the page (chapter 16, tools/site/learner.py), in Chromium: the skeleton
shows, an editor once the reader reaches for it; Check gives the terminal's table (an HTML
table, scrolling in a box a keyboard reaches on a phone, then text), a planted bug names its
section and Hint gives the hints about it, one more each press, the book's
engine passes a second chapter's counted checks, a broken or endless engine is reported;
what was typed and the last table survive a reload, the download is the editor's text.

One page and one Python for the whole story, to keep the browser's time small; the table
of typical bugs is tested in the terminal (tests/test_learner_bugs.py), and every chapter
run through the page's Python code in CPython (tests/test_learner_in_page.py): the page
checks two. Learner mode checks in the Python of the Run buttons (one worker per tab), and
a visit that leaves the chapter and comes back leaves nothing behind.
"""

import re

import pytest

from tests.helpers.browser import (
    DESKTOP,
    LEARNER_SHOWN,
    PHONE,
    RUN_TIMEOUT,
    as_shown,
    assert_clean,
    editor_text,
    next_chapter_to,
    one_python,
    python_never_comes,
    run,
    states,
)
from tests.site.test_every_page import axe_source, violations  # noqa: F401 (a fixture)
from tools import ENGINE, ROOT
from tools.chapter import Chapter
from tools.learn.child import check
from tools.learn.counted import engine_checks, engine_names
from tools.learn.hints import AFTER, hint
from tools.learn.in_page import _blocked
from tools.learn.mistakes import seen
from tools.learn.places import chapters_named
from tools.learn.skeleton import skeleton
from tools.learn.table import page_table
from tools.notebook import import_engine
from tools.site.learner import PAGE, PLACEHOLDER
from tools.site.page_data import page_fences

VALUE_CHAPTER = ROOT / "docs" / "02-the-value-atom.md"
SECOND_CHAPTER = ROOT / "docs" / "05-a-scalar-neuron.md"  # one check it cannot run
BEFORE = ROOT / "docs" / "15-retention.md"  # the chapter before learner mode's: it has Runs
ASSIGNED = ("operand.grad += local * grad", "operand.grad = local * grad")  # = for +=


def _check(tab, chapter: str = "", limit: int | None = None) -> str:
    """Press Check for one chapter (or every chapter); return the table the page shows, as
    text (LEARNER_SHOWN)."""
    if limit is not None:
        tab.locator(".learner").evaluate(f"e => e.dataset.limit = '{limit}'")
    tab.select_option(".learner-chapter", chapter)
    done = int(tab.locator(".learner").get_attribute("data-checked") or 0) + 1
    tab.click(".learner-check")
    finished = f'.learner[data-checked="{done}"]'
    tab.wait_for_selector(finished, state="attached", timeout=RUN_TIMEOUT)
    status = tab.locator(".learner-status").text_content()
    assert status.startswith("Checked"), status
    return tab.evaluate(LEARNER_SHOWN)


def test_the_chapter_keeps_a_placeholder_for_readers_elsewhere():
    chapter = (ROOT / "docs" / PAGE).read_text(encoding="utf-8")
    assert chapter.count(PLACEHOLDER) == 1 and "python3 tools/dev.py learn" in chapter
    # and the whole book keeps it, with no learner mode: tests/test_prepare.py


@pytest.mark.usefixtures("runtime")
def test_learner_mode_in_the_page(open_page, site_url, tmp_path, axe_source):  # noqa: F811
    tab = open_page(f"{site_url}/{PAGE.removesuffix('.md')}.html", kept=True)
    tab.wait_for_selector(".learner[data-state=idle]", state="attached")
    boxes = [".learner-caption", ".learner-rows", ".learner-table", ".learner-hint-text"]
    assert [tab.locator(box).bounding_box() for box in boxes] == [None] * 4  # before a Check
    offered = tab.locator(".learner-chapter option").all_text_contents()
    names = engine_names()  # chapter 1 has no check of the engine: not offered
    with_checks = [Chapter.read(c).title for c in chapters_named([]) if engine_checks(c, names)]
    assert offered == ["every chapter", *with_checks] and len(with_checks) > 1, offered
    # The skeleton shows as text; a click in it makes it the editor (loaded then), focused.
    assert tab.locator(".learner-code").text_content() == skeleton()
    tab.click(".learner-code")
    tab.wait_for_function("document.activeElement?.matches('.learner .cm-content')")
    editor = tab.locator(".learner .cm-content")
    assert editor_text(editor) == skeleton() and not tab.locator(".learner-code").count()

    # The skeleton scores 0, in the terminal's table (engine named as downloaded): a table
    # whose chapter links to its page and first failing check to its section, then text.
    mine = tmp_path / ENGINE
    mine.write_text(skeleton(), encoding="utf-8")
    shown = as_shown(*page_table(check(mine, [VALUE_CHAPTER]), ENGINE))
    assert _check(tab, VALUE_CHAPTER.name) == shown
    assert one_python(tab)  # the Run buttons' Python: no second one
    row, page = tab.locator(".learner-rows tbody tr"), "02-the-value-atom.html"
    assert row.locator("th[scope=row] a").get_attribute("href") == page
    assert row.locator("td a").get_attribute("href") == f"{page}#five-fields"
    tab.set_viewport_size(PHONE)  # narrow, it scrolls in a box a keyboard can reach
    tab.wait_for_selector(".learner-rows[data-scrolls=yes][tabindex='0']", state="attached")
    assert violations(tab, axe_source) == []
    tab.set_viewport_size(DESKTOP)

    # A planted bug: Read next names the section that explains it, linked on the site.
    book = (ROOT / ENGINE).read_text(encoding="utf-8")
    assert book.count(ASSIGNED[0]) == 1
    planted = book.replace(*ASSIGNED)
    editor.fill(planted)
    table = _check(tab, VALUE_CHAPTER.name)
    read_next = "docs/02-the-value-atom.md, section 'The backward contract'"
    assert f"Read next: {read_next}" in table, table
    links = tab.locator(".learner-table a", has_text=read_next)
    assert links.first.get_attribute("href") == "02-the-value-atom.html#the-backward-contract"

    # Hint: the section first, linked; then the rule, as the chapter writes it; then, only
    # after a Check since the rule, the worked example of the mistake the diagnosis saw.
    mine.write_text(planted, encoding="utf-8")
    found = seen("Value._backward", import_engine(mine))
    assert found["mistake"] == "assigned"
    tab.click(".learner-hint")
    shown = tab.locator(".learner-hint-text")
    said = ["\n".join(hint("Value._backward", n, seen=found)) for n in (1, 2, 3)]
    assert shown.text_content() == said[0], shown.text_content()
    assert shown.locator("a").first.get_attribute("href").startswith("02-the-value-atom.html#")
    tab.click(".learner-hint")
    assert shown.text_content() == f"{said[1]}\n{AFTER}"
    tab.click(".learner-hint")
    assert shown.text_content() == f"{said[1]}\n{AFTER}"  # not the answer yet
    _check(tab, VALUE_CHAPTER.name)
    tab.click(".learner-hint")
    tab.click(".learner-hint")
    assert shown.text_content() == said[2]  # the last stays

    # The book's own engine passes every counted check of a second chapter that the page
    # can run, and the check it cannot is said. (Every chapter, run by the same Python
    # code as the page runs it: tests/test_learner_in_page.py.)
    editor.fill(book)
    table = _check(tab, SECOND_CHAPTER.name)
    every = chapters_named([])
    counted = len(engine_checks(SECOND_CHAPTER, engine_names()) - _blocked(SECOND_CHAPTER))
    assert re.search(rf"^all +{counted} of {counted}$", table, re.M), table
    assert f"\nEvery check passes against {ENGINE}.\n" in table, table
    assert f"Not run on this page: {len(_blocked(SECOND_CHAPTER))} check " in table, table

    # An engine that does not parse, checked against every chapter (each stops at once, so
    # the page's round of every chapter costs little): its line and the error; every
    # chapter "not run", in the book's order.
    editor.fill("class Value:\n    def __init__(self data):\n        pass\n")
    table = _check(tab)
    assert table.startswith(f"No check could run: {ENGINE} does not import: SyntaxError"), table
    rows = re.findall(r"^(\S+\.md) +not run$", table, re.M)
    assert "line 2" in table and rows == [path.name for path in every], table

    # (An engine that never returns is stopped at the time limit: the test below.)
    # What was typed survives a reload, and so does the last table; the download is it.
    editor.fill(planted)
    tab.reload(wait_until="load")
    tab.wait_for_selector(".learner[data-state=idle]", state="attached")
    assert editor_text(editor) == planted
    assert "does not import: SyntaxError" in tab.locator(".learner-table").text_content()
    assert "an earlier version" in tab.locator(".learner-caption").text_content()
    with tab.expect_download() as download:
        tab.click(".learner-download")
    assert download.value.suggested_filename == ENGINE
    assert download.value.path().read_bytes() == planted.encode("utf-8")

    # Loading a file asks before replacing what the editor holds; Reset asks before the
    # skeleton comes back: dismissed, nothing changes.
    asked, answers = [], []

    def answer(dialog):
        asked.append(dialog.message)
        dialog.accept() if answers.pop(0) else dialog.dismiss()

    tab.on("dialog", answer)
    other = tmp_path / "other.py"
    other.write_text("x = 1\n", encoding="utf-8")
    answers.append(True)
    tab.set_input_files(".learner-file", other)
    shows = "e => CodeEditor.text(CodeEditor.of(e)) === 'x = 1\\n'"
    tab.wait_for_function(shows, arg=editor.element_handle())
    assert len(asked) == 1 and asked[0].startswith("Replace the engine in the editor")
    answers.append(False)
    tab.click(".learner-reset")
    assert editor_text(editor) == "x = 1\n" and len(asked) == 2
    answers.append(True)
    tab.click(".learner-reset")
    assert editor_text(editor) == skeleton() and asked[2].startswith("Discard your engine")
    assert_clean(tab, PAGE)  # and no request left the machine


@pytest.mark.usefixtures("runtime")
def test_learner_mode_shares_the_python_of_the_run_buttons(open_page, site_url):
    """A Run in the chapter before, a Check that ends the worker in learner mode's, a Run
    back there, and learner mode's chapter again: one worker all along, one editor."""
    first = page_fences(BEFORE)["fences"][1]["line"]
    tab = open_page(f"{site_url}/{BEFORE.stem}.html", kept=True)
    tab.wait_for_selector("body[data-notebook=idle]", state="attached")
    run(tab, first)
    assert states(tab)[first] == "ran" and one_python(tab)

    book = (ROOT / ENGINE).read_text(encoding="utf-8")
    endless = book.replace(
        "        self.grad = 0.0\n", "        while True:\n            pass\n", 1
    )
    for visit in range(2):
        next_chapter_to(tab, ROOT / "docs" / PAGE)
        tab.wait_for_selector(".learner[data-state=idle]", state="attached")
        tab.hover(".learner-bar")  # the reader reaches for it (on the 2nd visit: typed in it)
        tab.wait_for_selector(".learner .cm-editor")
        assert tab.locator(".learner .cm-editor").count() == 1, f"visit {visit + 1}"
        assert one_python(tab), f"visit {visit + 1}"
        if visit == 0:  # a chapter over the time limit ends the worker the Runs had
            tab.locator(".learner .cm-content").fill(endless)  # loops for all of its 1 s
            assert "timed out after 1 s" in _check(tab, VALUE_CHAPTER.name, limit=1)
            assert one_python(tab)
            tab.locator("a.md-footer__link--prev").click()
            shown = f'body[data-notebook=idle][data-chapter="{page_fences(BEFORE)["chapter"]}"]'
            tab.wait_for_selector(shown, state="attached")
            run(tab, first)  # in the new worker: the chapter is opened there
            assert states(tab)[first] == "ran" and one_python(tab)
    # Back again, a Check runs in the worker the book's zip is already in.
    tab.locator(".learner .cm-content").fill(book)
    assert f"Every check passes against {ENGINE}" in _check(tab, VALUE_CHAPTER.name)
    assert one_python(tab)

    # A fence's Stop (the worker ends) while a check runs answers the check: it says so.
    tab.locator(".learner .cm-content").fill(endless)
    tab.select_option(".learner-chapter", VALUE_CHAPTER.name)
    tab.click(".learner-check")
    tab.wait_for_selector(".learner[data-state=checking]", state="attached")
    tab.evaluate("bookPython.stop()")  # what a fence's Stop button does
    tab.wait_for_selector(".learner[data-state=idle]", state="attached", timeout=RUN_TIMEOUT)
    table = tab.locator(".learner-table").text_content()
    assert "the page's Python stopped: stopped by a fence's Stop button" in table, table
    assert one_python(tab)
    assert_clean(tab, PAGE)


def test_a_start_that_fails_is_said_once_in_learner_mode(open_page, site_url):
    tab = open_page(f"{site_url}/{PAGE.removesuffix('.md')}.html", kept=True)
    tab.wait_for_selector(".learner[data-state=idle]", state="attached")
    python_never_comes(tab)  # the start waits until the test breaks it
    tab.click(".learner-check")
    tab.wait_for_selector(".learner[data-state=checking]", state="attached")
    tab.evaluate("bookPython.broken('the start broke')")
    tab.wait_for_selector('.learner[data-checked="1"]', state="attached", timeout=RUN_TIMEOUT)
    said = tab.locator(".learner-status").text_content()
    start = "The check could not finish: the page's Python could not start: the start broke."
    assert said == f"{start} Check again to start afresh.", said
