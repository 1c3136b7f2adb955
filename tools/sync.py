"""Sync: bring the chapters and each engine file in step, whichever side was edited.

    python3 tools/dev.py sync     only the chapters changed since the last tangle: tangle;
                                  only an engine file (micrograd.py, tensor.py) changed: write
                                  each edited line back into the fence it came from; both
                                  changed: refuse, showing both

It refuses, writing nothing, whenever it cannot place an edit or the result would not
tangle back to the same file.
"""

import argparse
import ast
import difflib
import subprocess
import sys
from pathlib import Path

from tools import ROOT, engine_for, relative
from tools.chapter import check_unchanged, rewrite
from tools.tangle import (
    SYNC,
    TANGLE,
    RefusalError,
    Tangled,
    TangleError,
    diff_text,
    engine_files,
    generated_header,
    merge_by_hand,
    report,
    sha256,
    split_generated,
    tangle_book,
)


def _last_generated(out: Path, digest: str) -> str | None:
    """The text of ``out`` when last generated, if git's HEAD holds it; else None."""
    command = ["git", "show", f"HEAD:./{out.name}"]
    try:
        shown = subprocess.run(command, cwd=out.parent, capture_output=True, check=False)
    except OSError:  # no git
        return None
    text = shown.stdout.decode("utf-8", "replace").replace("\r\n", "\n")
    parts = split_generated(text) if shown.returncode == 0 else None
    return text if parts and sha256(parts[2]) == digest else None


def _where(tangled: Tangled, index: int, number: int) -> str:
    """Why an edit at line ``index`` (0-based) of ``tangled`` cannot be placed, and where."""
    line, name = tangled.lines[index], tangled.chunks[0].fence.engine
    if line.kind == "marker":
        return (
            f"{name}:{number}: an edit to the marker `{tangled.chunks[line.chunk].marker}` "
            "cannot be written into a chapter (markers are generated from the chapters' "
            "headings). Undo it; to move code, move it between fences in the chapters"
        )
    after = tangled.chunks[max(line.chunk, 0)].place
    return (
        f"{name}:{number}: an edit between the header and the first chunk ({after}) "
        "belongs to no fence. Put it below the first marker, or into a fence in a chapter"
    )


def _place(tangled: Tangled, base: list[str], i1: int, i2: int, new: list[str], j1: int):
    """Where in which chunk the edit base[i1:i2] -> ``new`` goes: (chunk, start, end, lines,
    joined), ``joined`` if the lines were added below the blank lines after a chunk.

    Lines replaced or deleted must all be code of one chunk. Lines inserted go into the
    chunk whose code is just above or just below them; inserted blank lines that merely
    shift the edit over the blank lines after a chunk are read as added to that chunk. Lines
    added among the blank lines after a chunk (a comment above the next marker, say) join
    that chunk, as lines added after it: they go at the end of its code, and the blank lines
    between chunks, which the tangler makes, are made again.
    """
    lines = tangled.lines
    if any(lines[index].kind != "gap" for index in range(i1, i2)):  # not only blank lines over
        first = lines[i1]
        for index in range(i1, i2):
            if lines[index].kind != "code" or lines[index].chunk != first.chunk:
                raise RefusalError(_where(tangled, index, index + 1))
        return first.chunk, first.offset, lines[i2 - 1].offset + 1, new, False
    above = lines[i1 - 1]
    if i1 == i2 and above.kind == "code":
        return above.chunk, above.offset + 1, above.offset + 1, new, False
    if i1 == i2 and i1 < len(lines) and lines[i1].kind == "code":
        return lines[i1].chunk, 0, 0, new, False
    gap = i1
    while lines[gap - 1].kind == "gap":  # inserted: the same text, the edit above the blanks?
        gap -= 1
        both = base[gap:i1] + new
        if i1 == i2 and both[len(new) :] == base[gap:i1] and lines[gap - 1].kind == "code":
            above = lines[gap - 1]
            return above.chunk, above.offset + 1, above.offset + 1, both[: len(new)], False
    above = lines[gap - 1]  # joined to the chunk above the blank lines; none above the first
    if above.kind != "code":  # the header: no chunk above
        raise RefusalError(_where(tangled, max(i1 - 1, gap), j1 + 1))
    code = [k for k, line in enumerate(new) if line.strip()]  # blank lines round them go:
    new = new[code[0] : code[-1] + 1] if code else []  # those between chunks are the tangler's
    return above.chunk, above.offset + 1, above.offset + 1, new, True


def _stitch(fresh: Tangled, text: str, out: Path, docs: Path, root: Path) -> str:
    """Write the edits of ``text`` (micrograd.py edited since ``fresh``) into the chapters."""
    name = out.name
    try:
        compile(text, name, "exec", dont_inherit=True)
    except SyntaxError as error:
        raise RefusalError(
            f"{name}:{error.lineno}: not valid Python ({error.msg}): fix it there, "
            f"then run `{SYNC}` again"
        ) from None
    old, new = fresh.text.splitlines(), text.splitlines()
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    edits = [
        _place(fresh, old, i1, i2, new[j1:j2], j1)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]
    paths = {chunk.fence.path for chunk in fresh.chunks}
    texts = {path: path.read_text(encoding="utf-8") for path in paths}
    read = dict(texts)
    for index in {index for index, *_ in edits}:  # is each fence its code, line for line?
        fence = fresh.chunks[index].fence
        code = fresh.chunks[index].code.split("\n")[:-1]
        if texts[fence.path].split("\n")[fence.line - 1 : fence.line - 1 + len(code)] != code:
            raise RefusalError(
                f"{relative(fence.path, root)}:{fence.line}: this fence's lines are not "
                f"the lines of its code (is the fence indented?), so {name} cannot be "
                "written back into it: copy the edit into the chapter by hand"
            )
    written = set()
    for index, start, end, lines, _ in reversed(edits):  # bottom up: the lines above stay put
        fence = fresh.chunks[index].fence
        rows = texts[fence.path].split("\n")
        rows[fence.line - 1 + start : fence.line - 1 + end] = lines
        texts[fence.path] = "\n".join(rows)
        written.add(fence.path)
    try:
        stitched = tangle_book(docs, root, {p: texts[p] for p in written}, engine_for(name))
    except TangleError as error:
        raise RefusalError(
            f"the edits to {name} would break a chapter, so nothing was written ({error}). "
            f"Copy the edit into the chapter by hand, then run `{TANGLE} --force`"
        ) from None
    body = split_generated(text)[2]
    body = body if body.endswith("\n") else body + "\n"
    respaced = any(joined for *_, joined in edits) and _same_but_spacing(stitched.body, body)
    if stitched.body != body and not respaced:
        raise RefusalError(
            f"the edits to {name} cannot be written into the chapters so that they tangle "
            f"back to the same {name} (the diff above is what would differ); nothing was "
            f"written. Copy the edit into the chapter by hand, then run `{TANGLE} --force`",
            diff_text(text, stitched.text, f"{name} (on disk)", f"{name} (after sync)"),
        )
    for path in written:  # all or nothing: no file changed since it was read
        check_unchanged(path, read[path])
    check_unchanged(out, text)
    for path in written:
        rewrite(path, read[path], texts[path])  # its line endings kept
    rewrite(out, text, stitched.text, crlf=False)
    places = sorted({(index, start) for index, start, *_ in edits})
    chunks = stitched.chunks
    where = ", ".join(f"{chunks[i].chapter}:{chunks[i].fence.line + start}" for i, start in places)
    if stitched.body != body:
        where += (
            f" (lines added below a chunk joined it; {name} now has them right after its "
            "code, and the tangler's blank lines between chunks)"
        )
    return f"wrote the edits in {name} back into {where}"


def _same_but_spacing(one: str, other: str) -> bool:
    """Do the engines ``one`` and ``other`` differ only in blank lines, which change no code?"""

    def code(text: str) -> tuple[list[str], str]:
        return [line for line in text.splitlines() if line.strip()], ast.dump(ast.parse(text))

    return code(one) == code(other)


def sync(docs: Path, out: Path, root: Path = ROOT) -> str:
    """Bring chapters and ``out`` in step, whichever side changed; RefusalError if both did."""
    name = out.name
    fresh = tangle_book(docs, root, engine=engine_for(name))
    if not out.exists():
        rewrite(out, None, fresh.text, crlf=False)
        return f"wrote {name}"
    text = out.read_text(encoding="utf-8")
    if text == fresh.text:
        return f"{name} is up to date"
    parts = split_generated(text)
    if parts is None:
        raise RefusalError(
            f"{name}:1: the header's sha256 line is gone, so sync cannot tell which side "
            f"changed. Restore the header (`git diff {name}` shows it), or replace {name} "
            f"with the chapters' version: `{TANGLE} --force`"
        )
    header, digest, body = parts
    generated, last = generated_header(digest, engine_for(name)), header.count("\n")
    if header != generated:
        raise RefusalError(
            f"{name}:1-{last}: an edit to the header cannot be written "
            f"into a chapter (the header is generated): undo it, then run `{SYNC}` again",
            diff_text(generated, header, f"{name} header (generated)", f"{name} (on disk)"),
        )
    if sha256(body) == digest:  # micrograd.py is as generated: the chapters changed
        rewrite(out, text, fresh.text, crlf=False)
        return f"wrote {name} (the chapters changed)"
    if body == fresh.body:  # both sides made the same edit
        rewrite(out, text, fresh.text, crlf=False)
        return f"{name} already had the chapters' changes: updated its header"
    if sha256(fresh.body) == digest:  # the chapters are as they were: micrograd.py changed
        return _stitch(fresh, text, out, docs, root)
    base = _last_generated(out, digest)
    chapters = header + fresh.body  # under the same header: its hash line is no change
    if base is None:
        details = diff_text(chapters, text, f"{name} (from the chapters)", f"{name} (on disk)")
        shown = (
            f"{name} as last generated is not in git's HEAD, so the diff above shows the "
            "two changes together"
        )
    else:
        details = diff_text(base, chapters, f"{name} (last generated)", "the chapters now")
        details += diff_text(base, text, f"{name} (last generated)", f"{name} (on disk)")
        shown = f"diffs above: first the chapters' change, then {name}'s"
    raise RefusalError(
        f"refusing: both {name} and the chapters changed since {name} was generated, and "
        f"sync does not merge ({shown}). {merge_by_hand(name)}",
        details,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=Path, default=ROOT / "docs", help="chapter folder")
    parser.add_argument("--out", type=Path, help="one engine file (default: every one)")
    args = parser.parse_args(argv)
    root = args.docs.resolve().parent
    outs = engine_files(args.docs, args.out)
    return max(report("sync", lambda out=out: sync(args.docs, out, root)) for out in outs)


if __name__ == "__main__":
    sys.exit(main())
