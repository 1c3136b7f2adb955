"""A breakpoint on a chapter's line stops there, with the fence's names in view.

VS Code's Python extension debugs through debugpy, over the Debug Adapter Protocol (DAP):
this test is such a client. It runs .vscode/launch.json's "debug this chapter" on one
fence of a chapter under ``python -m debugpy --listen``, sets a breakpoint on a line of
that fence (the source is the chapter's .md file), and asks where the run stopped and what
the frame holds. It stops there because the fences are compiled with the chapter's path
and line numbers (tools/page/kernel.py).
"""

import ast
import importlib.util
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.vscode import jsonc, launch
from tests.test_dev import free_port
from tools import ROOT
from tools.chapter import Chapter

CHAPTER = ROOT / "docs" / "03-backward.md"
DEADLINE = 120  # seconds for the whole session: generous, and a clear failure past it


def stop_in(chapter: Chapter) -> tuple[str, int, str]:
    """A fence to stop in: its test name, a line of it whose statement follows an
    assignment, and the name that assignment binds (no fence above binds it)."""
    bound_above: set[str] = set()
    for cell in chapter.cells:
        if not cell.fence.is_engine and cell.fence.names.parses:
            tree = ast.parse(cell.fence.code)
            for before, after in zip(tree.body, tree.body[1:]):
                names = [t.id for t in getattr(before, "targets", []) if isinstance(t, ast.Name)]
                fresh = [n for n in names if n not in bound_above]
                if isinstance(before, ast.Assign) and fresh:
                    return cell.name, cell.line + after.lineno - 1, fresh[0]
        bound_above |= cell.fence.names.bound
    raise AssertionError(f"{chapter.path}: no fence assigns a new name before another statement")


class Client:
    """A Debug Adapter Protocol client: requests out, responses and events in, each a JSON
    body after a ``Content-Length`` header."""

    def __init__(self, connection: socket.socket):
        self.connection = connection
        self.stream = connection.makefile("rb")
        self.seq = 0
        self.events: list[dict] = []  # events that arrived while waiting for something else

    def request(self, command: str, **arguments) -> int:
        self.seq += 1
        body = {"seq": self.seq, "type": "request", "command": command, "arguments": arguments}
        data = json.dumps(body).encode()
        self.connection.sendall(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        return self.seq

    def receive(self) -> dict:
        length = None
        while (line := self.stream.readline()) not in (b"\r\n", b""):
            key, _, value = line.decode().partition(":")
            if key.strip().lower() == "content-length":
                length = int(value)
        if length is None:
            raise ConnectionError("debugpy closed the connection")
        return json.loads(self.stream.read(length))

    def ask(self, command: str, **arguments) -> dict:
        """Send a request and return its response's body; events on the way are kept."""
        seq = self.request(command, **arguments)
        while (message := self.receive()).get("request_seq") != seq:
            self.events.append(message)
        assert message["success"], f"debugpy refused {command}: {message.get('message')}"
        return message.get("body", {})

    def wait_for(self, event: str, ends=("terminated", "exited")) -> dict:
        """The next event named ``event`` (kept or new); raise if the run ends first."""
        while True:
            message = self.events.pop(0) if self.events else self.receive()
            if message.get("event") == event:
                return message.get("body", {})
            if message.get("event") in ends:
                raise EOFError(f"the run ended ({message['event']}) before a {event!r} event")


def connect(port: int, process: subprocess.Popen, until: float) -> socket.socket:
    while True:
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=5)
        except OSError:
            if process.poll() is not None or time.monotonic() > until:
                raise
            time.sleep(0.1)


def test_the_debug_configuration_is_the_one_the_workspace_ships():
    assert jsonc("settings.json")["debug.allowBreakpointsEverywhere"] is True
    config = launch("debug this chapter")
    assert config["type"] == "debugpy" and config["module"] == "pytest", config
    assert config["args"][0] == "${file}", config


ENGINE_CHAPTER = ROOT / "docs" / "02-the-value-atom.md"


def in_backward() -> int:
    """The chapter line of the first statement of the engine's ``backward``."""
    (fence,) = [f for f in Chapter.read(ENGINE_CHAPTER).fences if "def backward(self):" in f.code]
    lines = fence.code.splitlines()
    at = lines.index("    def backward(self):") + 1
    while lines[at].strip().startswith('"""'):  # its docstring: no code runs there
        at += 1
    return fence.line + at


@pytest.fixture(scope="module")
def stops(tmp_path_factory) -> dict[tuple[Path, int], tuple[dict, list[str]]]:
    """One debug session for both tests below (a session costs a pytest run): breakpoints
    on a line of a fence of CHAPTER and in the engine's ``backward`` (chapter 2), the run
    being the later of that fence and the first that calls ``.backward()`` (the fences above
    a fence run first); where it stopped -> (the top frame, the names of its locals)."""
    chapter = Chapter.read(CHAPTER)
    name, line, _ = stop_in(chapter)
    caller = next(c for c in chapter.cells if ".backward()" in c.fence.code)
    order = [c.name for c in chapter.cells]
    last = max(name, caller.name, key=order.index)
    places = [(CHAPTER, line), (ENGINE_CHAPTER, in_backward())]
    return stopped_at(places, last, tmp_path_factory.mktemp("debug"))


@pytest.mark.heavy  # runs chapters under the debugger: `test`, not `check`
def test_a_breakpoint_on_a_chapter_line_stops_there_with_the_fence_names(stops):
    _, line, bound = stop_in(Chapter.read(CHAPTER))
    _, shown = stops[(CHAPTER, line)]
    assert bound in shown, (
        f"stopped at {CHAPTER.name}:{line}, but {bound!r} is not a local: {shown}"
    )


@pytest.mark.heavy  # likewise
def test_a_breakpoint_in_an_engine_method_stops_in_the_chapter_that_wrote_it(stops):
    top, shown = stops[(ENGINE_CHAPTER, in_backward())]
    assert top["name"] == "backward" and "self" in shown, (top, shown)


def stopped_at(
    places: list[tuple[Path, int]], name: str, tmp_path: Path
) -> dict[tuple[Path, int], tuple[dict, list[str]]]:
    """Run .vscode/launch.json's "debug this chapter" on the fence ``name`` of CHAPTER under
    debugpy, with a breakpoint at each (source, line) of ``places``, going on after each
    stop until every place has been stopped at once: place -> (the top frame there, the
    names of its locals). A stop anywhere else, or a place never reached, fails."""
    assert importlib.util.find_spec("debugpy"), "no debugpy: pyproject.toml's test extra has it"
    config = launch("debug this chapter")
    chapter = CHAPTER.relative_to(ROOT).as_posix()
    args = [f"{chapter}::{name}" if a == "${file}" else a for a in config["args"]]
    port = free_port()
    command = [sys.executable, "-m", "debugpy", "--listen", f"127.0.0.1:{port}"]
    command += ["--wait-for-client", "-m", config["module"], *args]
    log = tmp_path / "run.txt"  # a file, not a pipe: debugpy's adapter process inherits it
    with log.open("w") as out:
        process = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    until = time.monotonic() + DEADLINE
    where = ", ".join(f"{s.relative_to(ROOT).as_posix()}:{n}" for s, n in places)
    where += f" (running {chapter}::{name})"
    connection, found = None, {}
    try:  # whatever fails here (an assertion too), the run is ended, not left behind
        try:
            connection = connect(port, process, until)
            connection.settimeout(DEADLINE)
            client = Client(connection)
            client.ask("initialize", adapterID="debugpy", pathFormat="path", linesStartAt1=True)
            client.request("attach", justMyCode=config["justMyCode"])
            client.wait_for("initialized")
            for source in dict.fromkeys(s for s, _ in places):
                lines = [{"line": n} for s, n in places if s == source]
                placed = client.ask(
                    "setBreakpoints", source={"path": str(source)}, breakpoints=lines
                )
                assert all(b["verified"] for b in placed["breakpoints"]), (
                    f"debugpy refused a breakpoint at {where}: {placed}"
                )
            client.ask("configurationDone")
            while len(found) < len(places):
                stopped = client.wait_for("stopped")
                assert stopped["reason"] == "breakpoint", stopped
                top = client.ask("stackTrace", threadId=stopped["threadId"])["stackFrames"][0]
                place = (Path(top["source"].get("path", "")), top["line"])
                assert place in places, f"stopped at {place}, not at {where}"
                if place not in found:
                    scopes = client.ask("scopes", frameId=top["id"])["scopes"]
                    local = next(s for s in scopes if s["name"] == "Locals")
                    names = client.ask("variables", variablesReference=local["variablesReference"])
                    found[place] = (top, [v["name"] for v in names["variables"]])
                if len(found) < len(places):
                    client.ask("continue", threadId=stopped["threadId"])
            client.request("disconnect", terminateDebuggee=True)
        except (OSError, EOFError, ConnectionError) as error:  # socket.timeout is an OSError
            stop(process, connection)
            pytest.fail(
                f"debugpy did not stop at every breakpoint of {where} within {DEADLINE} s (stopped "
                f"at {list(found)}): {type(error).__name__}: {error}\n"
                f"The run printed:\n{log.read_text()[-3000:]}"
            )
    finally:
        stop(process, connection)
    return found


def stop(process: subprocess.Popen, connection: socket.socket | None) -> None:
    """End the debug session: the connection closed, the run ended (killed if it hangs)."""
    if connection is not None:
        connection.close()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
