"""The committed figures are what the chapters' code draws now (tools/figures/)."""

from __future__ import annotations

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


def test_the_command_deletes_a_drawing_no_chapter_makes_and_check_names_it(
    tmp_path, monkeypatch, capsys
):
    """A figure taken out, or one that now fits a phone: its file is left over. `figures
    --check` names it and fails; `figures` deletes it, and keeps the drawn ones. A file
    that is not a drawing of ours (an author's own) is named and kept."""
    from tools.figures import __main__ as command

    ours = standalone('<svg class="picture"><g/></svg>', "01-kept")
    monkeypatch.setattr(command, "FOLDER", tmp_path)
    monkeypatch.setattr(command, "path", lambda name: tmp_path / f"{name}.svg")
    monkeypatch.setattr(command, "drawn", lambda: {"01-kept": ours})
    monkeypatch.setattr(command, "recorded", dict)
    kept, left = tmp_path / "01-kept.svg", tmp_path / f"01-kept{NARROW}.svg"
    theirs = tmp_path / "sketch.svg"
    kept.write_text(ours, encoding="utf-8")
    left.write_text(ours, encoding="utf-8")
    theirs.write_text("<svg/>\n", encoding="utf-8")
    assert command.main(["--check"]) == 1 and left.exists()
    said = capsys.readouterr().out
    assert f"stale: {left.as_posix()}\n" in said and "sketch.svg is not a drawing of ours" in said
    assert command.main([]) == 0 and not left.exists() and kept.exists() and theirs.exists()
    assert command.main(["--check"]) == 0


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figure_file_reads_alone_and_inside_a_page(name):
    text = path(name).read_text(encoding="utf-8")
    root = ElementTree.fromstring(text)  # well-formed XML: browsers other than Chromium care
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("class") == "picture"
    assert "<!DOCTYPE" not in text and "<script" not in text
    assert not re.search(r'"(black|white|#000000|#ffffff)"', text), "fixed page colours"
    ids = re.findall(r'\bid="([^"]+)"', text)
    assert all(i.startswith(f"{name}-") for i in ids), "ids must be the figure's own"
    page = inline(text, "a figure", name)
    assert page.startswith(f'<svg data-figure="{name}" role="img" aria-label="a figure"')
    assert "<style" not in page


def test_a_graphviz_error_is_reported():
    with pytest.raises(ValueError, match="syntax error"):
        svg_from_dot("digraph {")
