"""Redraw the book's figures (docs/figures/*.svg) from the chapters: the command.

    python3 tools/dev.py figures            redraw the figures whose files are missing or stale,
                                            delete the drawings it made that no chapter draws
                                            any more, and rewrite the step tables under
                                            stepped figures
    python3 tools/dev.py figures --check    say what the command would do, and exit 1 if it
                                            would do anything

It deletes only a file it wrote itself, still exactly as it wrote it (tools/figures/written.py
keeps the record), and never one a page links to; any other file is named and kept. The figures
are tools/page/graphs.py's and plots.py's; the step tables, step_tables.py's.
"""

import argparse
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

from tools import DOCS, relative
from tools.chapter import ChangedError, rewrite
from tools.figures import written as record
from tools.figures.from_chapters import FIGURES, FOLDER, drawn, path, recorded
from tools.figures.step_tables import steps_block, with_step_tables

COMMAND = "python3 tools/dev.py figures"
STALE = (
    "stale, and not what figures last drew there (edited since, or someone's own): kept; move "
    f"it elsewhere, then run `{COMMAND}` to draw it again"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="only say what it would do; exit 1 if anything"
    )
    args = parser.parse_args(argv)
    written = record.read(record.RECORD)
    was = dict(written)
    to_do: list[tuple[str, str, Callable[[], object]]] = []  # (would, did, doing it), in order
    kept: list[tuple[Path, str]] = []  # (file, why), said in either mode
    blocked = False  # a figure stays stale: its file is not the command's to overwrite

    figures = drawn()
    for name, text in figures.items():
        file = path(name)
        if not file.exists() or file.read_text(encoding="utf-8") != text:
            if file.exists() and not record.is_ours(file, written):
                blocked = True
                kept.append((file, STALE))
                continue
            draw = partial(file.write_text, text, encoding="utf-8", newline="\n")
            to_do.append((f"would draw {relative(file)}", f"drew {relative(file)}", draw))
        written[file.name] = record.digest(text)  # exactly a drawing of ours, now or once drawn
    for file in sorted(set(FOLDER.glob("*.svg")) - {path(name) for name in figures}):
        # Left over (a figure taken out, or one that now fits a phone's column): deleted only
        # if the command wrote it and nothing links to it.
        page = record.linked_from(file)
        if page is not None:
            kept.append((file, f"no chapter draws it, but {relative(page)} links to it: kept"))
        elif record.is_ours(file, written):
            would = f"would delete {relative(file)} (figures drew it; no chapter does now)"
            did = f"deleted {relative(file)}, which figures drew and no chapter draws now"
            to_do.append((would, did, file.unlink))
        elif file.name in written:
            kept.append((file, "figures drew it, but it was changed since: kept"))
        else:
            kept.append((file, "figures did not draw it: kept"))
    tables: dict[Path, dict[str, str]] = {}
    for name, tracks in recorded().items():
        tables.setdefault(DOCS / FIGURES[name].chapter, {})[name] = steps_block(tracks)
    for chapter, blocks in tables.items():
        read, text = chapter.read_text(encoding="utf-8"), with_step_tables(chapter, blocks)
        if text != read:
            what = f"the step tables of {relative(chapter)}"
            write = partial(rewrite, chapter, read, text)  # not over an edit saved meanwhile
            to_do.append((f"would rewrite {what}", f"wrote {what}", write))

    for file, why in kept:
        print(f"figures: {relative(file)}: {why}")
    if args.check:
        for would, _, _ in to_do:
            print(f"figures: {would}")
        if to_do:
            print(f"figures: {len(to_do)} stale: run `{COMMAND}` to do the above")
        elif not blocked:
            print("figures: all up to date")
        return 1 if to_do or blocked else 0

    FOLDER.mkdir(exist_ok=True)
    for _, did, do in to_do:
        try:
            do()
            print(f"figures: {did}")
        except ChangedError as error:  # a chapter saved while the figures were drawn
            print(f"figures: {error}: wrote nothing there; run `{COMMAND}` again")
            blocked = True
    written = {name: sha for name, sha in written.items() if (FOLDER / name).exists()}
    if written != was:
        record.write(written, record.RECORD)
    if not (to_do or blocked):
        print("figures: all up to date")
    return 1 if blocked else 0


if __name__ == "__main__":
    sys.exit(main())
