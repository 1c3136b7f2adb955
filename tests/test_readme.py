"""The README and CONTRIBUTING.md hold: .ci/run runs the README's test command, its example
prints what it says, the commands they name exist, and the links between them arrive."""

import contextlib
import fnmatch
import io
import re
from urllib.parse import unquote, urlsplit

import pytest

from tests.helpers.vscode import jsonc
from tools import ROOT
from tools.chapter import Chapter

README = ROOT / "README.md"
CONTRIBUTING = ROOT / "CONTRIBUTING.md"  # at the root: every docs/*.md is a chapter
PAGES = [README, CONTRIBUTING]


def sh_commands(page, heading: str) -> list[str]:
    """The commands of ``page``'s sh fences in the section ``heading``, comments cut off."""
    read = Chapter.read(page)
    (start,) = [h.line for h in read.headings if h.text == heading]
    end = min(h.line for h in read.headings if h.line > start)
    fences = [f for f in read.fences if f.info == "sh" and start < f.line < end]
    return [f.code.split("#")[0].strip() for f in fences]


def test_the_readme_reads_in_a_minute():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 120, f"README.md has {len(lines)} lines: move detail to CONTRIBUTING.md"


def test_readme_example_prints_what_it_says():
    (example,) = [f for f in Chapter.read(README).fences if f.is_python]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(example.code, {"__name__": "readme"})
    assert printed.getvalue() == "8.0\n"
    assert "print(x.grad)  # 8.0" in example.code


def test_ci_runs_the_readme_test_command():
    commands = sh_commands(README, "Two commands")
    assert commands == ["python3 tools/dev.py serve", "python3 tools/dev.py test"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert any(line.strip() == commands[1] for line in ci.splitlines()), ci


def test_readme_names_only_dev_py_commands_that_exist():
    from tools.dev import COMMANDS

    named = re.findall(r"python3 tools/dev\.py (\w+)", README.read_text(encoding="utf-8"))
    assert set(named) <= set(COMMANDS), set(named) - set(COMMANDS)
    listed = re.findall(r"python3 tools/dev\.py (\w+)", CONTRIBUTING.read_text(encoding="utf-8"))
    assert set(listed) == set(COMMANDS), set(listed) ^ set(COMMANDS)
    for page in PAGES:
        assert "python tools/" not in page.read_text(encoding="utf-8"), f"{page.name}: use python3"


def test_the_test_names_the_readme_quotes_are_the_ones_a_chapter_gets():
    text = README.read_text(encoding="utf-8")
    (path, name) = re.search(r"`(docs/[\w.-]+\.md)::([\w-]+\[\d+\])`", text).groups()
    cells = Chapter.read(ROOT / path).cells
    assert name in [cell.name for cell in cells], (name, [cell.name for cell in cells])
    assert any(
        cell.name.endswith("[engine-1]")
        for page in (ROOT / "docs").glob("*.md")
        for cell in Chapter.read(page).cells
    )
    # VS Code's Testing panel lists a chapter's fences flat, under the chapter
    assert "by section" not in text


def _links(page):
    """Each link and image target of ``page``, as CommonMark reads them."""
    for token in Chapter.read(page).tokens:
        for child in token.children or []:
            if child.type == "link_open":
                yield child.attrs["href"]
            elif child.type == "image":
                yield child.attrs["src"]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_link_of_the_readme_and_contributing_arrives(page):
    broken = []
    for target in _links(page):
        url = urlsplit(target)
        if url.scheme or url.netloc:
            if url.scheme != "https":
                broken.append(f"{target}: links to other sites are https")
            continue
        into = (page.parent / unquote(url.path)).resolve() if url.path else page
        if ROOT not in into.parents or not into.exists():
            broken.append(f"{target}: no such file in the repository")
        elif url.fragment and (
            into.suffix != ".md"
            or unquote(url.fragment) not in {h.anchor for h in Chapter.read(into).headings}
        ):
            broken.append(f"{target}: no such heading in {into.name}")
    assert not broken, f"{page.name}: " + "; ".join(broken)


def test_the_readme_and_contributing_link_each_other():
    assert "CONTRIBUTING.md" in [urlsplit(t).path for t in _links(README)]
    assert "README.md" in [urlsplit(t).path for t in _links(CONTRIBUTING)]


def test_vscode_tasks_run_dev_py_commands_on_every_os():
    from tools.dev import COMMANDS

    tasks = jsonc("tasks.json")["tasks"]
    for task in tasks:
        assert task["command"] == "python3" and task["windows"] == {"command": "py"}, task
        assert task["args"][0] == "tools/dev.py" and task["args"][1] in COMMANDS, task
    settings = jsonc("settings.json")
    # a folder: the Python extension finds bin/python or Scripts\python.exe in it
    assert settings["python.defaultInterpreterPath"] == "${workspaceFolder}/.venv"


def test_the_vscode_settings_do_what_the_readme_promises():
    """README, "How to read the book", VS Code: each promise and the setting that keeps it."""
    settings, said = jsonc("settings.json"), README.read_text(encoding="utf-8")
    assert "ms-python.python" in jsonc("extensions.json")["recommendations"]  # it recommends
    assert "the\n  fences show up as tests in the Testing panel" in said  # ... through pytest,
    assert (
        settings["python.testing.pytestEnabled"] and not settings["python.testing.unittestEnabled"]
    )
    project = (ROOT / "pyproject.toml").read_text(encoding="utf-8")  # with no arguments:
    assert re.search(r'^addopts = ".*--markdown-docs', project, re.M)  # pyproject's own,
    assert re.search(r'^testpaths = \["docs"', project, re.M)  # the chapters among them
    assert settings["python.testing.pytestArgs"] == []
    pattern = settings["python.testing.autoTestDiscoverOnSavePattern"]  # found again on save
    braces = re.fullmatch(r"\*\*/\*\.\{(.*)\}", pattern)
    assert braces and {"py", "md"} <= set(braces[1].split(",")), pattern
    chapters = pattern.replace("**/", "").replace("{py,md}", "md")
    assert fnmatch.fnmatch("docs/03-backward.md", chapters), chapters
    assert "A breakpoint on a line of a fence" in said  # a breakpoint in a Markdown file
    assert settings["debug.allowBreakpointsEverywhere"] is True
    assert "open a chapter in the Markdown preview" in said  # its $...$ math typeset
    assert settings["markdown.math.enabled"] is True


def test_the_pages_workflow_publishes_what_contributing_says_to_build():
    import yaml

    from tools.publish import SITE

    (command,) = sh_commands(CONTRIBUTING, "Publish it")
    assert command.startswith("python3 tools/dev.py build"), command
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text())
    steps = workflow["jobs"]["build"]["steps"]
    runs = [step["run"].strip() for step in steps if "run" in step]
    assert command in runs, f"pages.yml runs {runs}, CONTRIBUTING.md says {command!r}"
    [published] = [s for s in steps if s.get("uses", "").startswith("actions/upload-pages")]
    assert published["with"]["path"] == SITE.name, "Pages must publish what the build writes"


def test_serve_puts_the_book_where_the_readme_says():
    # `mkdocs serve` mounts the site at the path of site_url (the rest it replaces by its
    # own address), and listens where tools/dev.py says it does by default.
    import yaml

    from tools.dev import SERVE_ADDRESS

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    host, port = SERVE_ADDRESS
    said = re.search(r"python3 tools/dev\.py serve\s+# the book on (\S+),", README.read_text())
    assert said, "the README's serve command should say where the book is"
    served = f"http://{host}:{port}{urlsplit(config.get('site_url') or '/').path}"
    for page in PAGES:
        for where in re.findall(r"the book on (http://[^\s,]+)", page.read_text()):
            assert served.rstrip("/") == where.rstrip("/"), (
                f"{page.name} says the book is on {where}, but mkdocs serve puts it on "
                f"{served} (the path of site_url in mkdocs.yml)"
            )
