"""The engine in the page, in Chromium: a class built over three chapters, a broken engine
that fails where pytest fails, and each engine fence run again: what the page shows is
what tools/page/run.py gives in CPython, for the same code.

Python runs in the page (Pyodide, from the site itself: tools/site/runtime.py); each test
starts it once.
"""

import re

import pytest

from tests.helpers.browser import (
    RUN_TIMEOUT,
    assert_clean,
    chapter_page,
    editor_text,
    expected_failure,
    expected_run_all,
    failure,
    fence_with,
    page_runner,
    printed,
    run,
    states,
)
from tests.helpers.drive import bar, code, serve


@pytest.mark.usefixtures("runtime")
def test_a_class_built_over_three_chapters_runs_in_the_page_as_in_python(open_page, small_site):
    """Each chapter of the small site runs with the engine as it stands at its place, and a
    failure in code written in chapter 2 is reported at chapter 2's line, from chapter 3."""
    with serve(small_site) as url:
        tab = open_page(url + "/02-it-grows.html", kept=True)
        run(tab, 4)  # from micrograd import Thing; print(hasattr(Thing, "double"))
        assert printed(tab, 4) == "False\n" and states(tab)[4] == "ran"
        tab.locator("a.md-footer__link--next").click()  # in the same tab, and Python
        tab.wait_for_selector('body[data-chapter$="03-and-more.md"]', state="attached")
        run(tab, 9)  # print(Thing().double()): chapter 2's double, chapter 3's size
        assert (printed(tab, 9), states(tab)[9]) == ("42\n", "ran"), (states(tab), failure(tab, 9))
        code(tab, 4).fill("    def size(self):\n        return None\n")  # 2 * None fails
        # Instant navigation replaced the head's links: the editors' stylesheet is back, and
        # each fence shows its code once, in its editor (else the Run buttons move under the
        # pointer as the editors are made).
        tab.wait_for_function("document.querySelectorAll('.notebook-editor').length === 2")
        assert tab.locator(".notebook-editable > pre:visible").count() == 0
        run(tab, 4)
        run(tab, 9)
        assert states(tab)[9] == "failed"
        said = failure(tab, 9)  # (the small site's chapters are named by their full path)
        assert re.match(r"\S*/docs/02-it-grows\.md:15: TypeError", said), said
        assert re.search(r'File "\S*/docs/02-it-grows\.md", line 15, in double', said), said
        assert_clean(tab, "the small site")


PROBE = (  # the methods of the class, as every Python lists them, and one of them used
    "print(sorted(name for name, member in vars(Value).items() if callable(member)))\n"
    "print(Value(2.0) + 1)\n"
)


@pytest.mark.usefixtures("runtime")
def test_chapter_2_in_the_page_fails_and_reruns_its_engine_as_in_python(
    open_page, site_url, tmp_path
):
    """The engine broken in chapter 2 fails the check pytest fails, at the line pytest
    names; then, after Restart (the same Python, a fresh namespace), the chapter run and
    each engine fence run again, unedited and edited, shows what the same runner
    (tools/page/run.py) gives in CPython, namespace and lines alike."""
    old, new = "operand.grad += local * grad", "operand.grad = local * grad"
    page, tab = chapter_page(open_page, site_url, "02-", kept=True)
    failing_line, error, named = expected_failure(page, tmp_path, old, new)
    engine = fence_with(page, old)
    assert engine["engine"]
    last = max(int(line) for line in states(tab))

    editor = code(tab, engine["line"])
    editor.locator(".tok-keyword").first.wait_for()  # highlighted as Python
    editor.fill("def f():")
    editor.press("End")
    editor.press("Enter")
    editor.type("return 1")
    assert editor_text(editor) == "def f():\n    return 1"  # Enter indents the body
    editor.press("Control+z")  # undo, as often as it takes to bring the book's code back
    for _ in range(5):
        if editor_text(editor) + "\n" == engine["code"]:
            break
        editor.press("Control+z")
    assert editor_text(editor) + "\n" == engine["code"]
    editor.fill(engine["code"].replace(old, new))
    run(tab, last)
    found = states(tab)
    assert found[failing_line] == "failed", found
    assert all(found[line] == "ran" for line in found if line < failing_line), found
    assert all(found[line] == "not-run" for line in found if line > failing_line), found
    said = failure(tab, failing_line)
    headline = re.match(rf"docs/{page.name}:(\d+): {error}", said)
    assert headline, f"the failure should start with the chapter line and {error}: {said!r}"
    assert int(headline[1]) == named, f"pytest names line {named}, the page {headline[1]}"

    # Run all goes down to the first exception, as in CPython (past output that differs
    # from the book's too: tests/test_page_scripts.py replays such a run into the page).
    tab.locator(".notebook-run-all").click()
    tab.wait_for_selector("body[data-notebook=idle]", state="attached", timeout=RUN_TIMEOUT)
    expected = expected_run_all(page, old, new)
    assert states(tab) == expected
    assert "failed" in expected.values(), expected

    bar(tab, engine["line"]).locator(".notebook-reset").click()  # Reset, and all is well
    assert editor_text(code(tab, engine["line"])) + "\n" == engine["code"]
    run(tab, engine["line"])  # the engine is built again in book order, the fix in place
    for line in sorted(line for line, state in states(tab).items() if state != "ran"):
        run(tab, line)
    assert set(states(tab).values()) == {"ran"}, states(tab)

    tab.locator(".notebook-restart").click()  # from here on, as from a fresh load
    runner = page_runner(page)
    cells = runner.cells
    engines = [i for i, cell in enumerate(cells) if cell.engine]
    last = max(i for i, cell in enumerate(cells) if not cell.blocked)
    run(tab, cells[last].line)
    runner.run(last)
    for index in engines:  # unedited: every method is still there, in book order
        run(tab, cells[index].line)
        runner.run(index)
    code(tab, cells[last].line).fill(PROBE)
    run(tab, cells[last].line)
    expected = runner.run(last, {last: PROBE})
    assert (
        expected.state == "ran" and "__add__" in expected.printed and "backward" in expected.printed
    )
    assert printed(tab, cells[last].line) == expected.printed

    first = engines[0]  # edited: a bug in the first chunk is reported where it is written
    broken = cells[first].code.replace("self.grad = 0.0", "self.grad = 0.0 / 0", 1)
    assert broken != cells[first].code
    code(tab, cells[first].line).fill(broken)
    run(tab, cells[first].line)
    said = runner.run(first, {first: broken})
    assert said.state == states(tab)[cells[first].line] == "ran"  # defined, not yet called
    run(tab, cells[last].line)
    expected = runner.run(last, {first: broken, last: PROBE})
    assert expected.state == states(tab)[cells[last].line] == "failed"
    headline = expected.report.split("\n")[0]
    assert headline.startswith(f"docs/{page.name}:") and "ZeroDivisionError" in headline
    said = failure(tab, cells[last].line).split("\n")[0]
    assert said.split(": ")[:2] == headline.split(": ")[:2]  # the line; messages vary by Python
    assert_clean(tab, page.name)
