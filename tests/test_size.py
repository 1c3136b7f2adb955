"""Size, by folder: the support around a short engine stays in sight. The test prints the
lines of each folder and the support's size against the engine's (run with -s to see them),
and fails when a folder passes its ceiling or one file of tools, benchmarks or the page's
scripts passes FILE_CEILING."""

from pathlib import Path

from tools import ENGINES, ROOT

# What each counts: the folder's files, by pattern (folders of their own, such as a virtual
# environment that bench.py makes in benchmarks/, are not the project's: left out).
FOLDERS = {
    "tools/": ("tools", ["**/*.py"]),
    "the page's scripts": ("docs/assets", ["**/*.js"]),
    "the stylesheets": ("docs", ["stylesheets/**/*.css", "assets/**/*.css"]),
    "tests/": ("tests", ["**/*.py"]),
    "benchmarks/": ("benchmarks", ["**/*.py"]),
}
# The ceilings, in lines: the figures of 3 December 2026 once the lab (issue 39) and Python
# from disk (issue 37) landed (tools 10,713, scripts 2,892, stylesheets 1,081, tests 13,467,
# benchmarks 1,512) plus a margin; tests may grow to 15,000 for the edges they now try
# (issue 44). Raise one only in a commit that says why it had to grow.
CEILINGS = {
    "tools/": 10_900,
    "the page's scripts": 2_950,
    "the stylesheets": 1_100,
    "tests/": 15_000,
    "benchmarks/": 1_550,
}
FILE_CEILING = 600  # lines of one file in tools/, benchmarks/ or the page's scripts
ONE_FILE = ("tools/", "the page's scripts", "benchmarks/")


def files(folder: str, patterns: list[str]) -> set[Path]:
    found = {path for pattern in patterns for path in (ROOT / folder).glob(pattern)}
    hidden = lambda p: any(part.startswith(".") for part in p.relative_to(ROOT).parts)  # noqa: E731
    return {p for p in found if p.is_file() and not hidden(p)}


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_each_folder_stays_under_its_ceiling():
    assert FOLDERS.keys() == CEILINGS.keys()
    sizes = {name: sum(map(lines, files(*where))) for name, where in FOLDERS.items()}
    for name, size in sizes.items():
        print(f"{name:<20} {size:>6,} lines  (ceiling {CEILINGS[name]:,})")
    support, engine = sum(sizes.values()), sum(lines(ROOT / name) for name in ENGINES)
    named = ", ".join(ENGINES)
    print(f"support / engines ({named}): {support:,} / {engine:,} = {support / engine:.0f}")
    over = [f"{name}: {sizes[name]:,} lines, over {CEILINGS[name]:,}" for name in sizes
            if sizes[name] > CEILINGS[name]]  # fmt: skip
    assert not over, (
        "Over its ceiling (tests/test_size.py): " + "; ".join(over) + ". Fold what is "
        "written twice, or raise the ceiling in a commit that says why."
    )


def test_no_file_of_the_tools_is_longer_than_its_ceiling():
    long = sorted(
        f"{path.relative_to(ROOT).as_posix()} ({lines(path):,} lines)"
        for name in ONE_FILE
        for path in files(*FOLDERS[name])
        if lines(path) > FILE_CEILING
    )
    assert not long, (
        f"Over {FILE_CEILING} lines: {', '.join(long)}. Split each by job (tests/test_size.py)."
    )
