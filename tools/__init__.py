"""The book's tools. ROOT is the repository: the one place that says where it is."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"  # the chapters
# The engine files, at ROOT, each the title of its fences, with what it is (its header's
# first line): Part I builds the first, on scalars; Part II the second, on tensors.
ENGINES = {
    "micrograd.py": "a scalar reverse-mode autograd engine",
    "tensor.py": "a tensor reverse-mode autograd engine",
}
ENGINE = next(iter(ENGINES))  # micrograd.py, the book's first engine


def engine_for(path) -> str:
    """The engine file ``path`` holds (one the tangler writes) or stands for (a learner's):
    its own name if it is one of ENGINES (my-engine/tensor.py: tensor.py), else the first."""
    return Path(path).name if Path(path).name in ENGINES else ENGINE


def relative(path: Path, root: Path = ROOT) -> str:
    """``path`` as the book names it: relative to ``root`` if inside it, with slashes."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()
