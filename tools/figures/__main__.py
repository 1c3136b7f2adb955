"""Redraw the book's figures (docs/figures/*.svg) from the chapters: the command.

    python3 tools/dev.py figures            redraw the figures whose files are missing or stale,
                                            delete those no chapter draws any more, and
                                            rewrite the step tables under stepped figures
    python3 tools/dev.py figures --check    exit 1 and name the stale figures and tables

The figures are tools/page/graphs.py's and plots.py's; the step tables, step_tables.py's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tools import DOCS, relative
from tools.figures.from_chapters import FIGURES, FOLDER, STANDALONE_STYLE, drawn, path, recorded
from tools.figures.step_tables import steps_block, with_step_tables


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check; exit 1 if stale")
    args = parser.parse_args(argv)
    stale = []

    def bring_up_to_date(file: Path, text: str, done: str) -> None:
        if not file.exists() or file.read_text(encoding="utf-8") != text:
            stale.append(file)
            if not args.check:
                file.parent.mkdir(exist_ok=True)
                file.write_text(text, encoding="utf-8", newline="\n")
                print(f"figures: {done} {relative(file)}")

    figures = drawn()
    for name, text in figures.items():
        bring_up_to_date(path(name), text, "drew")
    # A drawing of ours that no chapter makes now is left over (a figure taken out, or one
    # that now fits a phone's column without a drawing of its own). Any other file is not
    # ours to delete: it is named, and kept.
    for file in sorted(set(FOLDER.glob("*.svg")) - {path(name) for name in figures}):
        if STANDALONE_STYLE not in file.read_text(encoding="utf-8", errors="replace"):
            print(f"figures: {relative(file)} is not a drawing of ours: left as it is")
            continue
        stale.append(file)
        if not args.check:
            file.unlink()
            print(f"figures: deleted {relative(file)}, which no chapter draws")
    tables: dict[Path, dict[str, str]] = {}
    for name, tracks in recorded().items():
        tables.setdefault(DOCS / FIGURES[name].chapter, {})[name] = steps_block(tracks)
    for chapter, blocks in tables.items():
        bring_up_to_date(chapter, with_step_tables(chapter, blocks), "wrote the step tables of")
    if args.check and stale:
        print("figures: stale: " + ", ".join(relative(p) for p in stale))
        return 1
    if not stale:
        print("figures: all up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
