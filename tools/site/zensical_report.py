"""How Zensical (which runs no hooks) builds the site pass's tree, against MkDocs 1.6: a
report, not a gate. ``python3 -m tools.site.zensical_report`` installs Zensical into
build/zensical/.venv, makes the tree (prepare.py), builds it with both, and writes to
benchmarks/zensical.md the elements of each page's article (by their name and attribute
names) that only one of the two has.
"""

import re
import subprocess
import sys
import venv
from collections import Counter
from pathlib import Path

import yaml

from tools import ROOT
from tools.site.prepare import prepare

WORK, REPORT = ROOT / "build" / "zensical", ROOT / "benchmarks" / "zensical.md"
ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">(.*)</article>', re.S)


def elements(page: Path) -> Counter:
    """The elements of the page's article: its name and its attributes' names, counted."""
    found = ARTICLE.search(page.read_text(encoding="utf-8")) if page.exists() else None
    bare = re.sub(r'="[^"]*"', "", found[1]) if found else "<no-article>"
    return Counter("<" + " ".join(e) + ">" for e in re.findall(r"<(\w+)((?: [\w-]+)*)", bare))


def report(python: Path) -> str:
    """Build the tree with both generators; what differs, or why it could not be built."""
    prepare(tree=WORK / "docs")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    config["theme"]["custom_dir"] = str(ROOT / config["theme"]["custom_dir"])
    config = {k: v for k, v in config.items() if k != "hooks"} | {"docs_dir": "docs"}
    (WORK / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    zensical = [python.parent / "zensical", "build", "--clean"]
    for command in (zensical, [sys.executable, "-m", "mkdocs", "build", "-d", "mkdocs"]):
        done = subprocess.run(command, cwd=WORK, capture_output=True, text=True, check=False)
        if done.returncode:
            return f"{command[0]} did not build the tree:\n\n```\n{done.stdout}{done.stderr}```"
    rows = ["| page | only MkDocs's | only Zensical's |", "|---|---|---|"]
    for page in sorted((WORK / "mkdocs").glob("*.html")):
        ours, theirs = elements(page), elements(WORK / "site" / page.name)
        said = [
            ", ".join(f"`{e}` ×{n}" for e, n in (a - b).items())
            for a, b in [(ours, theirs), (theirs, ours)]
        ]
        rows += [f"| {page.name} | {said[0] or '-'} | {said[1] or '-'} |"]
    return "\n".join(rows)


if __name__ == "__main__":
    python = WORK / ".venv" / "bin" / "python"
    if not python.exists():
        venv.create(python.parent.parent, with_pip=True)
    subprocess.run([python, "-m", "pip", "install", "-q", "zensical"], check=True)
    version = subprocess.run(
        [python, "-m", "zensical", "--version"], capture_output=True, text=True
    )
    REPORT.write_text(
        f"# Zensical {version.stdout.strip()} against MkDocs 1.6.1, on the site pass's tree\n\n"
        f"Made by `python3 -m tools.site.zensical_report` (a report, not a gate).\n\n"
        f"{report(python)}\n",
        encoding="utf-8",
    )
    print(f"zensical_report: wrote {REPORT.relative_to(ROOT)}")
