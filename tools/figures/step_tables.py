"""The steps of a stepped figure as a folded table in its chapter, under the figure, for
readers without the page's step controls (written by `python3 tools/dev.py figures`).
"""

import re
from pathlib import Path

from tools.chapter import GENERATED_CLOSE, Chapter
from tools.figures.from_chapters import FIGURES, shown_at
from tools.page import steps

STEPS_SUMMARY = "{figure}, step by step: the table of its backward pass"


def steps_block(tracks: list[steps.Track]) -> str:
    """What goes between a figure's two step comments in its chapter (blank lines round)."""
    return "\n" + steps.table(tracks) + "\n"


def steps_opening(name: str) -> str:
    return (
        f"<!-- steps of figures/{name}.svg: written by `python3 tools/dev.py figures`, "
        "do not edit -->"
    )


def with_step_tables(path: Path, tables: dict[str, str]) -> str:
    """The chapter's text with each figure's steps block made ``tables[name]`` (from
    ``steps_block``). A figure that has none yet gets one, folded, after the paragraph
    below the figure (its caption); a block of a figure not in ``tables`` is left alone."""
    chapter = Chapter.read(path)
    lines = chapter.text.splitlines(keepends=True)
    have = {block.name: block for block in chapter.generated}
    edits = []  # (first line, last line, 0-based and inclusive/exclusive, new text)
    for name, text in tables.items():
        block = have.get(name)
        if block is not None and block.end:
            edits.append((block.line, block.end - 1, text))
            continue
        at = shown_at(FIGURES[name])  # the image's line; its caption is the paragraph below
        caption = next((t for n, t in chapter.prose if n == at + 2 and t.startswith("*")), "")
        after = at + 1 + len(caption.split("\n")) if caption else at  # 0-based: after both
        number = re.match(r"\*Figure (\d+)\.", caption)
        summary = STEPS_SUMMARY.format(figure=f"Figure {number[1]}" if number else "The figure")
        opening = (
            f'\n<details markdown="1">\n<summary>{summary}</summary>\n\n{steps_opening(name)}\n'
        )
        edits.append((after, after, f"{opening}{text}{GENERATED_CLOSE}\n\n</details>\n"))
    for first, last, new in sorted(edits, key=lambda edit: -edit[0]):
        lines[first:last] = [new]
    return "".join(lines)
