"""Learner mode: write the engine yourself, and let the book's checks tell you what is next.

    python3 tools/learner.py skeleton [PATH] [--force]
        Write a learner's micrograd.py (default: my-engine/micrograd.py; a PATH named
        tensor.py gets Part II's tensor engine), every function body a NotImplementedError
        naming the section that builds it; never overwritten unless --force is given.

    python3 tools/learner.py learn [PATH] [--chapter N ...] [--hint] [--timeout SECONDS]
        Run every chapter's checks against the micrograd.py (or tensor.py) at PATH (default, as for
        skeleton: my-engine/micrograd.py), each chapter in a
        process of its own, and print a progress table, a chapter's row as soon as it is
        known. Only checks that exercise the engine count (``engine_checks``); after a
        failure the checks that do not read what it left unsure still run. --hint: a
        hint about the function to fix, one more each time. Best scores and hints given
        are kept beside PATH (micrograd.progress.json).

`python3 tools/dev.py skeleton|learn ...` runs the same inside the project's .venv. The
work is done in tools/learn/; this file is the command line.
"""

import argparse
import sys
from pathlib import Path

if __name__ == "__main__":  # run by its path (chapter 16 does, from a learner's folder)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools import ENGINE, engine_for
from tools.learn.best import best_lines, now, read_record, record_path, remember, write_record
from tools.learn.child import DEFAULT_TIMEOUT, check
from tools.learn.counted import engine_checks, engine_names, nothing_to_check
from tools.learn.hints import LEVELS, hint, next_level, unnamed_hint
from tools.learn.places import chapters_named
from tools.learn.skeleton import DEFAULT_PATH, SkeletonExistsError, write_skeleton
from tools.learn.table import Layout, table_head, table_row, table_tail


class _Parser(argparse.ArgumentParser):
    """Bad arguments get one line saying what to type instead (argparse's usage is --help)."""

    def error(self, message: str):
        command = self.prog.split()[-1]  # a command's parser: "learner skeleton"
        where = f"dev.py {command}" if command in COMMANDS else "learner.py"
        self.exit(2, f"learner: {message}; see python3 tools/{where} --help\n")


COMMANDS = ("skeleton", "learn")  # also dev.py's names for them


def _engine_file(path: Path) -> Path:
    """A folder stands for the micrograd.py inside it."""
    return path / ENGINE if path.is_dir() else path


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds > 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a time: give the seconds a chapter may run, a positive number "
            "such as 120"
        )
    return seconds


def _python_file(path: Path) -> Path:
    """``path`` if it names a Python file; else ValueError saying what to type instead."""
    if path.suffix != ".py":
        raise ValueError(
            f"{path.as_posix()} is not a Python file: give your engine's .py file or its "
            "folder, e.g. my-engine/micrograd.py"
        )
    return path


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="learner", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    write = commands.add_parser("skeleton", help="write a micrograd.py (or tensor.py) to fill in")
    write.add_argument("--force", action="store_true", help="replace the file if it exists")
    learn = commands.add_parser("learn", help="run the book's checks against your micrograd.py")
    path_help = f"your micrograd.py or its folder, or tensor.py (default {DEFAULT_PATH.as_posix()})"
    for command in (write, learn):
        command.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH, help=path_help)
    learn.add_argument(
        "--chapter",
        action="append",
        default=[],
        metavar="N",
        help="only this chapter (a number or the start of its file name); repeatable",
    )
    learn.add_argument(
        "--hint",
        action="store_true",
        help="a hint about the function to fix, a more specific one each time (where to look, "
        "the rule in words, then a worked example of your mistake); after success, those given",
    )
    learn.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"per chapter (default {DEFAULT_TIMEOUT:g})",
    )
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # said by the command's parser, which names the command's --help
        commands.choices[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")

    if args.command == "skeleton":
        path = _engine_file(args.path)
        try:
            count = write_skeleton(_python_file(path), force=args.force)
        except (SkeletonExistsError, ValueError) as error:
            print(f"learner: {error}", file=sys.stderr)
            return 1 if isinstance(error, SkeletonExistsError) else 2
        print(
            f"wrote {path.as_posix()}: {count} functions to write, each raising "
            "NotImplementedError with the section of the book that builds it."
        )
        print(f"Check it against the book: python3 tools/dev.py learn {path.as_posix()}")
        return 0
    return _learn(_engine_file(args.path), args.chapter, args.timeout, args.hint)


def _learn(path: Path, chapters: list[str], timeout: float, asked: bool = False) -> int:
    """``learn``: the table, a chapter's row printed as soon as it is known."""
    try:
        selected = chapters_named(chapters)
        if nothing := nothing_to_check(selected, path):
            raise ValueError(nothing)
        _python_file(path)
        if not path.is_file():
            where = "" if path == DEFAULT_PATH else f" {path.as_posix()}"
            raise FileNotFoundError(
                f"{path.as_posix()}: no such file (write one with "
                f"`python3 tools/dev.py skeleton{where}`)"
            )
    except (ValueError, FileNotFoundError) as error:
        print(f"learner: {error}", file=sys.stderr)
        return 2
    file = engine_for(path)
    names = engine_names(engine=file)
    layout = Layout.of(selected, sum(len(engine_checks(c, names, file)) for c in selected))
    shown = []

    def show(result):
        if result.failure and result.failure.kind == "EngineImportError":
            return
        if not shown:
            print(table_head(layout), end="", flush=True)
        shown.append(result)
        print(table_row(result, layout), end="", flush=True)

    def found(result):  # before the table ends, if the later chapters still run
        if result.failure.fix and len(shown) < len(selected):
            early = f"(the function to fix: {result.failure.fix}; Read next follows the table)"
            print(early, file=sys.stderr, flush=True)

    results = check(path, selected, timeout=timeout, progress=show, named=found)
    broken = [r.failure for r in results if r.failure and r.failure.kind == "EngineImportError"]
    if broken:
        said = broken[0].message.removeprefix("EngineImportError: ")
        print(f"learner: {said}; fix it, then run the same command again", file=sys.stderr)
        return 2
    print(table_tail(results, path.as_posix(), layout), end="")
    kept = record_path(path)
    record = read_record(kept)
    if record is None:
        print(f"(your best scores are not kept: {kept.as_posix()} is not the learner's file)")
    else:
        record = remember(record, results, now())
        print(best_lines(record, results), end="")
    first = next((r for r in results if r.failure), None)
    fix = first.failure.fix if first else ""
    if fix:
        given = (record or {}).get("hints", {}).get(fix, 0)
        if asked:
            given = next_level(given)
            seen, compared = first.failure.seen, first.failure.compared
            said = hint(fix, given, seen=seen, compared=compared, engine=file)
            print("", *said, sep="\n")
            if record is not None:
                record["hints"][fix] = given
        elif given < LEVELS:
            print(f"Stuck? Add --hint for a hint about {fix}, a more specific one each time.")
    elif first and asked:
        print("", *unnamed_hint(first), sep="\n")
    elif first:
        print("No one function could be named; --hint says why, and what to try.")
    elif asked:  # every check passes: the hints given stay there to read again
        for name, given in (record or {}).get("hints", {}).items():
            print("", *hint(name, given, engine=file), sep="\n")
    if record is not None:
        write_record(kept, record)
    return 0 if all(r.failure is None for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
