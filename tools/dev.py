"""The few commands an author needs, on a machine with nothing but Python >= 3.10.

    python3 tools/dev.py test [pytest args]    run the whole test suite
    python3 tools/dev.py check [pytest args]   the fast part: all but the site build and browser
    python3 tools/dev.py serve [mkdocs args]   the book on http://127.0.0.1:8000, re-tangled on save
    python3 tools/dev.py tangle [args]         chapters -> micrograd.py (--check, --force)
    python3 tools/dev.py sync                  chapters <-> micrograd.py, whichever side changed
    python3 tools/dev.py figures [--check]     redraw the figures (docs/figures) and step tables
    python3 tools/dev.py bench [args]          time the engines: see benchmarks/README.md
    python3 tools/dev.py skeleton|learn ...    learner mode: see tools/learner.py

On Windows, write `py` for `python3`. Every command runs in .venv/ next to this repository:
one environment with everything the tests and the site need, created on first use and
refreshed whenever pyproject.toml changes, so nothing is installed system-wide and
switching commands never reinstalls. MICROGRAD_EXTRAS adds extras, e.g. MICROGRAD_EXTRAS=torch;
MICROGRAD_VENV puts the environment elsewhere (CI tests a second Python that way).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("MICROGRAD_VENV") or ROOT / ".venv").absolute()
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / "installed.sha256"
EXTRAS = ["site", "test"]  # one environment serves every command
SERVE_ADDRESS = ("127.0.0.1", 8000)  # mkdocs serve's default
# The suite on up to four processes (pytest-xdist); a chapter's fences, and each test
# module, stay together in one (see tools/chapters_plugin.py and tests/conftest.py).
PARALLEL = ["-n", "auto", "--maxprocesses", "4", "--dist", "loadgroup"]
COMMANDS = ("test", "check", "serve", "tangle", "sync", "figures", "bench", "skeleton", "learn")


class SetupError(Exception):
    """.venv could not be made ready; the message says what happened and what to do."""


def extras() -> list[str]:
    """The project's extras to install: EXTRAS plus any named in MICROGRAD_EXTRAS."""
    wanted = os.environ.get("MICROGRAD_EXTRAS", "").replace(" ", "").split(",")
    return sorted(set(EXTRAS + wanted) - {""})


def _stamp() -> str:
    pyproject = (ROOT / "pyproject.toml").read_bytes()
    return hashlib.sha256(pyproject + ",".join(extras()).encode()).hexdigest()


def _runs(python: Path) -> bool:
    try:
        return subprocess.run([python, "-c", "pass"], capture_output=True).returncode == 0
    except OSError:
        return False


def environment_ready() -> bool:
    """Is .venv there, working, and installed with what pyproject.toml asks for now?"""
    return STAMP.exists() and STAMP.read_text() == _stamp() and _runs(PYTHON)


def ensure_environment() -> None:
    """Create .venv and install the project's extras into it, unless that was already done."""
    if environment_ready():
        return
    if VENV.exists() and not _runs(PYTHON):
        print(f"dev: {VENV} is broken (its Python does not run): making it again", flush=True)
        shutil.rmtree(VENV)
    if not VENV.exists():
        print(f"dev: creating {VENV} with Python {sys.version.split()[0]}", flush=True)
        try:
            venv.create(VENV, with_pip=True)
        except Exception as error:  # e.g. Debian's python3 without the venv module's ensurepip
            shutil.rmtree(VENV, ignore_errors=True)
            raise SetupError(
                f"could not create {VENV} ({type(error).__name__}: {error}). If this Python "
                "lacks venv or ensurepip (Debian and Ubuntu: sudo apt install python3-venv), "
                "install it, then run the same command again"
            ) from None
    spec = f".[{','.join(extras())}]"
    print(f"dev: installing {spec} into {VENV} (a few minutes the first time)", flush=True)
    result = subprocess.run(
        [PYTHON, "-m", "pip", "install", "--disable-pip-version-check", "-e", spec], cwd=ROOT
    )
    if result.returncode != 0:
        raise SetupError(
            f"installing {spec} into {VENV} failed: pip says why above. Check the network "
            "connection to PyPI (or the proxy), then run the same command again"
        )
    STAMP.write_text(_stamp())


def _address(args: list[str]) -> tuple[str, int] | None:
    """The host and port `mkdocs serve` will listen on, from -a/--dev-addr if given."""
    value = None
    for i, arg in enumerate(args):
        if arg in ("-a", "--dev-addr") and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith("--dev-addr="):
            value = arg.split("=", 1)[1]
    if value is None:
        return SERVE_ADDRESS
    host, _, port = value.rpartition(":")
    return (host or SERVE_ADDRESS[0], int(port)) if port.isdigit() else None  # mkdocs says


def port_is_free(host: str, port: int) -> bool:
    """Could a server listen on host:port now (as mkdocs does, despite TIME_WAIT leftovers)?"""
    with socket.socket() as probe:
        if os.name != "nt":  # on Windows, SO_REUSEADDR would let it share a busy port
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


class _Terminated(BaseException):
    """SIGTERM arrived: stop the child, as KeyboardInterrupt does for Ctrl-C."""


def _raise_stop(signum, frame):
    raise _Terminated


def run_until_stopped(command: list, grace: float = 5.0, **options) -> int:
    """Run ``command``; Ctrl-C or SIGTERM stops it too (freeing its port) before returning.

    The child gets ``grace`` seconds to stop on the interrupt, then is terminated.
    """
    child = subprocess.Popen(command, **options)
    previous = signal.signal(signal.SIGTERM, _raise_stop)
    try:
        return child.wait()
    except (KeyboardInterrupt, _Terminated) as reason:
        ctrl_c = isinstance(reason, KeyboardInterrupt)  # then the child had it too
        if not ctrl_c:  # as Ctrl-C would: mkdocs then shuts its server down cleanly
            child.send_signal(signal.SIGTERM if os.name == "nt" else signal.SIGINT)
        try:
            child.wait(timeout=grace)
        except subprocess.TimeoutExpired:  # it ignores interrupts: end it
            child.terminate()
            try:
                child.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        return 130 if ctrl_c else 128 + signal.SIGTERM
    finally:
        signal.signal(signal.SIGTERM, previous)


def serve(args: list[str], env: dict) -> int:
    """`mkdocs serve`, after checking that its port is free; stopped with dev.py."""
    address = _address(args)
    if address and not port_is_free(*address):
        host, port = address
        print(
            f"dev: {host}:{port} is already in use (another serve?): stop that, or choose "
            f"another port: python3 tools/dev.py serve -a {host}:{port + 1}",
            file=sys.stderr,
        )
        return 1
    env = {**env, "NO_MKDOCS_2_WARNING": "1"}  # Material's end-of-life notice
    return run_until_stopped(command_line("serve", args), cwd=ROOT, env=env)


def command_line(command: str, rest: list[str]) -> list:
    """What ``dev.py <command> <rest>`` runs, with .venv's Python."""
    tangle = [PYTHON, ROOT / "tools" / "tangle.py"]
    return {
        "test": [PYTHON, "-m", "pytest", *PARALLEL, *rest],
        "check": [PYTHON, "-m", "pytest", *PARALLEL, "-m", "not site", *rest],
        "serve": [PYTHON, "-m", "mkdocs", "serve", *rest],
        "tangle": [*tangle, *rest],
        "sync": [PYTHON, ROOT / "tools" / "sync.py", *rest],
        "figures": [PYTHON, ROOT / "tools" / "redraw.py", *rest],
        "bench": [PYTHON, ROOT / "benchmarks" / "bench.py", *rest],
        "skeleton": [PYTHON, ROOT / "tools" / "learner.py", "skeleton", *rest],
        "learn": [PYTHON, ROOT / "tools" / "learner.py", "learn", *rest],
    }[command]


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        print(__doc__, file=sys.stderr)
        return 2
    command, rest = argv[0], argv[1:]
    try:
        ensure_environment()
    except SetupError as error:
        print(f"dev: {error}", file=sys.stderr)
        return 1
    env = {**os.environ, "MICROGRAD_DEV": "1"}  # tools/tangle.py: we are in .venv already
    if command == "serve":
        return serve(rest, env)
    return subprocess.call(command_line(command, rest), cwd=ROOT, env=env)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit("dev: interrupted: run the same command again to carry on")
