"""The tangler: stable markers, a drift check, refusals that keep edits (sync: test_sync.py)."""

import os
import shutil
import sys

import pytest

from tests.helpers import run_text
from tests.helpers.book import edit
from tools import ROOT
from tools.chapter import Chapter, chapters, slugify
from tools.tangle import engine_chunks, main, tangle

MARKERS = [
    "# --- docs/01-thing.md#a-chapter ---",
    "    # --- docs/01-thing.md#doubling ---",
    "# --- docs/02-more.md#halving, engine fence 1 ---",
    "# --- docs/02-more.md#halving, engine fence 2 ---",
]


def run(docs, out, *flags):
    return main(["--docs", str(docs), "--out", str(out), *flags])


def test_output_has_header_and_markers_and_is_byte_stable(book, capsys):
    docs, out = book
    assert run(docs, out) == 0
    first = out.read_bytes()
    assert run(docs, out) == 0
    assert "up to date" in capsys.readouterr().out
    assert out.read_bytes() == first
    text = first.decode()
    assert text.startswith("# micrograd.py:") and "GENERATED" in text
    assert "python3 tools/dev.py tangle" in text and "python3 tools/dev.py sync" in text
    assert [line for line in text.splitlines() if "# ---" in line] == MARKERS
    assert f"{MARKERS[0]}\nclass Thing:" in text
    assert f"{MARKERS[1]}\n    def double(self):" in text
    namespace = {}
    exec(text, namespace)
    assert namespace["Thing"](3).double().n == 6
    assert namespace["quarter"](namespace["Thing"](8)).n == 2


def test_prose_edits_leave_the_engine_byte_identical(book):
    docs, out = book
    run(docs, out)
    before = out.read_bytes()
    edit(docs / "01-thing.md", "Some prose.\n", "Some prose.\n\nA new paragraph,\nof two lines.\n")
    edit(docs / "01-thing.md", "## Doubling\n", "## Doubling\n\nWhy double? Because.\n")
    edit(docs / "02-more.md", "```\n\n```python", "```\n\nBetween two fences.\n\n```python")
    assert run(docs, out, "--check") == 0
    assert out.read_bytes() == before


def test_a_paragraph_above_every_real_engine_fence_changes_nothing(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    for chapter in chapters(docs):
        lines = chapter.read_text(encoding="utf-8").split("\n")
        for fence in reversed([f for f in Chapter.read(chapter).fences if f.is_engine]):
            at = fence.line - 2  # the opening ``` line
            lines[at:at] = ["A new paragraph of prose, with a `name` in it.", ""]
        chapter.write_text("\n".join(lines), encoding="utf-8")
    assert tangle(docs, root=tmp_path) == (ROOT / "micrograd.py").read_text(encoding="utf-8")


def test_markers_name_the_section_and_number_its_fences_only_when_several(book):
    docs, _ = book
    places = [chunk.place for chunk in engine_chunks(docs, root=docs.parent)]
    assert places == [marker.strip()[6:-4] for marker in MARKERS]
    edit(docs / "02-more.md", "```\n\n```python", "```\n\n## Quartering\n\n```python")
    places = [chunk.place for chunk in engine_chunks(docs, root=docs.parent)]
    assert places[2:] == ["docs/02-more.md#halving", "docs/02-more.md#quartering"]


def test_anchors_are_the_ids_the_site_gives_headings(tmp_path):
    markdown = pytest.importorskip("markdown")
    text = (
        "# 7. Drawing the graph\n\n## The `topo()` order\n\n## Notes\n\n## Notes\n\n"
        "## tanh, exp, log *and* relu\n\n## Négation & co.\n\n## Notes_1\n"
    )
    html = markdown.markdown(text, extensions=["toc"])
    site_ids = [part.split('"')[0] for part in html.split(' id="')[1:]]
    page = tmp_path / "page.md"
    page.write_text(text, encoding="utf-8")
    assert [h.anchor for h in Chapter.read(page).headings] == site_ids
    assert slugify("Negation, subtraction, division") == "negation-subtraction-division"


def test_check_mode_reports_a_stale_engine_with_a_diff(book, capsys):
    docs, out = book
    run(docs, out)
    assert run(docs, out, "--check") == 0
    edit(docs / "01-thing.md", "2 * self.n", "3 * self.n")
    capsys.readouterr()
    assert run(docs, out, "--check") == 1
    captured = capsys.readouterr()
    assert "-        return Thing(2 * self.n)" in captured.out
    assert "+        return Thing(3 * self.n)" in captured.out
    assert "is stale: run `python3 tools/dev.py tangle`" in captured.err


def test_refuses_to_overwrite_an_edited_engine_unless_forced(book, capsys):
    docs, out = book
    run(docs, out)
    edit(out, "self.n = n", "self.n = n  # my fix")
    edited = out.read_text()
    edit(docs / "01-thing.md", "2 * self.n", "3 * self.n")
    capsys.readouterr()

    assert run(docs, out) == 1
    captured = capsys.readouterr()
    assert "refusing to overwrite" in captured.err and "--force" in captured.err
    assert "my fix" in captured.out  # the diff shows what would be lost
    assert out.read_text() == edited  # nothing lost

    assert run(docs, out, "--check") == 1
    assert "edited since it was generated" in capsys.readouterr().err

    assert run(docs, out, "--force") == 0
    assert "my fix" not in out.read_text() and "3 * self.n" in out.read_text()


def _drop_hash_line(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if "sha256 of" not in line)


@pytest.mark.parametrize(("engine_edit", "chapters_edit", "advice"), [
    (("self.n = n", "self.n = n  # mine"), None, "write the edits back into the chapters"),
    (("self.n = n", "self.n = n  # mine"), ("2 * self", "3 * self"), "would refuse"),
    (("# GENERATED by", "# Generated by"), None, "its header was edited"),
    (_drop_hash_line, None, "sha256 line is gone"),
    (("2 * self", "3 * self"), ("2 * self", "3 * self"), "already has the chapters'"),
], ids=["engine-only", "both-sides", "header", "hash-line-gone", "same-edit-on-both"])  # fmt: skip
def test_tangle_sends_the_user_to_sync_only_when_sync_will_do_it(
    book, capsys, engine_edit, chapters_edit, advice
):
    """With micrograd.py edited, tangle refuses and says what to do; wherever it names sync as
    the way on, sync then does it, and wherever sync will refuse, tangle says so first and
    gives sync's own advice."""
    from tools import sync

    docs, out = book
    run(docs, out)
    if callable(engine_edit):
        out.write_text(engine_edit(out.read_text()))
    else:
        edit(out, *engine_edit)
    if chapters_edit:
        edit(docs / "01-thing.md", *chapters_edit)
    capsys.readouterr()
    for flags in ([], ["--check"]):
        assert run(docs, out, *flags) == 1
        said = capsys.readouterr().err
        assert advice in said, said
    synced = sync.main(["--docs", str(docs), "--out", str(out)])
    refusal = capsys.readouterr().err
    to_sync = advice in ("write the edits back into the chapters", "already has the chapters'")
    assert (synced == 0) == to_sync, (said, refusal)
    if not to_sync and "would refuse" in said:  # the same way on as sync's refusal
        assert said.split("would refuse (it does not merge). ")[1] in refusal


@pytest.mark.parametrize(("old", "new"), [
    ("# GENERATED by", "# Generated by"),
    ("# micrograd.py:", "#!/usr/bin/env python3\n# micrograd.py:"),  # a line above it
], ids=["reworded", "line-above"])  # fmt: skip
def test_refuses_to_overwrite_an_edit_to_the_header_unless_forced(book, capsys, old, new):
    docs, out = book
    run(docs, out)
    edit(out, old, new)
    edited = out.read_text()
    capsys.readouterr()
    assert run(docs, out) == 1, "tangle overwrote an edited header without a word"
    assert "refusing to overwrite" in capsys.readouterr().err
    assert out.read_text() == edited
    assert run(docs, out, "--check") == 1
    assert "edited since it was generated" in capsys.readouterr().err
    assert run(docs, out, "--force") == 0 and old in out.read_text()


def test_invalid_engine_chunk_is_reported_with_chapter_and_line(book, capsys):
    docs, out = book
    chapter = docs / "01-thing.md"
    edit(chapter, "return Thing(2 * self.n)", "return Thing(2 *")
    assert run(docs, out) == 2
    err = capsys.readouterr().err
    assert "docs/01-thing.md:" in err and "not valid Python" in err
    line = int(err.split("docs/01-thing.md:")[1].split(":")[0])
    assert "return Thing(2 *" in chapter.read_text().splitlines()[line - 1]
    assert not out.exists()


def test_an_unclosed_string_is_blamed_on_the_chunk_that_opened_it(book, capsys):
    docs, out = book
    chapter = docs / "01-thing.md"
    edit(chapter, "        return Thing(2 * self.n)", '        """unclosed\n        return 1')
    later = docs / "02-later.md"
    later.write_text(  # its docstring's quotes close the string; the error shows up here
        '# Later\n\n## Part\n\n```python title="micrograd.py"\n'
        'def later():\n    """A docstring."""\n    return 1\n```\n'
    )
    assert run(docs, out) == 2
    err = capsys.readouterr().err
    assert "docs/01-thing.md:" in err and "not valid Python" in err, err
    line = int(err.split("docs/01-thing.md:")[1].split(":")[0])
    assert '"""unclosed' in chapter.read_text().splitlines()[line - 1]


def test_no_engine_chunks_is_an_error(tmp_path, capsys):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "01-empty.md").write_text("# Empty\n\n```python\nx = 1\n```\n")
    assert run(docs, tmp_path / "micrograd.py") == 2
    assert "no engine fences" in capsys.readouterr().err


def test_one_character_change_to_a_real_engine_fence_is_caught(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    out = tmp_path / "micrograd.py"
    shutil.copy(ROOT / "micrograd.py", out)
    assert main(["--docs", str(docs), "--out", str(out), "--check"]) == 0
    chapter = docs / "04-the-other-operations.md"
    text = chapter.read_text()
    chapter.write_text(text.replace('"tanh")', '"tanH")', 1))
    assert main(["--docs", str(docs), "--out", str(out), "--check"]) == 1
    assert tangle(docs, root=tmp_path) != out.read_text()


def test_plain_python3_runs_the_tangler_through_the_project_environment(book):
    from tools import dev

    if not dev.environment_ready():
        pytest.skip("needs the .venv that `python3 tools/dev.py test` sets up")
    docs, out = book
    env = {k: v for k, v in os.environ.items() if k != "MICROGRAD_DEV"}
    command = [sys.executable, "-S", str(ROOT / "tools" / "tangle.py")]  # -S: no markdown-it
    result = run_text([*command, "--docs", str(docs), "--out", str(out)], env=env)
    assert result.returncode == 0, result.stderr
    assert "wrote micrograd.py" in result.stdout and out.exists()


def test_fences_are_read_as_commonmark(book):
    docs, _ = book
    fences = Chapter.read(docs / "01-thing.md").fences
    assert [f.line for f in fences] == [6, 14, 20, 25]
    assert fences[0].code.startswith("class Thing:")


def test_serve_gives_the_tanglers_own_advice_when_both_sides_changed(book):
    """While `serve` runs, an engine edited by hand and a chapter edited too: the site's
    pass re-tangles nothing and says what `sync` would do (refuse), not "run sync"."""
    from tools.site import prepare

    docs, out = book
    run(docs, out)
    edit(out, "self.n = n", "self.n = n  # my fix")
    edit(docs / "01-thing.md", "2 * self.n", "3 * self.n")
    edited = out.read_text()
    made = prepare.Prepared(docs.parent / "tree")
    prepare.tangled(docs, made)  # what the site pass does first, while serving
    said = " ".join(made.warnings)
    assert "would refuse" in said and out.read_text() == edited
