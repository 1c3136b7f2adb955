"""The workspace's VS Code files (.vscode/): JSON with // comment lines."""

import json

from tools import ROOT

FOLDER = ROOT / ".vscode"


def jsonc(name: str) -> dict:
    """``.vscode/<name>``, read as VS Code reads it: JSON with // comment lines."""
    text = (FOLDER / name).read_text(encoding="utf-8")
    return json.loads("\n".join(line for line in text.splitlines() if line.strip()[:2] != "//"))


def launch(name: str) -> dict:
    """The launch configuration called ``name`` in .vscode/launch.json."""
    found = [c for c in jsonc("launch.json")["configurations"] if c["name"] == name]
    assert len(found) == 1, f".vscode/launch.json: {len(found)} configurations named {name!r}"
    return found[0]
