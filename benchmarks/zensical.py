"""Zensical on the site pass's tree, against MkDocs: `python -m benchmarks.zensical`."""

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import yaml

from tools import ROOT
from tools.site.prepare import prepare

WORK = ROOT / "build" / "zensical"  # Zensical's environment, the tree and both sites
ZENSICAL = WORK / "venv" / "bin" / "zensical"
MKDOCS = [sys.executable, "-m", "mkdocs", "build", "-d", "m"]  # into build/zensical/m
REPORT = ROOT / "benchmarks" / "zensical.md"
# An opening tag: the element's name, then its attributes' names (the values are taken out
# of the page before this reads it).
OPENING_TAG = re.compile(r"<(\w+)((?: [\w-]+)*)")


def install_zensical() -> None:
    """Zensical into an environment of its own, build/zensical/venv."""
    subprocess.run([sys.executable, "-m", "venv", WORK / "venv"], check=True)
    subprocess.run([ZENSICAL.parent / "pip", "install", "-q", "zensical"], check=True)


def make_tree() -> None:
    """The site pass's tree in build/zensical/docs, and beside it a mkdocs.yml for it: the
    book's, with no hooks (the pass has run already) and the theme's overrides found."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    config["theme"]["custom_dir"] = str(ROOT / config["theme"].pop("custom_dir"))
    config |= {"docs_dir": "docs", "hooks": []}
    (WORK / "mkdocs.yml").write_text(yaml.safe_dump(config))
    prepare(tree=WORK / "docs")


def build() -> list[subprocess.CompletedProcess]:
    """Zensical's version, the tree built by Zensical (into site/), then by MkDocs (into m/);
    a build that fails is reported, not raised."""
    commands = [[ZENSICAL, "--version"], [ZENSICAL, "build", "--clean"], MKDOCS]
    return [
        subprocess.run(command, cwd=WORK, capture_output=True, text=True, check=False)
        for command in commands
    ]


def elements(site: Path) -> Counter:
    """How often each kind of element (its name and its attributes' names) is in the
    articles of the site's top-level pages."""
    found = Counter()
    for page in site.glob("*.html"):
        html = re.sub(r'="[^"]*"', "", page.read_text("utf-8"))  # the attributes' values out
        article = html.split("<article ")[-1].split("</article")[0]
        for name, attributes in OPENING_TAG.findall(article):
            found[f"{name} {attributes}"] += 1
    return found


def report(runs: list[subprocess.CompletedProcess], mkdocs: Counter, zensical: Counter) -> str:
    """The report: the version, every command that failed, and each kind of element that one
    of the two made more often than the other."""
    version = runs[0].stdout
    lines = [f"# Zensical {version}\n{__doc__} A report, not a gate: what only one made.\n"]
    lines += [f"```\n{run.args}: {run.stdout}{run.stderr}```" for run in runs if run.returncode]
    lines += ["| element: attributes | by MkDocs | by Zensical |", "|---|---|---|"]
    differ = (mkdocs - zensical) | (zensical - mkdocs)
    lines += [f"| `<{kind}>` | {mkdocs[kind]} | {zensical[kind]} |" for kind in sorted(differ)]
    return "\n".join([*lines, ""])


def main() -> None:
    install_zensical()
    make_tree()
    runs = build()
    made = report(runs, mkdocs=elements(WORK / "m"), zensical=elements(WORK / "site"))
    REPORT.write_text(made, encoding="utf-8")


if __name__ == "__main__":
    main()
