"""What `python3 tools/dev.py figures` wrote into docs/figures/, recorded as it writes it: the
proof it needs before it deletes a file there.

The record (written.sha256, beside this file, committed) holds the sha256 of each file as the
command wrote it, in ``sha256sum``'s format. A file is the command's to delete only if it is
named there and still holds exactly those bytes: a reader's copy, or a drawing edited since,
is someone else's, whatever it looks like. And no file a page links to is deleted at all.
"""

import re
from pathlib import Path

from tools import DOCS, ROOT
from tools.tangle import sha256 as digest  # of text as written: UTF-8, newlines as they are

RECORD = Path(__file__).with_name("written.sha256")


def file_digest(file: Path) -> str:
    """The sha256 of ``file``'s text, its line endings read as ``\n`` (a Windows checkout)."""
    return digest(file.read_text(encoding="utf-8", errors="replace"))


def read(record: Path = RECORD) -> dict[str, str]:
    """File name -> the sha256 of what the command last wrote there."""
    lines = record.read_text(encoding="utf-8").splitlines() if record.exists() else []
    matches = (re.fullmatch(r"([0-9a-f]{64})  (\S+)", line) for line in lines)
    return {match[2]: match[1] for match in matches if match}


def write(written: dict[str, str], record: Path = RECORD) -> None:
    lines = "".join(f"{sha}  {name}\n" for name, sha in sorted(written.items()))
    record.write_text(lines, encoding="utf-8", newline="\n")


def is_ours(file: Path, written: dict[str, str]) -> bool:
    """Did the command write ``file``, and is it still exactly what it wrote?"""
    return file.exists() and written.get(file.name) == file_digest(file)


def linked_from(file: Path, pages: list[Path] | None = None) -> Path | None:
    """The first page (a chapter, or README/CONTRIBUTING) whose text names ``file`` as
    ``figures/<its name>``, as a link or an image does; None if none does."""
    pages = pages if pages is not None else [*sorted(DOCS.rglob("*.md")), *ROOT.glob("*.md")]
    needle = re.compile(r"figures/" + re.escape(file.name) + r"(?![\w.-])")
    for page in pages:
        if needle.search(page.read_text(encoding="utf-8", errors="replace")):
            return page
    return None
