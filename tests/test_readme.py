"""The README holds: .ci/run runs its test command, and its example prints what it says."""

import contextlib
import io
import json
import re

from tools import ROOT
from tools.chapter import Chapter

README = ROOT / "README.md"


def test_readme_example_prints_what_it_says():
    (example,) = [f for f in Chapter.read(README).fences if f.is_python]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(example.code, {"__name__": "readme"})
    assert printed.getvalue() == "8.0\n"
    assert "print(x.grad)  # 8.0" in example.code


def test_ci_runs_the_readme_test_command():
    headings = Chapter.read(README).headings
    (start,) = [h.line for h in headings if h.text == "Two commands"]
    end = min(h.line for h in headings if h.line > start)
    commands = [
        f.code.split("#")[0].strip()
        for f in Chapter.read(README).fences
        if f.info == "sh" and start < f.line < end
    ]
    assert commands == ["python3 tools/dev.py serve", "python3 tools/dev.py test"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert any(line.strip() == commands[1] for line in ci.splitlines()), ci


def test_readme_names_only_dev_py_commands_that_exist():
    from tools.dev import COMMANDS

    named = re.findall(r"python3 tools/dev\.py (\w+)", README.read_text(encoding="utf-8"))
    assert set(named) == set(COMMANDS), set(named) ^ set(COMMANDS)
    assert "python tools/" not in README.read_text(encoding="utf-8"), "use python3 (or py)"


def _jsonc(path):
    """A VS Code settings file: JSON with // comment lines."""
    text = path.read_text(encoding="utf-8")
    return json.loads("\n".join(line for line in text.splitlines() if line.strip()[:2] != "//"))


def test_vscode_tasks_run_dev_py_commands_on_every_os():
    from tools.dev import COMMANDS

    tasks = _jsonc(ROOT / ".vscode" / "tasks.json")["tasks"]
    for task in tasks:
        assert task["command"] == "python3" and task["windows"] == {"command": "py"}, task
        assert task["args"][0] == "tools/dev.py" and task["args"][1] in COMMANDS, task
    settings = _jsonc(ROOT / ".vscode" / "settings.json")
    # a folder: the Python extension finds bin/python or Scripts\python.exe in it
    assert settings["python.defaultInterpreterPath"] == "${workspaceFolder}/.venv"


def test_the_pages_workflow_publishes_what_the_readme_command_builds():
    import yaml

    from tools.publish import SITE

    headings = Chapter.read(README).headings
    (start,) = [h.line for h in headings if h.text == "Publish it"]
    end = min(h.line for h in headings if h.line > start)
    (command,) = [
        f.code.split("#")[0].strip()
        for f in Chapter.read(README).fences
        if f.info == "sh" and start < f.line < end
    ]
    assert command.startswith("python3 tools/dev.py build"), command
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text())
    steps = workflow["jobs"]["build"]["steps"]
    runs = [step["run"].strip() for step in steps if "run" in step]
    assert command in runs, f"pages.yml runs {runs}, the README says {command!r}"
    [published] = [s for s in steps if s.get("uses", "").startswith("actions/upload-pages")]
    assert published["with"]["path"] == SITE.name, "Pages must publish what the build writes"


def test_serve_puts_the_book_where_the_readme_says():
    # `mkdocs serve` mounts the site at the path of site_url (the rest it replaces by its
    # own address), and listens where tools/dev.py says it does by default.
    from urllib.parse import urlsplit

    import yaml

    from tools.dev import SERVE_ADDRESS

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    host, port = SERVE_ADDRESS
    said = re.search(r"python3 tools/dev\.py serve\s+# the book on (\S+),", README.read_text())
    assert said, "the README's serve command should say where the book is"
    served = f"http://{host}:{port}{urlsplit(config['site_url']).path}"
    assert served.rstrip("/") == said[1].rstrip("/"), (
        f"the README says the book is on {said[1]}, but mkdocs serve puts it on {served} "
        "(the path of site_url in mkdocs.yml)"
    )
