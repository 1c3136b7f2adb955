"""The skeleton: a learner's engine file made from the book's, every body a stub."""

import ast
from pathlib import Path

from tools import DOCS, ENGINE, engine_for
from tools.learn.places import where_in_book
from tools.tangle import defined, tangle_book

DEFAULT_PATH = Path("my-engine") / "micrograd.py"
LINE_LENGTH = 100  # ruff's, from pyproject.toml: the skeleton is ruff-clean as written

HEADER = """\
# {engine}: your own engine, rebuilt from the book.
# Written by `python3 tools/dev.py skeleton`. Every function keeps the book's signature and
# docstring; its body raises NotImplementedError naming the chapter section that builds
# it. Replace each raise with your code, then run the book's checks against this file:
# `python3 tools/dev.py learn <this file>` (the book's chapter "Rebuild it yourself").
"""


class SkeletonExistsError(FileExistsError):
    """The skeleton's path holds a file already: it may be the learner's work."""


def _literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', "'") + '"'


def _stub(name: str, section: str, indent: str) -> list[str]:
    """``raise NotImplementedError(...)`` lines, as ruff format would lay them out."""
    message = f"{name} is yours to write: see {section}"
    line = f"{indent}raise NotImplementedError({_literal(message)})\n"
    if len(line) - 1 <= LINE_LENGTH:
        return [line]
    width = LINE_LENGTH - len(indent) - 4 - 2  # one more indent, and the quotes
    parts, words = [], message.split(" ")
    part = words[0]
    for word in words[1:]:
        if len(part) + 1 + len(word) > width:
            parts.append(part)
            part = ""
        part += " " + word
    parts.append(part)
    inner = [f"{indent}    {_literal(p)}\n" for p in parts]
    return [f"{indent}raise NotImplementedError(\n", *inner, f"{indent})\n"]


def skeleton(docs: Path = DOCS, engine: str = ENGINE) -> str:
    """The text of a learner's ``engine`` file, made from the one the chapters in ``docs`` build.

    Kept: imports, constants, classes, class-level assignments, decorators, signatures and
    docstrings. Replaced: every function body, by an error naming the section that builds it.
    """
    tangled = tangle_book(docs, root=docs.resolve().parent, engine=engine)
    text = tangled.text
    spans = [  # (first line, last line, fence) of each chunk's code in micrograd.py
        (*tangled.code_lines(index), chunk.fence) for index, chunk in enumerate(tangled.chunks)
    ]
    lines = text.splitlines(keepends=True)
    edits = []  # (start, stop, new lines): lines[start:stop] becomes new lines (0-based)
    for name, node in defined(text):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        keep = 1 if ast.get_docstring(node, clean=False) is not None else 0
        if keep == len(node.body):
            continue  # nothing but a docstring: nothing to write
        first = node.body[keep].lineno
        if first == node.lineno:
            raise ValueError(f"{name}: put the body below the `def` line to make a skeleton")
        chunk = next(c for start, end, c in spans if start <= first <= end)
        body = lines[first - 1]
        indent = body[: len(body) - len(body.lstrip())]
        stub = _stub(name, where_in_book(chunk.path, chunk.line), indent)
        edits.append((first - 1, node.end_lineno, stub))
    for start, _, _ in spans:  # the tangler's marker line above each chunk: not the learner's
        edits.append((start - 2, start - 1, []))
    edits.append((0, spans[0][0] - 2, [HEADER.format(engine=engine), "\n"]))  # our header
    for start, stop, new in sorted(edits, reverse=True):
        lines[start:stop] = new
    return _mark_unused_imports("".join(lines))


def _mark_unused_imports(text: str) -> str:
    """Keep the book's imports, which the learner's bodies will need, without lint errors."""
    tree = ast.parse(text)
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    lines = text.splitlines(keepends=True)
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound = {(a.asname or a.name).split(".")[0] for a in node.names}
            if not bound & used:
                line = lines[node.end_lineno - 1].rstrip("\n")
                lines[node.end_lineno - 1] = f"{line}  # noqa: F401 (your code will use it)\n"
    return "".join(lines)


def write_skeleton(path: Path, force: bool = False, docs: Path = DOCS) -> int:
    """Write the skeleton to ``path``; return how many functions it leaves to write. A
    path named tensor.py gets Part II's engine (``engine_for``), any other Part I's.

    Raises SkeletonExistsError if ``path`` exists, unless ``force``.
    """
    if path.exists() and not force:
        raise SkeletonExistsError(
            f"{path} exists: not overwritten, since it may hold your work. Give another "
            "path, or pass --force to replace it with a fresh skeleton."
        )
    text = skeleton(docs, engine_for(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")
    return text.count("raise NotImplementedError(")
