"""Learner mode as the page's Python runs it (tools/learn/in_page.py), short of a browser:
the book's zip alone, with the standard library and the page's pytest.raises, gives the
terminal's table (tests/site/test_learner_page.py runs it in Chromium)."""

import io
import json
import shutil
import sys
import zipfile
from pathlib import Path

import pytest

from tests.helpers import run_text
from tools import ENGINE, ROOT
from tools.learn.child import check
from tools.learn.counted import engine_checks, engine_names
from tools.learn.hints import AFTER, LEVELS, hint, next_level
from tools.learn.in_page import _blocked
from tools.learn.places import chapters_named
from tools.learn.skeleton import skeleton
from tools.learn.table import page_table, progress_table
from tools.site.learner import IN_PAGE, book_zip, imported_by
from tools.site.runtime import page_files, page_zip

VALUE_CHAPTER = ROOT / "docs" / "02-the-value-atom.md"

IN_THE_PAGE = """
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/packages"]
from tools.learn import in_page as learner
engine = open(sys.argv[2], encoding="utf-8").read()
runs = []
for chapter in sys.argv[3].split(","):  # as the page's Check runs them, one after another
    events = []
    learner.check_in_page(chapter, engine, events.append, folder=sys.argv[4])
    events = [json.loads(e) for e in events]
    runs.append({"chapter": chapter, "events": events, "stopped": None})
shown = json.loads(learner.table_in_page(json.dumps(runs), engine, True, folder=sys.argv[4]))
print(json.dumps({**shown, "runs": runs}))
"""


def in_the_page(tmp_path, engine: str, chapters: list[Path]) -> dict:
    """What the page's Python shows for a Check of ``chapters`` against ``engine``: the
    book's zip and page.zip unpacked as the page unpacks them, run with the standard
    library alone and the page's pytest.raises, in a Python of its own."""
    book = tmp_path / "book"  # as the page unpacks it: beside page.zip
    zipfile.ZipFile(io.BytesIO(book_zip())).extractall(book)
    zipfile.ZipFile(io.BytesIO(page_zip())).extractall(book)
    page = tmp_path / "page"  # the page's own folder: pytest.py is the page's pytest.raises
    page.mkdir()
    shutil.copyfile(ROOT / "tools" / "page" / "pytest.py", page / "pytest.py")
    mine = tmp_path / ENGINE
    mine.write_text(engine, encoding="utf-8")
    names = ",".join(chapter.name for chapter in chapters)
    learner = tmp_path / "learner"  # where the page writes the learner's micrograd.py
    command = [sys.executable, "-I", "-S", "-c", IN_THE_PAGE, book, mine, names, learner]
    done = run_text([*map(str, command)], cwd=page, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.heavy  # checks an engine with the zip, chapter by chapter: `test`, not `check`
def test_the_books_zip_is_the_same_on_every_build_and_enough_to_check_an_engine(tmp_path):
    data = book_zip()
    assert data == book_zip()
    book = tmp_path / "book"  # as the page unpacks it: beside page.zip, which it leaves out
    zipfile.ZipFile(io.BytesIO(data)).extractall(book)
    tools = sorted(p.relative_to(book).as_posix() for p in (book / "tools").rglob("*.py"))
    assert not set(tools) & set(page_files()), "book.zip ships again what page.zip ships"
    zipfile.ZipFile(io.BytesIO(page_zip())).extractall(book)
    tools = sorted(p.relative_to(book).as_posix() for p in (book / "tools").rglob("*.py"))
    assert set(imported_by(IN_PAGE)) <= set(tools)  # what learner mode's page imports
    assert "tools/learn/in_page.py" in tools and not any("/site/" in name for name in tools)
    work = tmp_path / "work"  # the page's folder: pytest.py is the page's pytest.raises
    work.mkdir()
    shutil.copyfile(ROOT / "tools" / "page" / "pytest.py", work / "pytest.py")
    mine = tmp_path / ENGINE
    mine.write_text(skeleton(), encoding="utf-8")
    command = [sys.executable, "-I", "-S", "-c", IN_THE_PAGE, book, mine, VALUE_CHAPTER.name]
    done = run_text([*map(str, command), str(work)], cwd=work, check=False)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    parts = shown["table"]  # the text below the table's rows, in parts: places are links
    table = "".join(part for part, _, _ in parts)
    assert shown["fix"] == "Value.__init__" and len(shown["hints"]) == LEVELS
    gated = [next_level(given, checked=False) for given in range(LEVELS + 1)]
    assert shown["next"] == gated == [1, 2, 2, 3]  # no Check since the rule: not the answer
    assert "".join(part for part, _, _ in shown["hints"][1]).endswith(f"\n{AFTER}")
    assert [next_level(given) for given in range(LEVELS + 1)] == [1, 2, 3, 3]
    assert "".join(part for part, _, _ in shown["hints"][0]) == "\n".join(hint(shown["fix"], 1))
    assert shown["record"]["chapters"][VALUE_CHAPTER.name]["passed"] == 0
    results = check(mine, [VALUE_CHAPTER])  # in a terminal: its rows, then the same text
    assert (shown["rows"], table) == page_table(results, ENGINE)
    terminal, place = progress_table(results, ENGINE), "docs/02-the-value-atom.md"
    assert terminal.endswith(f" left unsure)\n{table}") and "the function to fix" in table
    [row] = shown["rows"]["body"]  # each cell in parts: the chapter and its failing check link
    assert row["chapter"] == [[VALUE_CHAPTER.name, place, ""]] and row["score"][0][0] == "0 of 12"
    [[failing, *where]] = row["failing"]
    assert where == [place, "Five fields"] and f"  0 of 12  {failing}\n" in terminal, row
    links = [(chapter, section) for _, chapter, section in parts if chapter]
    assert ("docs/02-the-value-atom.md", "Five fields") in links
    said = [part for part, chapter, _ in parts if chapter]
    assert "docs/02-the-value-atom.md, section 'Five fields' (page '2. The Value atom')" in said


@pytest.mark.heavy  # runs every chapter of the book again: `test`, not `check`
def test_the_books_engine_passes_every_counted_check_of_every_chapter_in_the_pages_python(tmp_path):
    """Every chapter, as the page's Check of "every chapter" runs them (the page itself
    checks two: tests/site/test_learner_page.py): the book's engine passes every check of
    the engine the page can run, and the table says how many it cannot, and why."""
    every = chapters_named([])
    shown = in_the_page(tmp_path, (ROOT / ENGINE).read_text(encoding="utf-8"), every)
    table = "".join(part for part, _, _ in shown["table"])  # below the table's rows
    counted = sum(len(engine_checks(path, engine_names()) - _blocked(path)) for path in every)
    ok = [[f"{counted} of {counted}", None, None]]  # every check passes: none fails
    assert shown["rows"]["foot"] == {"chapter": [["all", None, None]], "score": ok, "failing": []}
    assert [row["failing"] for row in shown["rows"]["body"]] == [[]] * len(every)
    assert f"\nEvery check passes against {ENGINE}.\n" in table, table
    assert table.splitlines()[-1].startswith("Every check of the book first passed on ")
    elsewhere = sum(len(_blocked(path)) for path in every)  # need files or processes
    assert f"Not run on this page: {elsewhere} checks" in table, table
    assert shown["fix"] == "" and shown["hints"] == []
    for path, run in zip(every, shown["runs"], strict=True):  # what the page cannot run,
        started = {event["start"] for event in run["events"] if "start" in event}
        assert not started & _blocked(path), f"{path.name} ran {started}"
