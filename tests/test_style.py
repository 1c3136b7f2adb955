"""All Python here, the generated engine included, is linted and formatted with ruff."""

import sys

from tests.helpers import run_text
from tools import ROOT


def ruff(*args):
    return run_text([sys.executable, "-m", "ruff", *args], cwd=ROOT)


def test_ruff_lint_is_clean():
    result = ruff("check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean():
    result = ruff("format", "--check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr
