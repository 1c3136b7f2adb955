"""The code editor's bundle (tools/site/editor.py), short of npm and a browser: what is
pinned, and what a build without npm says (tests/site/ build it and use it in Chromium)."""

import json
import shutil

import pytest

from tools.site import editor

PINS = {"codemirror": "6.0.2", "@codemirror/lang-python": "6.2.1", "esbuild": "0.28.2"}


def test_the_editor_is_pinned_by_version_and_integrity():
    package = json.loads((editor.SOURCE / "package.json").read_text(encoding="utf-8"))
    pinned = {**package["dependencies"], **package["devDependencies"]}
    assert pinned == PINS  # exact versions: no ranges (codemirror's `latest` is CodeMirror 5)
    assert pinned["codemirror"] == editor.CODEMIRROR
    lock = json.loads((editor.SOURCE / "package-lock.json").read_text(encoding="utf-8"))
    packages = {k: v for k, v in lock["packages"].items() if k}
    for name, version in PINS.items():
        assert packages[f"node_modules/{name}"]["version"] == version, name
    unchecked = [name for name, p in packages.items() if not p.get("integrity", "sha512-")]
    assert not unchecked and all(p["integrity"].startswith("sha512-") for p in packages.values())


def test_the_cache_key_follows_what_makes_the_bundle(tmp_path):
    for name in editor.SOURCES:
        shutil.copyfile(editor.SOURCE / name, tmp_path / name)
    key = editor.bundle_key(tmp_path)
    assert key == editor.bundle_key(editor.SOURCE)
    (tmp_path / "entry.js").write_text("// another editor\n", encoding="utf-8")
    assert editor.bundle_key(tmp_path) != key


def test_without_npm_there_is_no_editor(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("MICROGRAD_CACHE", str(tmp_path / "empty"))
    with pytest.raises(editor.EditorUnavailableError, match="npm is not installed"):
        editor.editor_bundle()
