"""The few commands an author needs, on a machine with nothing but Python >= 3.10.

    python3 tools/dev.py test [pytest args]    run the whole test suite
    python3 tools/dev.py check [pytest args]   the quick part: no site, browser, or heavy reruns
    python3 tools/dev.py serve [mkdocs args]   the book on http://127.0.0.1:8000, re-tangled on save
    python3 tools/dev.py build [--archive]     the site into site/ (--archive: with the PDF, zipped)
    python3 tools/dev.py pdf                   the site, and the whole book as a PDF in it
    python3 tools/dev.py tangle [args]         chapters -> micrograd.py (--check, --force)
    python3 tools/dev.py sync                  chapters <-> micrograd.py, whichever side changed
    python3 tools/dev.py figures [--check]     redraw the figures (docs/figures) and step tables
    python3 tools/dev.py bench [args]          time the engines: see benchmarks/README.md
    python3 tools/dev.py skeleton|learn ...    learner mode: see tools/learner.py
    python3 tools/dev.py --help                this text

serve: a save rebuilds only the pages it changed (the site pass, tools/site/prepare.py, remakes
them, the whole-book page among them, and `mkdocs serve --dirty` renders those); `--full` rebuilds
the whole site on every save (about 9 s), as `serve --strict` does. Ctrl-C stops it and frees
its port, and so does SIGINT or SIGTERM sent to dev.py alone.

On Windows, write `py` for `python3`. Every command runs in .venv/ next to this repository:
one environment with everything the tests and the site need, created on first use and
refreshed whenever pyproject.toml changes, so nothing is installed system-wide and
switching commands never reinstalls. MICROGRAD_EXTRAS adds extras, e.g. MICROGRAD_EXTRAS=torch;
MICROGRAD_VENV puts the environment elsewhere (CI tests a second Python that way).
"""

import hashlib
import ipaddress
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
PYTHON = VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
STAMP = VENV / "installed.sha256"
EXTRAS = ["learn", "site", "test"]  # one environment serves every command
# Commands that need less, and start sooner on a fresh clone: learner mode reads chapters and
# runs their fences (markdown-it-py, markdown, pytest), no site, figures or browser. A later
# command that needs everything installs the rest into the same environment.
LIGHT = {"skeleton": ["learn"], "learn": ["learn"]}
SERVE_ADDRESS = ("127.0.0.1", 8000)  # mkdocs serve's default
# The suite on up to four processes (pytest-xdist), a file to a process: a chapter's
# fences share one namespace, and a test module its session fixtures.
PARALLEL = ["-n", "auto", "--maxprocesses", "4", "--dist", "loadfile"]


# Older Pythons are told so in one line (main, first thing), so this file must still load
# on them: down to 3.6, hence no `from __future__ import annotations` and no annotations
# that older Pythons cannot evaluate, unless quoted.
OLDEST_PYTHON = (3, 10)  # pyproject.toml's requires-python
NEWER_PYTHON = ["py", "-3.12"] if os.name == "nt" else ["python3.12"]  # how to name one


def unsupported_python(argv: "list[str]", version: "tuple | None" = None) -> "str | None":
    """One line saying this Python is too old and what to do, or None if it will do.

    Checked before anything else: pip would refuse only later, and in other words.
    """
    version = sys.version_info if version is None else version
    if tuple(version[:2]) >= OLDEST_PYTHON:
        return None
    running = ".".join(map(str, version[:3]))
    oldest = ".".join(map(str, OLDEST_PYTHON))
    return (
        f"this is Python {running} ({sys.executable}); the book needs Python {oldest} or "
        "newer: install one (https://www.python.org/downloads/), then run this command with "
        f"it, e.g. {' '.join([*NEWER_PYTHON, 'tools/dev.py', *argv])}"
    )


class SetupError(Exception):
    """.venv could not be made ready; the message says what happened and what to do."""


def extras(command: "str | None" = None) -> "list[str]":
    """The project's extras ``command`` needs: LIGHT's, or EXTRAS plus any named in
    MICROGRAD_EXTRAS."""
    if command in LIGHT:
        return sorted(LIGHT[command])
    wanted = os.environ.get("MICROGRAD_EXTRAS", "").replace(" ", "").split(",")
    return sorted(set(EXTRAS + wanted) - {""})


def _digest() -> str:
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()


def _stamp(installed: "list[str] | None" = None) -> str:
    """The stamp's text once ``installed`` (default: every command's extras) is installed
    from pyproject.toml as it is now: its digest, then the extras."""
    return f"{_digest()}\n{','.join(sorted(extras() if installed is None else installed))}"


def installed_extras() -> "set[str]":
    """The extras .venv holds, as installed from pyproject.toml as it is now."""
    digest, _, names = (STAMP.read_text() if STAMP.exists() else "").partition("\n")
    return set(names.split(",")) - {""} if digest == _digest() else set()


def _runs(python: Path) -> bool:
    try:
        return subprocess.run([python, "-c", "pass"], capture_output=True).returncode == 0
    except OSError:
        return False


def environment_ready(command: "str | None" = None) -> bool:
    """Is .venv there, working, and installed with what ``command`` needs from
    pyproject.toml as it is now?"""
    return set(extras(command)) <= installed_extras() and _runs(PYTHON)


def ensure_environment(command: "str | None" = None) -> None:
    """Create .venv and install the extras ``command`` needs into it, unless that was
    already done."""
    if environment_ready(command):
        return
    kept = installed_extras()
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
    wanted = extras(command)
    spec = f".[{','.join(wanted)}]"
    took = "under a minute" if command in LIGHT else "a few minutes the first time"
    print(f"dev: installing {spec} into {VENV} ({took})", flush=True)
    pip = [PYTHON, "-m", "pip", "install", "--disable-pip-version-check", "-e", spec]
    if subprocess.run(pip, cwd=ROOT).returncode != 0:
        raise SetupError(
            f"installing {spec} into {VENV} failed: pip says why above. Check the network "
            "connection to PyPI (or the proxy), then run the same command again"
        )
    STAMP.write_text(_stamp(sorted(kept | set(wanted))))


class UsageError(Exception):
    """The command line is wrong; the message says what is wrong and what to type instead."""


def serve_address(args: "list[str]") -> "tuple[str, int]":
    """The host and port `mkdocs serve` will listen on, from -a/--dev-addr if given.

    Checked as mkdocs checks it (localhost or an IP address, then a port), and the port's
    range as well, so that a typo gets one line saying what to type rather than a traceback.
    """
    value = None
    for i, arg in enumerate(args):
        if arg in ("-a", "--dev-addr"):
            if i + 1 == len(args):
                raise UsageError(f"{arg} needs an address after it: {_serve_example()}")
            value = args[i + 1]
        elif arg.startswith("--dev-addr="):
            value = arg.split("=", 1)[1]
        elif arg.startswith("-a") and not arg.startswith("--"):  # -a127.0.0.1:8001
            value = arg[2:]
    if value is None:
        return SERVE_ADDRESS
    host, _, port = value.rpartition(":")
    valid = port.isascii() and port.isdigit() and 1 <= int(port) <= 65535
    example = _serve_example(port=port if valid else SERVE_ADDRESS[1] + 1)
    if not host:  # "8001", "foo" or ":8001"
        raise UsageError(f"-a {value} is not an address: give IP:PORT, e.g. {example}")
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host  # [::1]
    if bare != "localhost":
        try:
            ipaddress.ip_address(bare)
        except ValueError:
            raise UsageError(
                f"-a {value}: {host!r} is not an IP address (nor localhost), e.g. {example}"
            ) from None
    if not valid:
        raise UsageError(
            f"-a {value}: the port must be a number from 1 to 65535, e.g. {_serve_example(host)}"
        )
    return bare, int(port)


def _serve_example(host: str = SERVE_ADDRESS[0], port: object = SERVE_ADDRESS[1] + 1) -> str:
    return f"python3 tools/dev.py serve -a {host}:{port}"


def port_is_free(host: str, port: int) -> bool:
    """Could a server listen on host:port now (as mkdocs does, despite TIME_WAIT leftovers)?"""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # as mkdocs picks it
    with socket.socket(family) as probe:
        if os.name != "nt":  # on Windows, SO_REUSEADDR would let it share a busy port
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


# Rebuild only what a save changed: mkdocs renders only the pages of the site pass's tree
# whose Markdown it remade (the chapter, the whole-book page, any chapter whose used-in lines
# changed). What it leaves behind: search finds the engine page once more after each save,
# and other pages keep their navigation (a title changed) until rebuilt.
# mkdocs warns of that, an error under --strict: --strict and dev.py's --full rebuild all.
QUICK = "--dirty"
FULL = "--full"  # dev.py's, not mkdocs's: taken off the command line

# `mkdocs serve`, stopped by its first interrupt and deaf to any after it: Ctrl-C reaches both
# mkdocs and dev.py, which passes it on (_stop), and plain mkdocs, interrupted again while
# shutting down, says "Aborted!" and leaves its temporary site behind. An inherited SIG_IGN
# (a serve started in the background) is left as it is.
MKDOCS_SERVE = """\
import signal, sys
from mkdocs.__main__ import cli

def stop(signum, frame):
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt

if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, stop)
sys.exit(cli(["serve", *sys.argv[1:]], prog_name="mkdocs"))
"""


def serve_options(args: "list[str]") -> "list[str]":
    """The `mkdocs serve` options for ``dev.py serve <args>``: QUICK unless told otherwise."""
    if FULL in args:
        return [arg for arg in args if arg != FULL]
    if {QUICK, "-c", "--clean", "-s", "--strict"} & set(args):
        return args
    return [QUICK, *args]


class _Terminated(BaseException):
    """SIGTERM arrived: stop the child, as KeyboardInterrupt does for Ctrl-C."""


def _raise_stop(signum, frame):
    raise _Terminated


def run_until_stopped(command: list, grace: float = 5.0, **options) -> int:
    """Run ``command``; Ctrl-C, SIGINT or SIGTERM stops it too (freeing its port) before returning.

    The child gets ``grace`` seconds to stop on the interrupt, then is terminated.
    """
    child = subprocess.Popen(command, **options)
    previous = signal.signal(signal.SIGTERM, _raise_stop)
    try:
        return child.wait()
    except (KeyboardInterrupt, _Terminated) as reason:
        interrupted = isinstance(reason, KeyboardInterrupt)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # stopping already, within 3 x grace
        previous_int = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            _stop(child, grace, interrupted)
        finally:
            signal.signal(signal.SIGINT, previous_int)
        return 130 if interrupted else 128 + signal.SIGTERM
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stop(child: subprocess.Popen, grace: float, interrupted: bool) -> None:
    # Interrupt the child as Ctrl-C does, so mkdocs shuts down cleanly: a SIGINT sent to
    # dev.py alone has not reached it, and looks here like Ctrl-C, which has (MKDOCS_SERVE
    # makes a second one harmless). On Windows, Ctrl-C reaches every process of the console,
    # and SIGTERM is TerminateProcess.
    if os.name != "nt":
        child.send_signal(signal.SIGINT)
    elif not interrupted:
        child.send_signal(signal.SIGTERM)
    try:
        child.wait(timeout=grace)
    except subprocess.TimeoutExpired:  # it ignores interrupts: end it
        child.terminate()
        try:
            child.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def serve(args: "list[str]", env: dict) -> int:
    """`mkdocs serve`, after checking its address and that its port is free; stopped with dev.py."""
    host, port = serve_address(args)
    asked = {"-h", "--help"} & set(args)  # mkdocs's usage: no port needed
    if not asked and not port_is_free(host, port):
        print(
            f"dev: {host}:{port} is already in use (another serve?): stop that, or choose "
            f"another port: {_serve_example(host, port + 1)}",
            file=sys.stderr,
        )
        return 1
    if QUICK in serve_options(args) and not asked:
        print(
            "dev: a save rebuilds only the pages it changed (mkdocs serve --dirty, hence its "
            f"warning); serve {FULL} rebuilds the whole site each time, print page included",
            file=sys.stderr,
            flush=True,
        )
    env = {**env, "NO_MKDOCS_2_WARNING": "1"}  # Material's end-of-life notice
    return run_until_stopped(piped(command_line("serve", args)), cwd=ROOT, env=env)


# A command's output piped into a reader that stops early (`dev.py test | head`) ends the
# command quietly, as Python's docs advise, and not in a BrokenPipeError traceback: each
# command's line runs inside this (`python -c PIPED` then `-m module`, `-c code` or `--path
# script`, and the arguments), and dev.py's own output is treated the same way (quiet).
PIPED = """\
import os, runpy, sys
how, what = sys.argv[1:3]
sys.argv = sys.argv[2:]
try:
    try:
        if how == "-m":
            runpy.run_module(what, run_name="__main__", alter_sys=True)
        elif how == "-c":
            sys.argv[0] = "-c"
            exec(compile(what, "<string>", "exec"), {"__name__": "__main__"})
        else:  # --path script
            sys.path[0] = os.path.dirname(os.path.abspath(what))  # as `python path` has it
            runpy.run_path(what, run_name="__main__")
    finally:
        sys.stdout.flush()
except BrokenPipeError:
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(1)
"""


def piped(line: list) -> list:
    """``line`` (the project's Python and what it runs), run so that a closed pipe ends it
    quietly (PIPED)."""
    python, *what = line
    if what[0] not in ("-m", "-c"):
        what = ["--path", *what]
    return [python, "-c", PIPED, *what]


def command_line(command: str, rest: "list[str]") -> list:
    """What ``dev.py <command> <rest>`` runs, with .venv's Python."""
    return command_lines(rest)[command]


def command_lines(rest: "list[str]") -> "dict[str, list]":
    return {
        "test": [PYTHON, "-m", "pytest", *PARALLEL, *rest],
        "check": [PYTHON, "-m", "pytest", "-m", "not site and not heavy", *rest],  # one process
        "serve": [PYTHON, "-c", MKDOCS_SERVE, *serve_options(rest)],
        "build": [PYTHON, "-m", "tools.publish", "build", *rest],
        "pdf": [PYTHON, "-m", "tools.publish", "pdf", *rest],
        "tangle": [PYTHON, "-m", "tools.tangle", *rest],
        "sync": [PYTHON, "-m", "tools.sync", *rest],
        "figures": [PYTHON, "-m", "tools.figures", *rest],
        "bench": [PYTHON, ROOT / "benchmarks" / "bench.py", *rest],
        "skeleton": [PYTHON, "-m", "tools.learner", "skeleton", *rest],
        "learn": [PYTHON, "-m", "tools.learner", "learn", *rest],
    }


COMMANDS = tuple(command_lines([]))  # in the order --help lists them


def main(argv: "list[str]") -> int:
    if argv[:1] in (["-h"], ["--help"], ["help"]):
        print(__doc__)
        return 0
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    command, rest = argv[0], argv[1:]
    too_old = unsupported_python(argv)
    if too_old:
        print(f"dev: {too_old}", file=sys.stderr)
        return 1
    try:
        if command not in COMMANDS:
            raise UsageError(
                f"unknown command {command!r}: the commands are {', '.join(COMMANDS)} "
                "(python3 tools/dev.py --help says what each does)"
            )
        if command == "serve":
            serve_address(rest)  # before the environment is set up, which may take minutes
        ensure_environment(command)
    except (UsageError, SetupError) as error:
        print(f"dev: {error}", file=sys.stderr)
        return 2 if isinstance(error, UsageError) else 1
    env = {**os.environ, "MICROGRAD_DEV": "1"}  # tools/tangle.py: we are in .venv already
    if command == "serve":
        return serve(rest, env)
    return subprocess.call(piped(command_line(command, rest)), cwd=ROOT, env=env)


def run(argv: "list[str]") -> int:
    """``main``, its output flushed, and ended quietly if its reader has gone."""
    try:
        try:
            return main(argv)
        finally:
            sys.stdout.flush()
    except BrokenPipeError:  # its reader has gone: say nothing more, and fail no more at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1  # as Python's docs advise


if __name__ == "__main__":
    try:
        sys.exit(run(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit("dev: interrupted: run the same command again to carry on")
