"""The committed figures are what the chapters' code draws now (tools/figures/)."""

import re
from xml.etree import ElementTree

import pytest

from tools import ROOT
from tools.figures.from_chapters import (
    FIGURES,
    FOLDER,
    NARROW,
    drawn,
    path,
    standalone,
    svg_from_dot,
)
from tools.site.figures import inline


@pytest.fixture(scope="session")
def redrawn() -> dict[str, str]:
    """Every figure, drawn afresh from its chapter (one run of each chapter)."""
    return drawn()


@pytest.mark.heavy  # the chapters run again, to draw
@pytest.mark.parametrize("name", sorted(FIGURES))
def test_committed_figure_is_what_its_chapter_draws(name, redrawn):
    figure, file = FIGURES[name], path(name)
    where = file.relative_to(ROOT)
    assert file.exists(), f"{where} is missing: run `python3 tools/dev.py figures`"
    assert file.read_text(encoding="utf-8") == redrawn[name], (
        f"{where} is not what docs/{figure.chapter} draws now: run "
        "`python3 tools/dev.py figures` (or, if the chapter's code is wrong, fix the chapter)"
    )


@pytest.mark.heavy  # the chapters run again, to draw
def test_the_drawings_for_a_phone_are_what_the_chapters_draw(redrawn):
    """<name>.narrow.svg: a graph drawn again for a narrow screen (from_chapters.narrow)."""
    expected = sorted(name for name in redrawn if name.endswith(NARROW))
    committed = sorted(file.name.removesuffix(".svg") for file in FOLDER.glob(f"*{NARROW}.svg"))
    assert committed == expected, "run `python3 tools/dev.py figures`: it deletes the others"
    assert {"03-careless-walk" + NARROW, "06-dot" + NARROW} <= set(expected)
    for name in expected:
        assert path(name).read_text(encoding="utf-8") == redrawn[name], (
            f"{path(name).relative_to(ROOT)} is stale: run `python3 tools/dev.py figures`"
        )


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """`figures` on a folder of its own: docs/ with one chapter, docs/figures/ with the one
    figure it draws now (01-kept), and the command's record of what it wrote."""
    from tools.figures import __main__ as command
    from tools.figures import written

    docs = tmp_path / "docs"
    (docs / "figures").mkdir(parents=True)
    (docs / "01-chapter.md").write_text("# One\n\n![A figure](figures/01-kept.svg)\n")
    monkeypatch.setattr(command, "FOLDER", docs / "figures")
    monkeypatch.setattr(command, "path", lambda name: docs / "figures" / f"{name}.svg")
    monkeypatch.setattr(command, "drawn", lambda: {"01-kept": OURS})
    monkeypatch.setattr(command, "recorded", dict)
    monkeypatch.setattr(written, "RECORD", tmp_path / "written.sha256")
    monkeypatch.setattr(written, "DOCS", docs)
    monkeypatch.setattr(written, "ROOT", tmp_path)
    (docs / "figures" / "01-kept.svg").write_text(OURS, encoding="utf-8")
    return docs


OURS = standalone('<svg class="picture"><g/></svg>', "01-kept")


def _figures(*args: str) -> int:
    from tools.figures import __main__ as command

    return command.main(list(args))


def _record(folder, *names: str) -> None:
    """As if `figures` had drawn these files, as they are now."""
    from tools.figures import written

    record = written.read(written.RECORD)
    record |= {name: written.file_digest(folder / "figures" / name) for name in names}
    written.write(record, written.RECORD)


def test_the_command_deletes_a_drawing_it_made_that_no_chapter_makes_and_check_says_so(
    folder, capsys
):
    """A figure taken out, or one that now fits a phone: its file is left over. `figures
    --check` says it would delete it, and what to run; `figures` deletes it and forgets it,
    and keeps the drawn ones."""
    from tools.figures import written

    left = folder / "figures" / f"01-kept{NARROW}.svg"
    left.write_text(OURS, encoding="utf-8")
    _record(folder, "01-kept.svg", left.name)
    assert _figures("--check") == 1 and left.exists()
    said = capsys.readouterr().out.splitlines()
    where = left.as_posix()
    assert said == [
        f"figures: would delete {where} (figures drew it; no chapter does now)",
        "figures: 1 stale: run `python3 tools/dev.py figures` to do the above",
    ]
    assert _figures() == 0 and not left.exists() and (folder / "figures" / "01-kept.svg").exists()
    assert left.name not in written.read(written.RECORD)
    assert _figures("--check") == 0


def test_a_readers_copy_is_never_deleted_even_in_the_books_style(folder, capsys):
    """A reader's recoloured copy of a figure carries the book's figure style, but figures did
    not write it; another linked from a chapter; a drawing of ours edited since: all kept."""
    figures = folder / "figures"
    recoloured = OURS.replace("#1f2328", "#0000ff")
    (figures / "mine.svg").write_text(recoloured, encoding="utf-8")
    (figures / "linked.svg").write_text(recoloured, encoding="utf-8")
    (figures / "edited.svg").write_text(OURS, encoding="utf-8")
    _record(folder, "01-kept.svg", "edited.svg")
    (figures / "edited.svg").write_text(recoloured, encoding="utf-8")
    chapter = folder / "01-chapter.md"
    chapter.write_text(chapter.read_text() + "\nMine: ![blue](figures/linked.svg)\n")
    for args in (["--check"], []):
        assert _figures(*args) == 0
        said = capsys.readouterr().out
        assert f"{(figures / 'mine.svg').as_posix()}: figures did not draw it: kept" in said
        assert f"{(figures / 'linked.svg').as_posix()}: no chapter draws it, but " in said
        assert f"{(figures / 'edited.svg').as_posix()}: figures drew it, but it was " in said
        assert "delete" not in said
    for name in ("mine.svg", "linked.svg", "edited.svg"):
        assert (figures / name).read_text(encoding="utf-8") == recoloured, name


def test_a_drawing_it_made_is_kept_while_a_chapter_links_to_it(folder, capsys):
    """figures wrote it and it is unchanged, but a page still shows it: not deleted."""
    gone = folder / "figures" / "02-gone.svg"
    gone.write_text(OURS, encoding="utf-8")
    _record(folder, "01-kept.svg", gone.name)
    (folder / "02-chapter.md").write_text("See <img src='figures/02-gone.svg' alt='x'>.\n")
    assert _figures() == 0 and gone.exists()
    assert "docs/02-chapter.md links to it: kept" in capsys.readouterr().out


def test_a_stale_figure_edited_by_hand_is_kept_and_named(folder, capsys):
    """The file at a figure's place is not what figures last drew there: not overwritten;
    --check and the command say so and fail."""
    drawing = folder / "figures" / "01-kept.svg"
    _record(folder, "01-kept.svg")
    drawing.write_text(OURS.replace("<g/>", "<g><circle r='1'/></g>"), encoding="utf-8")
    mine = drawing.read_text(encoding="utf-8")
    for args in (["--check"], []):
        assert _figures(*args) == 1
        assert "01-kept.svg: stale, and not what figures last drew there" in capsys.readouterr().out
    assert drawing.read_text(encoding="utf-8") == mine
    drawing.unlink()  # as the message says: moved away
    assert _figures("--check") == 1 and "would draw" in capsys.readouterr().out
    assert _figures() == 0 and drawing.read_text(encoding="utf-8") == OURS


def test_every_committed_drawing_is_recorded_as_figures_wrote_it():
    """tools/figures/written.sha256 names every file in docs/figures/ with its sha256: the
    proof `figures` needs before it deletes one."""
    from tools.figures import written

    record = written.read()
    files = {file.name: written.file_digest(file) for file in FOLDER.glob("*.svg")}
    assert record == files, "run `python3 tools/dev.py figures`: it records what it draws"


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figure_file_reads_alone_and_inside_a_page(name):
    text = path(name).read_text(encoding="utf-8")
    root = ElementTree.fromstring(text)  # well-formed XML: browsers other than Chromium care
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("class") == "picture"
    assert "<!DOCTYPE" not in text and "<script" not in text
    assert not re.search(r'"(black|white|#000000|#ffffff)"', text), "fixed page colours"
    ids = re.findall(r'\bid="([^"]+)"', text)
    assert all(i.startswith(f"{name}-") for i in ids), "ids must be the figure's own"
    page = inline(text, 'a "figure" & <it>', name)  # its text alternative stays one attribute
    label = "a &quot;figure&quot; &amp; &lt;it&gt;"
    assert page.startswith(f'<svg data-figure="{name}" role="img" aria-label="{label}"')
    assert "<style" not in page


def test_a_graphviz_error_is_reported():
    with pytest.raises(ValueError, match="syntax error"):
        svg_from_dot("digraph {")


def test_step_tables_are_not_written_over_an_edit_saved_while_figures_ran(
    folder, monkeypatch, capsys
):
    """The chapter is saved while the step tables are made: `figures` writes nothing there,
    keeps the author's edit, says which command to run again, and exits 1."""
    from tools.figures import __main__ as command

    chapter = folder / "01-chapter.md"
    _record(folder, "01-kept.svg")
    monkeypatch.setattr(command, "recorded", lambda: {"01-kept": []})
    monkeypatch.setattr(command, "FIGURES", {"01-kept": type("F", (), {"chapter": chapter})})
    monkeypatch.setattr(command, "steps_block", lambda tracks: "<!-- steps -->\n")

    def tables_while_the_author_saves(path, blocks):
        path.write_text(path.read_text() + "Typed while figures ran.\n")
        return "# One\n\n<!-- steps -->\n"

    monkeypatch.setattr(command, "with_step_tables", tables_while_the_author_saves)
    assert _figures() == 1
    assert chapter.read_text().endswith("Typed while figures ran.\n")
    said = capsys.readouterr().out
    assert "was edited since it was read: wrote nothing there" in said
    assert "run `python3 tools/dev.py figures` again" in said
