"""One command per job, on a fresh machine with nothing but Python >= 3.10.

    python tools/dev.py test [pytest args]   install what the tests need, run them all
    python tools/dev.py serve [mkdocs args]  install what the site needs, serve it on localhost
    python tools/dev.py skeleton|learn ...   learner mode: see tools/learner.py

Both keep their packages in .venv/ next to this repository (created on first use,
refreshed whenever pyproject.toml changes), so nothing is installed system-wide.
Set MICROGRAD_EXTRAS to add optional extras, e.g. MICROGRAD_EXTRAS=torch.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")


def ensure_environment(extras: list[str]) -> None:
    """Create .venv and install the project's extras, unless that was already done."""
    extras = sorted(set(extras + os.environ.get("MICROGRAD_EXTRAS", "").split(",")) - {""})
    pyproject = (ROOT / "pyproject.toml").read_bytes()
    stamp = hashlib.sha256(pyproject + ",".join(extras).encode()).hexdigest()
    stamp_file = VENV / "installed.sha256"
    if stamp_file.exists() and stamp_file.read_text() == stamp:
        return
    if not PYTHON.exists():
        print(f"dev: creating {VENV}", flush=True)
        venv.create(VENV, with_pip=True)
    print(f"dev: installing .[{','.join(extras)}] into {VENV}", flush=True)
    subprocess.run(
        [PYTHON, "-m", "pip", "install", "--quiet", "-e", f".[{','.join(extras)}]"],
        cwd=ROOT,
        check=True,
    )
    stamp_file.write_text(stamp)


def main(argv: list[str]) -> int:
    if argv and argv[0] in ("skeleton", "learn"):  # learner mode, with the tests' packages
        ensure_environment(["test", "site"])
        return subprocess.call([PYTHON, ROOT / "tools" / "learner.py", *argv])
    if not argv or argv[0] not in ("test", "serve"):
        print(__doc__, file=sys.stderr)
        return 2
    command, rest = argv[0], argv[1:]
    if command == "test":
        ensure_environment(["test", "site"])
        return subprocess.call([PYTHON, "-m", "pytest", *rest], cwd=ROOT)
    ensure_environment(["site"])
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")  # Material's end-of-life notice
    return subprocess.call([PYTHON, "-m", "mkdocs", "serve", *rest], cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
