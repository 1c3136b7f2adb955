"""What runs in the reader's browser too (tools/page/) needs nothing the page lacks.

Each module of the folder is imported in a Python of its own (``-I -S``) that holds the
standard library and a copy of the folder alone, as the page's Python does: it may import
the standard library and, relatively, the folder's other modules; nothing else.
"""

import shutil
import sys

import pytest

from tests.helpers import run_text
from tools import ROOT

PAGE = ROOT / "tools" / "page"
IMPORT = """
import builtins, importlib, sys

def standard(name, globals=None, locals=None, fromlist=(), level=0, *, real=__import__):
    if level == 0 and name.partition(".")[0] not in sys.stdlib_module_names:
        raise ImportError(f"`import {name}`: not the standard library nor, relatively, page/")
    return real(name, globals, locals, fromlist, level)

builtins.__import__ = standard
sys.path.insert(0, sys.argv[1])
importlib.import_module(sys.argv[2])
"""


@pytest.mark.parametrize("name", sorted(path.stem for path in PAGE.glob("*.py")))
def test_a_page_module_imports_only_the_standard_library_and_its_folder(name, tmp_path):
    shutil.copytree(PAGE, tmp_path / "page", ignore=shutil.ignore_patterns("__pycache__"))
    module = "page" if name == "__init__" else f"page.{name}"
    command = [sys.executable, "-I", "-S", "-c", IMPORT, str(tmp_path), module]
    ran = run_text(command, check=False)
    said = "\n".join(ran.stderr.strip().splitlines()[-4:])
    assert ran.returncode == 0, f"tools/page/{name}.py does not import in the page:\n{said}"
