"""Redraw the book's figures (docs/figures/*.svg) from the chapters: the command.

    python3 tools/dev.py figures            redraw the figures whose files are missing or stale,
                                            and rewrite the step tables under stepped figures
    python3 tools/dev.py figures --check    exit 1 and name the stale figures and tables

The figures themselves, one function each, are in tools/figures.py; so are the recordings
of the figures that are stepped through, from which each one's table of steps in its
chapter is written (between its two comments, see tools/chapter.py's ``Generated``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: make the `tools` package importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools import DOCS, relative
from tools.figures import FIGURES, drawn, recorded, steps_block, with_step_tables


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check; exit 1 if stale")
    args = parser.parse_args(argv)
    stale = []
    for name, text in drawn().items():
        path = FIGURES[name].path
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            stale.append(path)
            if not args.check:
                path.parent.mkdir(exist_ok=True)
                path.write_text(text, encoding="utf-8", newline="\n")
                print(f"figures: drew {relative(path)}")
    tables: dict[Path, dict[str, str]] = {}
    for name, tracks in recorded().items():
        tables.setdefault(DOCS / FIGURES[name].chapter, {})[name] = steps_block(tracks)
    for chapter, blocks in tables.items():
        text = chapter.read_text(encoding="utf-8")
        new = with_step_tables(chapter, blocks)
        if new != text:
            stale.append(chapter)
            if not args.check:
                chapter.write_text(new, encoding="utf-8", newline="\n")
                print(f"figures: wrote the step tables of {relative(chapter)}")
    if args.check and stale:
        print("figures: stale: " + ", ".join(relative(p) for p in stale))
        return 1
    if not stale:
        print("figures: all up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
