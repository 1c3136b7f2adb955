"""Redraw the book's figures (docs/figures/*.svg) from the chapters: the command.

    python3 tools/dev.py figures            redraw the figures whose files are missing or stale
    python3 tools/dev.py figures --check    exit 1 and name the stale figures

The figures themselves, one function each, are in tools/figures.py.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: make the `tools` package importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools import relative
from tools.figures import FIGURES, drawn


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
    if args.check and stale:
        print("figures: stale: " + ", ".join(relative(p) for p in stale))
        return 1
    if not stale:
        print("figures: all up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
