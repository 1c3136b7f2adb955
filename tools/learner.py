"""Learner mode: write the engine yourself, and let the book's checks tell you what is next.

    python3 tools/learner.py skeleton [PATH] [--force]
        Write a learner's micrograd.py (default: my-engine/micrograd.py), every function
        body a NotImplementedError naming the section that builds it; never overwritten
        unless --force is given.

    python3 tools/learner.py learn PATH [--chapter N ...] [--timeout SECONDS]
        Run every chapter's checks against the micrograd.py at PATH, each chapter in a
        process of its own, and print a progress table. Only checks that exercise the
        engine count (``engine_checks``).

`python3 tools/dev.py skeleton|learn ...` runs the same inside the project's .venv. The
work is done in tools/learn/; this file is the command line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __name__ == "__main__":  # run by its path (chapter 16 does, from a learner's folder)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools import ENGINE
from tools.learn.child import DEFAULT_TIMEOUT, check
from tools.learn.places import chapters_named
from tools.learn.skeleton import DEFAULT_PATH, SkeletonExistsError, write_skeleton
from tools.learn.table import progress_table


def _engine_file(path: Path) -> Path:
    """A folder stands for the micrograd.py inside it."""
    return path / ENGINE if path.is_dir() else path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="learner", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    write = commands.add_parser("skeleton", help="write a micrograd.py for you to fill in")
    write.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH)
    write.add_argument("--force", action="store_true", help="replace the file if it exists")
    learn = commands.add_parser("learn", help="run the book's checks against your micrograd.py")
    learn.add_argument("path", type=Path, help="your micrograd.py (or its folder)")
    learn.add_argument(
        "--chapter",
        action="append",
        default=[],
        metavar="N",
        help="only this chapter (a number or the start of its file name); repeatable",
    )
    learn.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"per chapter (default {DEFAULT_TIMEOUT:g})",
    )
    args = parser.parse_args(argv)

    if args.command == "skeleton":
        path = _engine_file(args.path)
        try:
            count = write_skeleton(path, force=args.force)
        except SkeletonExistsError as error:
            print(f"learner: {error}", file=sys.stderr)
            return 1
        print(
            f"wrote {path.as_posix()}: {count} functions to write, each raising "
            "NotImplementedError with the section of the book that builds it."
        )
        print(f"Check it against the book: python3 tools/dev.py learn {path.as_posix()}")
        return 0

    path = _engine_file(args.path)
    try:
        selected = chapters_named(args.chapter)
        results = check(path, selected, timeout=args.timeout)
    except (ValueError, FileNotFoundError) as error:
        print(f"learner: {error}", file=sys.stderr)
        return 2
    print(progress_table(results, path.as_posix()), end="")
    return 0 if all(r.failure is None for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
