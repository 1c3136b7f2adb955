"""tools/dev.py: one environment for every command, setup failures in one line, serve stops."""

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import run_text
from tools import ROOT, dev

CHAPTER = """# One

```python title="micrograd.py"
def answer():
    return 42
```
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until(condition, what: str, seconds: float = 120.0):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting until {what}"
        time.sleep(0.2)


def fetch(port: int, path: str) -> str:
    """The text of a served page, without its tags, read until the server hangs up.

    The server closing first leaves its port in TIME_WAIT, as a browser's visit does.
    """
    with socket.create_connection(("127.0.0.1", port)) as connection:
        connection.sendall(f"GET {path} HTTP/1.0\r\n\r\n".encode())
        reply = b"".join(iter(lambda: connection.recv(65536), b""))
    return re.sub(r"<[^>]+>", "", reply.decode())


def needs_the_environment():
    if not dev.environment_ready():
        pytest.skip("needs the .venv that `python3 tools/dev.py test` sets up")


def test_every_command_runs_something_that_is_there_with_the_project_python():
    needs_the_environment()
    modules = []
    for command in dev.COMMANDS:
        line = dev.command_line(command, ["--x"])
        assert line[0] == dev.PYTHON and line[-1] == "--x", (command, line)
        if line[1] == "-m":
            modules.append(line[2])
        elif line[1] != "-c":
            assert Path(line[1]).is_file(), f"{command}: {line[1]} is not there"
    find = "import importlib.util as u, sys; print([m for m in sys.argv[1:] if not u.find_spec(m)])"
    result = run_text([dev.PYTHON, "-c", find, *modules])
    assert result.stdout.strip() == "[]", f"not in {dev.VENV}: {result.stdout}{result.stderr}"
    serve = run_text(dev.command_line("serve", ["--help"]))
    assert serve.returncode == 0 and "serve [OPTIONS]" in serve.stdout, serve


@pytest.mark.parametrize(
    "argv",
    [["--help"], *([command, "--help"] for command in dev.COMMANDS), ["tangle", "--check"]],
    ids=lambda argv: " ".join(argv),
)
def test_output_into_a_pipe_whose_reader_has_gone_ends_quietly(argv):
    """`python3 tools/dev.py --help | head -1`, and the same for every command: once the
    reader has stopped, the command says nothing more, and no BrokenPipeError traceback."""
    if argv != ["--help"]:
        needs_the_environment()
    read, write = os.pipe()
    os.close(read)  # the reader has gone before the first line: every write fails
    try:
        result = subprocess.run(
            [sys.executable, str(ROOT / "tools" / "dev.py"), *argv],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            timeout=300,
        )
    finally:
        os.close(write)
    said = " ".join(argv)
    assert result.stderr == "", f"dev.py {said} | head -1 says:\n{result.stderr}"
    assert result.returncode in (0, 1), result  # 1: as Python's docs advise (argparse: 0)


def test_the_usage_names_every_command():
    named = re.findall(r"^ +python3 tools/dev\.py (\S+)", dev.__doc__, re.MULTILINE)
    assert {n for name in named for n in name.split("|")} == {*dev.COMMANDS, "--help"}, named


def test_check_leaves_out_the_site_build_the_browser_and_the_heavy_reruns():
    line = dev.command_line("check", [])
    marks = line[line.index("-m", 3) + 1]  # what check selects, as it runs it
    files = ["tests/site", "tests/test_reading.py", "tests/test_dev.py", "tests/test_learner.py"]
    collect = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q"]
    result = run_text([*collect, "-m", marks, *files, "tests/test_bench.py"], cwd=ROOT)
    collected = [line for line in result.stdout.splitlines() if "::" in line]
    assert any("test_chapter_is_plain_markdown" in test for test in collected), result.stdout
    assert any("test_a_value_is_shown_whole" in test for test in collected), collected
    assert not [t for t in collected if "test_browser" in t], "check should skip the browser"
    left_out = ["test_site_builds_strictly", "test_engine_page_shows", "test_serve_stops"]
    left_out += ["test_serve_retangles", "test_bench", "test_the_books_own_engine_copied"]
    left_out += ["test_a_broken_venv_is_remade", "test_an_untouched_skeleton_scores_0"]
    left_out += ["test_filling_in_add_and_mul"]
    for name in left_out:
        assert not [t for t in collected if name in t], (name, collected)


@pytest.fixture
def fake_venv(tmp_path, monkeypatch):
    """dev.py's paths pointed at tmp_path/.venv; its Python is this one."""
    venv = tmp_path / ".venv"
    monkeypatch.setattr(dev, "VENV", venv)
    monkeypatch.setattr(dev, "STAMP", venv / "installed.sha256")
    monkeypatch.setattr(dev, "PYTHON", Path(sys.executable))
    monkeypatch.delenv("MICROGRAD_EXTRAS", raising=False)
    return venv


def test_switching_commands_never_reinstalls(fake_venv, monkeypatch):
    fake_venv.mkdir()
    dev.STAMP.write_text(dev._stamp())
    ran = []
    monkeypatch.setattr(dev.subprocess, "call", lambda command, **_: ran.append(command) or 0)
    monkeypatch.setattr(dev, "serve", lambda args, env: ran.append(["serve"]) or 0)
    monkeypatch.setattr(dev.venv, "create", lambda *a, **k: pytest.fail("made a new .venv"))
    for command in ("test", "serve", "check", "test", "tangle", "sync", "serve"):
        assert dev.main([command]) == 0
    assert len(ran) == 7 and not [c for c in ran if "pip" in map(str, c)]
    monkeypatch.setenv("MICROGRAD_EXTRAS", "torch")  # a new extra does mean an install
    assert not dev.environment_ready()


def test_a_python_without_venv_support_gets_one_line_with_a_remedy(fake_venv, monkeypatch, capsys):
    def no_ensurepip(path, **_):
        (Path(path) / "bin").mkdir(parents=True)  # half-made, as a failing venv leaves it
        raise subprocess.CalledProcessError(1, ["python", "-m", "ensurepip"])

    monkeypatch.setattr(dev, "PYTHON", fake_venv / "bin" / "python")
    monkeypatch.setattr(dev.venv, "create", no_ensurepip)
    assert dev.main(["test"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dev: could not create"), err
    assert "sudo apt install python3-venv" in err and "run the same command again" in err
    assert not fake_venv.exists(), "the half-made .venv should be gone"


@pytest.mark.heavy  # it makes a virtual environment, pip and all
def test_a_broken_venv_is_remade_and_a_failed_install_ends_in_one_line(tmp_path):
    (tmp_path / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "dev.py", tmp_path / "tools" / "dev.py")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    broken = tmp_path / ".venv" / ("Scripts" if os.name == "nt" else "bin")
    broken.mkdir(parents=True)
    (broken / ("python.exe" if os.name == "nt" else "python")).symlink_to(tmp_path / "gone")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "MICROGRAD_"))}
    env |= {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1"}  # pip can find nothing
    result = run_text([sys.executable, str(tmp_path / "tools" / "dev.py"), "check"], env=env)
    assert result.returncode == 1
    assert "is broken (its Python does not run): making it again" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("dev: installing .[learn,site,test] into") and "failed" in last, last
    assert "run the same command again" in last
    assert not (tmp_path / ".venv" / "installed.sha256").exists()


@pytest.fixture
def no_setup(monkeypatch):
    """A command line dev.py refuses must not set up .venv first."""
    monkeypatch.setattr(dev, "ensure_environment", lambda: pytest.fail("set up .venv first"))


def test_an_unsupported_python_says_so_in_one_line_before_anything_else(
    no_setup, monkeypatch, capsys
):
    # On Python 3.9 (macOS's python3, say), pip would refuse the project only after .venv
    # was made, and the last line would then blame the network.
    monkeypatch.setattr(dev.sys, "version_info", (3, 9, 18, "final", 0))
    assert dev.main(["check", "-x"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dev: this is Python 3.9.18 ("), err
    assert "needs Python 3.10 or newer" in err and "tools/dev.py check -x" in err, err


def test_dev_py_loads_on_old_pythons_so_that_it_can_tell_them_so():
    # Python 3.6 to 3.9 must reach main() to be told they are too old: no future import
    # that 3.6 lacks, no grammar newer than 3.6, no annotation they cannot evaluate.
    import ast

    source = (ROOT / "tools" / "dev.py").read_text(encoding="utf-8")
    tree = ast.parse(source, feature_version=(3, 6))
    futures = [
        n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "__future__"
    ]
    assert not futures, "Python 3.6 cannot import annotations from __future__"
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
            annotations = [node.returns, *(a.annotation for a in arguments)]
        elif isinstance(node, ast.AnnAssign):
            annotations = [node.annotation]
        else:
            continue
        for annotation in filter(None, annotations):
            evaluated = [
                n for n in ast.walk(annotation) if isinstance(n, (ast.Subscript, ast.BinOp))
            ]
            assert not evaluated, (
                f"tools/dev.py:{annotation.lineno}: quote {ast.unparse(annotation)!r}, which "
                "Pythons before 3.10 cannot evaluate"
            )


def test_the_oldest_python_dev_py_accepts_is_the_one_pyproject_requires():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    (required,) = re.findall(r'^requires-python = ">=(\d+)\.(\d+)"$', pyproject, re.M)
    assert tuple(map(int, required)) == dev.OLDEST_PYTHON
    assert dev.unsupported_python(["test"], version=(*dev.OLDEST_PYTHON, 0)) is None
    assert dev.unsupported_python(["test"], version=(3, 9, 18)) is not None
    assert dev.unsupported_python(["test"]) is None  # this Python runs the tests


def test_an_unknown_command_gets_one_line_naming_it_and_the_commands(no_setup, capsys):
    assert dev.main(["nosuch"]) == 2
    out, err = capsys.readouterr()
    assert not out and err.count("\n") == 1, err
    assert err.startswith("dev: unknown command 'nosuch': the commands are test, check, serve")
    assert all(command in err for command in dev.COMMANDS) and "--help" in err, err


def test_help_prints_the_usage_and_no_command_prints_it_as_an_error(no_setup, capsys):
    for asked in ("--help", "-h", "help"):
        assert dev.main([asked]) == 0
        assert capsys.readouterr() == (dev.__doc__ + "\n", ""), asked
    assert dev.main([]) == 2
    assert capsys.readouterr() == ("", dev.__doc__ + "\n")


@pytest.mark.parametrize(("address", "problem", "instead"), [
    *((address, "the port must be a number from 1 to 65535", instead) for address, instead in [
        ("localhost:65536", "-a localhost:8001"), ("127.0.0.1:0", "-a 127.0.0.1:8001"),
        ("127.0.0.1:http", "-a 127.0.0.1:8001")]),
    ("foo", "-a foo is not an address: give IP:PORT", "-a 127.0.0.1:8001"),
    ("8002", "-a 8002 is not an address: give IP:PORT", "-a 127.0.0.1:8002"),
    ("foo:8002", "'foo' is not an IP address (nor localhost)", "-a 127.0.0.1:8002"),
])  # fmt: skip
def test_a_bad_serve_address_gets_one_line_saying_what_to_type(
    address, problem, instead, no_setup, capsys
):
    assert dev.main(["serve", "-a", address]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"dev: -a {address}"), err
    assert problem in err and err.endswith(f"e.g. python3 tools/dev.py serve {instead}\n"), err


def test_serve_reads_its_address_as_mkdocs_does():
    options = pytest.importorskip("mkdocs.config.config_options")
    assert dev.serve_address(["--strict"]) == dev.SERVE_ADDRESS == ("127.0.0.1", 8000)
    for args, value in [
        (["-a", "localhost:8001"], "localhost:8001"), (["-a127.0.0.1:8001"], "127.0.0.1:8001"),
        (["--dev-addr", "0.0.0.0:8001", "--strict"], "0.0.0.0:8001"),
        (["--dev-addr=[::1]:8001"], "[::1]:8001"),  # then the edges of the range:
        (["-a", "127.0.0.1:65535"], "127.0.0.1:65535"), (["-a", "127.0.0.1:1"], "127.0.0.1:1"),
    ]:  # fmt: skip
        assert dev.serve_address(args) == tuple(options.IpAddress().validate(value)), args
    for refused in ("foo", "8001", ":8001", "foo:8001", "1.2.3:8001", "127.0.0.1:x"):
        with pytest.raises(dev.UsageError):
            dev.serve_address(["-a", refused])
        with pytest.raises(options.ValidationError):  # mkdocs refuses it too, in its own words
            options.IpAddress().validate(refused)


def test_serve_rebuilds_only_what_a_save_changed_unless_told_otherwise():
    served = dev.command_line("serve", ["-a", "127.0.0.1:1"])
    assert served[2:] == [dev.MKDOCS_SERVE, "--dirty", "-a", "127.0.0.1:1"]
    assert dev.command_line("serve", ["--full", "-a", "127.0.0.1:1"])[3:] == ["-a", "127.0.0.1:1"]
    for chosen in (["--dirty"], ["--strict"], ["-s"], ["--clean"], ["-c"]):
        assert dev.command_line("serve", chosen)[3:] == chosen  # --dirty fails under --strict


def test_serve_on_a_busy_port_says_so_at_once(capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert dev.serve(["-a", f"127.0.0.1:{port}"], dict(os.environ)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"127.0.0.1:{port} is already in use" in err
    assert f"python3 tools/dev.py serve -a 127.0.0.1:{port + 1}" in err


@pytest.fixture
def small_book(tmp_path):
    """A one-chapter book whose mkdocs.yml uses the site's hooks."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    (tmp_path / "docs" / "01-one.md").write_text(CHAPTER, encoding="utf-8")
    hooks = (ROOT / "tools" / "site" / "hooks.py").as_posix()
    (tmp_path / "mkdocs.yml").write_text(
        f"site_name: t\nhooks:\n  - {hooks}\nmarkdown_extensions:\n  - pymdownx.superfences\n",
        encoding="utf-8",
    )
    return tmp_path


def _like_a_terminal_job():
    # A suite started in the background of a script (`cmd &`, nohup) has Ctrl-C ignored,
    # and a child would inherit that; a job in a terminal, which these tests play, has not.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextlib.contextmanager
def serving(book: Path, port: int = 0):
    """dev.py serve on ``book`` and the port it listens on (``port``, or a free one if 0):
    mkdocs's temporary site goes into book/tmp, its log to book/log."""
    needs_the_environment()
    port = port or free_port()
    (book / "tmp").mkdir(exist_ok=True)
    command = [sys.executable, str(ROOT / "tools" / "dev.py"), "serve"]
    with open(book / "log", "a") as log:
        before = log.tell()  # a second serve appends to the log of the first
        server = subprocess.Popen(
            [*command, "-f", str(book / "mkdocs.yml"), "-a", f"127.0.0.1:{port}"],
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "TMPDIR": str(book / "tmp")},
            start_new_session=True,  # its own process group, as a terminal's foreground job
            preexec_fn=_like_a_terminal_job,
        )
    try:  # mkdocs listens, then takes its first look at docs/: a save before it is not seen
        said = lambda: (book / "log").read_bytes()[before:]  # noqa: E731
        wait_until(lambda: b"Watching paths for changes" in said(), "serve listens and watches")
        yield server, port
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)


def assert_stopped_cleanly(book: Path, port: int):
    """mkdocs serve ended, as on Ctrl-C: its port free and its temporary site removed."""
    assert dev.port_is_free("127.0.0.1", port), "mkdocs serve outlived dev.py serve"
    log = (book / "log").read_text()
    assert not list((book / "tmp").iterdir()), f"mkdocs serve did not clean up:\n{log}"
    assert "Traceback" not in log and "Aborted!" not in log, log


posix_signals = pytest.mark.skipif(os.name == "nt", reason="POSIX signals")


@pytest.mark.site
@posix_signals
def test_serve_retangles_a_saved_chapter_and_sigterm_frees_the_port(small_book):
    with serving(small_book) as (server, port):
        engine = small_book / "micrograd.py"
        wait_until(engine.exists, "serve tangles micrograd.py")
        assert "return 42" in engine.read_text()
        chapter = small_book / "docs" / "01-one.md"
        for answer in ("return 43", "return 44"):  # a rebuild of what changed, then another
            chapter.write_text(CHAPTER.replace("return 42", answer), encoding="utf-8")
            wait_until(lambda a=answer: a in engine.read_text(), "serve re-tangles on save")
            for page in ("/01-one/", "/engine/"):  # the chapter, and the woven engine page
                wait_until(lambda a=answer, p=page: a in fetch(port, p), f"{page} shows {answer}")
        server.send_signal(signal.SIGTERM)  # to dev.py alone, as an IDE's stop button does
        assert server.wait(timeout=30) == 128 + signal.SIGTERM
        assert_stopped_cleanly(small_book, port)


@pytest.mark.site
@posix_signals
def test_serve_stops_on_ctrl_c_and_frees_the_port(small_book):
    with serving(small_book) as (server, port):
        assert "200 OK" in fetch(port, "/")
        os.killpg(server.pid, signal.SIGINT)  # Ctrl-C: the whole foreground process group
        assert server.wait(timeout=30) == 130
        assert_stopped_cleanly(small_book, port)  # though mkdocs had it twice: from dev.py too
    with serving(small_book, port) as (again, _):  # and serve starts again at once on that port
        os.killpg(again.pid, signal.SIGINT)
        again.wait(timeout=30)


@pytest.mark.site
@posix_signals
def test_serve_stops_on_an_interrupt_sent_to_dev_py_alone(small_book):
    with serving(small_book) as (server, port):
        server.send_signal(signal.SIGINT)  # as a supervisor or an editor's task runner does
        assert server.wait(timeout=30) == 130
        assert_stopped_cleanly(small_book, port)  # interrupted, not terminated after a while


@contextlib.contextmanager
def run_until_stopped(script: str, folder: Path, **options):
    """dev.run_until_stopped on a child that runs ``script`` (it writes its pid into
    folder/child.pid), in a process of its own with half a second's grace: that process and
    the child's pid once it has started; both killed at the end if still running."""
    pid_file, pid = folder / "child.pid", None
    run = "import sys; from tools import dev; sys.exit(dev.run_until_stopped(sys.argv[1:], 0.5))"
    child = [sys.executable, "-c", script, str(pid_file)]
    wrapper = subprocess.Popen([sys.executable, "-c", run, *child], cwd=ROOT, **options)
    try:
        wait_until(lambda: pid_file.exists() and pid_file.read_text(), "the child starts", 30)
        pid = int(pid_file.read_text())
        yield wrapper, pid
    finally:
        if wrapper.poll() is None:
            wrapper.kill()
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def assert_gone(pid: int):
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # gone, not orphaned


STOPS_ON_AN_INTERRUPT = """
import os, sys, time
try:
    open(sys.argv[1], "w").write(str(os.getpid()))
    time.sleep(120)
except KeyboardInterrupt:
    open(sys.argv[1] + ".stop", "w").write("interrupted")
"""


@posix_signals
def test_an_interrupt_sent_to_dev_py_alone_interrupts_its_child(tmp_path):
    stopping = run_until_stopped(STOPS_ON_AN_INTERRUPT, tmp_path, preexec_fn=_like_a_terminal_job)
    with stopping as (wrapper, pid):
        wrapper.send_signal(signal.SIGINT)
        assert wrapper.wait(timeout=30) == 130
        stop = tmp_path / "child.pid.stop"
        assert stop.exists() and stop.read_text() == "interrupted", "terminated, not interrupted"
        assert_gone(pid)


IGNORES_INTERRUPTS = """
import os, signal, sys, time
signal.signal(signal.SIGINT, lambda *_: open(sys.argv[1] + ".sigint", "w").close())
open(sys.argv[1], "w").write(str(os.getpid()))
time.sleep(120)
"""


@posix_signals
def test_sigterm_ends_a_child_that_ignores_interrupts_even_when_sent_again(tmp_path):
    """As `mkdocs serve` does when started in the background by a shell (SIGINT ignored)."""
    ignoring = lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)  # noqa: E731
    options = {"stderr": subprocess.PIPE, "text": True, "preexec_fn": ignoring}
    with run_until_stopped(IGNORES_INTERRUPTS, tmp_path, **options) as (wrapper, pid):
        wrapper.send_signal(signal.SIGTERM)
        wait_until((tmp_path / "child.pid.sigint").exists, "the child is interrupted", 30)
        wrapper.send_signal(signal.SIGTERM)  # impatient: while dev.py waits for it to stop
        assert wrapper.wait(timeout=30) == 128 + signal.SIGTERM
        assert "Traceback" not in wrapper.stderr.read()
        assert_gone(pid)
