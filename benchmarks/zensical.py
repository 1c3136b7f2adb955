"""Zensical on the site pass's tree, against MkDocs: `python -m benchmarks.zensical`."""

import re
import subprocess
import sys
from collections import Counter

import yaml

from tools import ROOT
from tools.site.prepare import prepare

WORK, ELEMENT = ROOT / "build" / "zensical", re.compile(r"<(\w+)((?: [\w-]+)*)")
ZENSICAL, MKDOCS = WORK / "venv/bin/zensical", [sys.executable, "-m", "mkdocs", "build", "-d", "m"]

if __name__ == "__main__":  # Zensical into build/zensical/venv, the tree beside it
    subprocess.run([sys.executable, "-m", "venv", WORK / "venv"], check=True)  # and into it:
    subprocess.run([ZENSICAL.parent / "pip", "install", "-q", "zensical"], check=True)
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    config["theme"]["custom_dir"] = str(ROOT / config["theme"].pop("custom_dir"))
    (WORK / "mkdocs.yml").write_text(yaml.safe_dump({**config, "docs_dir": "docs", "hooks": []}))
    prepare(tree=WORK / "docs")
    ran = [[ZENSICAL, "--version"], [ZENSICAL, "build", "--clean"], MKDOCS]
    said = [subprocess.run(c, cwd=WORK, capture_output=True, text=True, check=False) for c in ran]
    made = []  # the elements of each site's articles, by name and attribute names, counted
    for site in (WORK / "m", WORK / "site"):
        pages = [re.sub(r'="[^"]*"', "", p.read_text("utf-8")) for p in site.glob("*.html")]
        articles = [page.split("<article ")[-1].split("</article")[0] for page in pages]
        made.append(Counter(" ".join(e) for a in articles for e in ELEMENT.findall(a)))
    ours, theirs = made
    rows = [f"| `<{e}>` | {ours[e]} | {theirs[e]} |" for e in sorted(ours - theirs | theirs - ours)]
    report = [f"# Zensical {said[0].stdout}\n{__doc__} A report, not a gate: what only one made.\n"]
    report += [f"```\n{s.args}: {s.stdout}{s.stderr}```" for s in said if s.returncode]
    report += ["| element: attributes | by MkDocs | by Zensical |", "|---|---|---|", *rows]
    (ROOT / "benchmarks" / "zensical.md").write_text("\n".join([*report, ""]), encoding="utf-8")
