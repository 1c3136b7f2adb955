"""Learner mode as the page's Python runs it (tools/learn/in_page.py), short of a browser:
the book's zip alone, with the standard library and the page's pytest.raises, gives the
terminal's table (tests/site/test_learner_page.py runs it in Chromium)."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
import zipfile

from tools import ENGINE, ROOT
from tools.learn.child import check
from tools.learn.hints import LEVELS, hint, next_level
from tools.learn.skeleton import skeleton
from tools.learn.table import progress_table
from tools.site.learner import IN_PAGE, book_zip, imported_by
from tools.site.runtime import page_files, page_zip

VALUE_CHAPTER = ROOT / "docs" / "02-the-value-atom.md"

IN_THE_PAGE = """
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/packages"]
from tools.learn import in_page as learner
engine = open(sys.argv[2], encoding="utf-8").read()
events = []
learner.check_in_page(sys.argv[3], engine, events.append, folder=sys.argv[4])
run = {"chapter": sys.argv[3], "events": [json.loads(e) for e in events], "stopped": None}
shown = json.loads(learner.table_in_page(json.dumps([run]), engine, True, folder=sys.argv[4]))
print(json.dumps(shown))
"""


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
    done = subprocess.run(
        [*map(str, command), str(work)], cwd=work, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    parts = shown["table"]  # the table, in parts: the places it names are links
    table = "".join(part for part, _, _ in parts)
    assert shown["fix"] == "Value.__init__" and len(shown["hints"]) == LEVELS
    assert shown["next"] == [next_level(given) for given in range(LEVELS + 1)] == [1, 2, 3, 3]
    assert "".join(part for part, _, _ in shown["hints"][0]) == "\n".join(hint(shown["fix"], 1))
    assert shown["record"]["chapters"][VALUE_CHAPTER.name]["passed"] == 0
    assert table == progress_table(check(mine, [VALUE_CHAPTER]), ENGINE)
    assert "0 of 12" in table and "Value.__init__, the function to fix" in table
    links = [(chapter, section) for _, chapter, section in parts if chapter]
    assert ("docs/02-the-value-atom.md", "Five fields") in links
    said = [part for part, chapter, _ in parts if chapter]
    assert "docs/02-the-value-atom.md, section 'Five fields' (page '2. The Value atom')" in said
