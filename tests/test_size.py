"""Size, by folder: the support around a short engine stays in sight. The test prints the
lines of each folder (run with -s to see them) and fails when one passes its ceiling."""

from __future__ import annotations

from pathlib import Path

from tools import ROOT

# What each counts: the folder's files, by pattern.
FOLDERS = {
    "tools/": ("tools", ["**/*.py"]),
    "the page's scripts": ("docs/assets", ["**/*.js"]),
    "the stylesheets": ("docs", ["stylesheets/**/*.css", "assets/**/*.css"]),
    "tests/": ("tests", ["**/*.py"]),
    "benchmarks/": ("benchmarks", ["**/*.py"]),
}
# The ceilings, in lines: the figures of 3 December 2026 once the lab (issue 39) and Python
# from disk (issue 37) landed (tools 10,713, scripts 2,892, stylesheets 1,081, tests 13,467,
# benchmarks 1,512) plus a margin. Raise one only in a commit that says why it had to grow.
CEILINGS = {
    "tools/": 10_900,
    "the page's scripts": 2_950,
    "the stylesheets": 1_100,
    "tests/": 15_000,  # raised 5 December for the coach's diagnosis table (issue 47)
    "benchmarks/": 1_550,
}


def lines(folder: str, patterns: list[str]) -> int:
    files = {path for pattern in patterns for path in (ROOT / folder).glob(pattern)}
    return sum(_count(path) for path in files if path.is_file())


def _count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_each_folder_stays_under_its_ceiling():
    assert FOLDERS.keys() == CEILINGS.keys()
    sizes = {name: lines(*where) for name, where in FOLDERS.items()}
    for name, size in sizes.items():
        print(f"{name:<20} {size:>6,} lines  (ceiling {CEILINGS[name]:,})")
    over = [f"{name}: {sizes[name]:,} lines, over {CEILINGS[name]:,}" for name in sizes
            if sizes[name] > CEILINGS[name]]  # fmt: skip
    assert not over, (
        "Over its ceiling (tests/test_size.py): " + "; ".join(over) + ". Fold what is "
        "written twice, or raise the ceiling in a commit that says why."
    )
