"""The README holds: .ci/run runs its test command, and its example prints what it says."""

import contextlib
import io

from tools.tangle import ROOT, read_fences

README = ROOT / "README.md"


def test_readme_example_prints_what_it_says():
    (example,) = [f for f in read_fences(README) if f.is_python]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(example.code, {"__name__": "readme"})
    assert printed.getvalue() == "8.0\n"
    assert "print(x.grad)  # 8.0" in example.code


def test_ci_runs_the_readme_test_command():
    commands = [f.code.split("#")[0].strip() for f in read_fences(README) if f.info == "sh"]
    assert commands == ["python tools/dev.py serve", "python tools/dev.py test"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert any(line.strip() == commands[1] for line in ci.splitlines()), ci
