"""A light start for learner mode (tools/dev.py): `skeleton` and `learn` install only the
`learn` extra, which holds what learner mode imports; `test` and `serve` add the rest to the
same environment, and switching back never reinstalls."""

import re
import subprocess
import sys

import pytest

from tests.helpers import run_text
from tests.test_dev import fake_venv  # noqa: F401  (a fixture: dev.py's paths in tmp_path)
from tools import ROOT, dev

LEARNER_MODULES = """
import importlib.metadata, sys
before = set(sys.modules)  # what the interpreter loaded at start (site, .pth files)
import tools.learner, tools.learn.in_page
installed = importlib.metadata.packages_distributions()  # top-level module -> distributions
top = {m.split(".")[0] for m in set(sys.modules) - before} - set(sys.stdlib_module_names)
print(" ".join(sorted({d.lower() for m in top for d in installed.get(m, [])})))
"""


def test_the_learn_extra_holds_what_learner_mode_imports():
    pyproject = (ROOT / "pyproject.toml").read_text()  # tomllib: Python 3.11 and later
    learn = re.search(r"^learn = \[(.*?)^\]", pyproject, re.S | re.M)[1]
    wanted = set(re.findall(r'^\s*"([\w-]+)', learn, re.M))
    assert wanted == {"markdown-it-py", "markdown", "pytest"}  # pytest: the chapters' raises
    done = run_text([sys.executable, "-c", LEARNER_MODULES], cwd=ROOT)
    assert done.returncode == 0, done.stderr
    imported = set(done.stdout.split())  # the distributions learner mode's modules come from
    assert imported <= {"markdown-it-py", "markdown", "mdurl"}, imported  # mdurl: markdown-it's
    assert dev.LIGHT == {"skeleton": ["learn"], "learn": ["learn"]}
    assert set(dev.EXTRAS) >= {"learn", "site", "test"}


@pytest.mark.usefixtures("fake_venv")
def test_learner_mode_installs_the_learn_extra_alone_and_test_adds_the_rest(monkeypatch):
    dev.VENV.mkdir()
    installed = []

    def pip(command, **_):
        installed.append(command[-1])
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(dev.subprocess, "run", pip)
    monkeypatch.setattr(dev, "_runs", lambda python: True)
    dev.ensure_environment("learn")
    assert installed == [".[learn]"]
    dev.ensure_environment("skeleton")  # the same extra: nothing more
    assert installed == [".[learn]"] and not dev.environment_ready("test")
    dev.ensure_environment("test")
    assert installed == [".[learn]", ".[learn,site,test]"]
    for command in ("learn", "skeleton", "serve", "check"):  # switching never reinstalls
        dev.ensure_environment(command)
    assert len(installed) == 2
    assert dev.installed_extras() == {"learn", "site", "test"}
