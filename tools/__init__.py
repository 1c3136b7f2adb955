"""The book's tools. ROOT is the repository: the one place that says where it is."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"  # the chapters
ENGINE = "micrograd.py"  # the engine's file name, at ROOT, and the title of its fences


def relative(path: Path, root: Path = ROOT) -> str:
    """``path`` as the book names it: relative to ``root`` if inside it, with slashes."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()
