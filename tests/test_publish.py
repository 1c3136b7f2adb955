"""tools/publish.py short of a build: its command line (`python3 tools/dev.py build ARGS` runs
`python -m tools.publish build ARGS`), and the layout of the archive."""

import sys
import zipfile

import pytest

from tests.helpers import run_text
from tools import ROOT
from tools.publish import PDF, archive

PUBLISH = ROOT / "tools" / "publish.py"


@pytest.mark.parametrize(("args", "said"), [
    (["build", "--arhive"], "build has no option --arhive (its options: --archive)"),
    (["pdf", "--archive"], "pdf has no option --archive (its options: none)"),
], ids=["build", "pdf"])  # fmt: skip
def test_a_mistyped_option_is_one_line_naming_it_and_the_valid_ones(args, said):
    # as dev.py runs it
    result = run_text([sys.executable, "-m", "tools.publish", *args], cwd=ROOT, timeout=60)
    assert result.returncode == 2, result
    assert result.stderr.splitlines() == [f"publish: {said}"], result.stderr
    assert result.stdout == ""  # and nothing built


def test_the_archive_holds_the_site_folder_pdf_included(tmp_path):
    site = tmp_path / "site"
    files = {
        "index.html": b"<html>the book</html>", "02-the-value-atom.html": b"<html>a chapter</html>",
        "assets/pyodide/pyodide.js": b"// the runtime", PDF: b"%PDF-1.7 the whole book",
    }  # fmt: skip
    for name, data in files.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_bytes(data)
    out = archive(site, tmp_path / "the-literate-micrograd.zip")
    with zipfile.ZipFile(out) as zipped:
        held = {name: zipped.read(name) for name in zipped.namelist()}
    assert held == {f"the-literate-micrograd/{name}": data for name, data in files.items()}, (
        "the zip should hold every file of the site, PDF included, under one folder named "
        "after it (README: Publish it)"
    )


def test_without_npm_the_build_says_last_what_the_site_lacks_and_what_to_install(
    tmp_path, monkeypatch, caplog, capsys
):
    """No npm (and nothing fetched before): the hooks build the site without Run buttons and
    without search from disk, and say so in mkdocs's log, where mkdocs prints it at INFO
    level among its own lines; `build` finds those reasons there and says them again, last,
    each with what to install."""
    import logging
    from types import SimpleNamespace

    from tools import publish
    from tools.site import hooks, prepare, runtime

    monkeypatch.setenv("MICROGRAD_CACHE", str(tmp_path))  # no runtime fetched before
    real_which = runtime.shutil.which
    monkeypatch.setattr(
        runtime.shutil, "which", lambda name, *a, **k: None if name == "npm" else real_which(name)
    )
    shim = runtime.SHIM.files["shim/index.js"]
    config = SimpleNamespace(extra={"polyfills": [shim]}, docs_dir=str(ROOT / "docs"))
    config.config_file_path, config.site_dir = str(tmp_path / "mkdocs.yml"), str(tmp_path / "site")
    made = prepare.Prepared(tmp_path / "tree")
    assert prepare.fetch(ROOT / "docs", made) == [None, None, None]
    monkeypatch.setattr(prepare, "prepare", lambda *_: made)  # as the site pass would make it
    with caplog.at_level(logging.INFO, logger=hooks.log.name):
        hooks.on_config(config)  # says what the site pass made, as mkdocs runs it
    assert config.extra["polyfills"] == [] and not made.search_from_disk
    log = "".join(  # as mkdocs prints its log
        f"{record.levelname:<8}-  {record.getMessage()}\n" for record in caplog.records
    )
    log = f"INFO    -  Cleaning site directory\n{log}INFO    -  Documentation built\n"
    monkeypatch.setattr(publish, "build", lambda: publish.lesser(log))
    capsys.readouterr()
    assert publish.main(["build"]) == 0
    said = capsys.readouterr()
    assert said.out.startswith("publish: building the site into site/ (mkdocs build")
    reasons = said.err.splitlines()
    assert [reason.split(":")[1:3] for reason in reasons] == [
        [" the site is lesser", " Run buttons are off"],
        [" the site is lesser", " Search works only when the site is served"],
    ], said.err
    assert all("npm is not installed" in r and "install npm" in r.lower() for r in reasons)


def test_the_reasons_come_after_every_step_even_the_archive(monkeypatch, capsys):
    """`build --archive` names each step as it starts it, and the site's lacks come last."""
    from tools import publish

    done = []
    monkeypatch.setattr(publish, "build", lambda: done.append("build") or ["no Run buttons"])
    monkeypatch.setattr(publish, "pdf", lambda: done.append("pdf") or publish.SITE / PDF)
    monkeypatch.setattr(publish, "pages", lambda out: 3)
    monkeypatch.setattr(publish, "archive", lambda: done.append("zip") or publish.ARCHIVE)
    monkeypatch.setattr(publish.sys, "stdout", publish.sys.stderr)  # one stream: their order
    assert publish.main(["build", "--archive"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert done == ["build", "pdf", "zip"]
    said = ["building", "wrote", "printing", "wrote", "zipping", "wrote", "the"]
    assert [line.split(" ")[1] for line in lines] == said, lines
    assert lines[-1] == "publish: the site is lesser: no Run buttons"
