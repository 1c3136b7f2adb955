"""The messages between the page and its Python, written down once (tools/page/protocol.py).

The Python side checks each message as it sends it, so a chapter run, a learner's Check and
lab steps, recorded here in CPython as the worker makes them, send only messages of the
protocol, and between them every kind of run event. A bad message is an error that names
its family, kind and field: in Python, and in the page's protocol.js (the file the site
build writes, run in Node) with the same words; protocol.js, given the recorded messages as
the worker posts them, accepts every one.
"""

import json
import os
import shutil

import pytest

from tests.helpers import recorded, run_text
from tests.helpers.site import missing
from tools import DOCS, ROOT
from tools.learn import in_page
from tools.learn.skeleton import skeleton
from tools.page import bridge, lab
from tools.page.protocol import FAMILIES, ProtocolError, check
from tools.site.lab import PLACEHOLDER
from tools.site.page_data import page_fences
from tools.site.runtime import PROTOCOL_JS, engine_json, protocol_script

GRAPH_CHAPTER = DOCS / "08-drawing-the-graph.md"  # prints a graph, and has a graph figure
LEARNER_CHAPTER = "02-the-value-atom.md"
LAB_PAGE = next(p for p in sorted(DOCS.glob("*.md")) if PLACEHOLDER in p.read_text())


@pytest.fixture(scope="module")
def chapter_run() -> list[dict]:
    """A reader's session with GRAPH_CHAPTER, as the worker sends it: Run all, a fence run
    again (the ones below go stale), then Run all with a fence edited to fail."""
    page = json.dumps(page_fences(GRAPH_CHAPTER))
    notebook = bridge.open_chapter(page, engine_json(DOCS))
    sent: list[str] = []
    last = max(i for i, cell in enumerate(notebook.cells) if not cell.blocked)
    bridge.run(notebook, last, "{}", True, sent.append)
    bridge.run(notebook, 0, "{}", False, sent.append)
    first = min(i for i, cell in enumerate(notebook.cells) if not cell.engine and i > 0)
    failing = json.dumps({first: "print('so far')\nraise ValueError('planted')"})
    bridge.run(notebook, last, failing, True, sent.append)  # the fences below: not run
    return [{"kind": "open", "page": page}] + [json.loads(text) for text in sent]


def test_a_chapter_run_tells_every_kind_of_run_event_and_only_those(chapter_run):
    told = [event["kind"] for event in chapter_run[1:]]
    assert set(told) == set(FAMILIES["run event"].kinds), set(told) ^ set(
        FAMILIES["run event"].kinds
    )
    done = [e for e in chapter_run[1:] if e["kind"] == "done" and e["state"] == "failed"]
    assert done and "ValueError: planted" in done[-1]["report"]


@pytest.fixture(scope="module")
def learner_check(tmp_path_factory) -> list[dict]:
    """A learner's Check of one chapter with the skeleton engine, as the page and the
    worker send it."""
    engine = skeleton()
    runs, table = recorded.learner_check(
        tmp_path_factory.mktemp("learner"), LEARNER_CHAPTER, engine
    )
    asked = {"kind": "learn-table", "runs": runs, "engine": engine, "diagnose": True}
    return [
        {"kind": "learn", "chapter": LEARNER_CHAPTER, "engine": engine},
        *({"kind": "learn-event", "event": event} for event in runs[0]["events"]),
        {**asked, "record": None},
        {"kind": "learn-table", "table": table},
    ]


def test_a_learner_check_sends_events_and_a_table_of_the_protocol(learner_check):
    kinds = {next(k for k in e["event"] if k in FAMILIES["learner event"].kinds) for e in
             learner_check if e["kind"] == "learn-event"}  # fmt: skip
    assert {"start", "failed"} <= kinds, kinds
    assert learner_check[-1]["table"]["hints"], "the skeleton fails: hints for what to fix"


@pytest.fixture(scope="module")
def lab_steps() -> list[dict]:
    """The lab opened, stepped, trained a slice, drawn, and refused; a point added and
    cleared, a weight read and set, a step taken apart: as the worker sends it."""
    engine, sent = engine_json(DOCS), []
    requests = [
        {"action": "open", "settings": lab.BOOK, "page": json.dumps(page_fences(LAB_PAGE))},
        {"action": "step", "settings": lab.BOOK, "gradients": True},
        {"action": "train", "settings": lab.BOOK, "gradients": False},
        {"action": "draw", "settings": lab.BOOK},
        {"action": "step", "settings": {**lab.BOOK, "rate": "fast"}},
        {"action": "add", "settings": lab.BOOK, "point": [0.5, 0.25], "label": 1},
        {"action": "clear", "settings": lab.BOOK},
        {"action": "weight", "settings": lab.BOOK, "which": "1, 2, b"},
        {"action": "set", "settings": lab.BOOK, "which": "1, 2, b", "value": "0.5"},
        {"action": "apart", "settings": lab.BOOK, "point": ""},
        {"action": "apart-stage", "settings": lab.BOOK, "stage": 5},
    ]
    for request in requests:
        text = json.dumps(request)
        sent += [
            {"kind": "lab", "request": text},
            {"kind": "lab", "answer": lab.answer(text, engine)},
        ]
    return sent


def test_lab_steps_answer_with_frames_and_a_refusal_of_the_protocol(lab_steps):
    answers = [json.loads(m["answer"]) for m in lab_steps if "answer" in m]
    kinds = ["frame"] * 4 + ["refused"] + ["frame"] * 4 + ["apart"] * 2
    assert [next(iter(a)) for a in answers] == kinds
    assert "boundary" in answers[0]["frame"] and "learning rate" in answers[4]["refused"]


# (family, message, what the error says: None if it is a message of the family)
CASES = [
    ("from the worker", {"kind": "ready", "restored": False}, None),
    ("from the worker", {"kind": "stopped"}, "from the worker: unknown kind kind=\"stopped\""),
    ("from the worker", {"step": 1}, "from the worker: unknown kind kind=null"),
    ("from the worker", ["ready"], "from the worker: a message is a JSON object, not [\"ready\"]"),
    ("run event", {"kind": "done", "index": 0, "state": "ran", "status": "ran", "report": None},
     "run event 'done': missing field 'same'"),
    ("run event", {"kind": "print", "index": 0, "text": "1\n", "line": 3},
     "run event 'print': unknown field 'line'"),
    ("from the worker", {"kind": "event", "event": {"kind": "print", "index": 0}},
     "from the worker 'event', in 'event': run event 'print': missing field 'text'"),
    ("learner event", {"passed": 2}, None),
    ("learner event", {"start": 1, "passed": 1},
     "learner event: a message has one of the fields start, passed, wording, failed, waits, "
     "blocked, aside to name its kind; this one has start, passed (its fields: start, passed)"),
    ("learner event", {"failed": 3, "line": 40, "kind": "TypeError"},
     "learner event 'failed': missing field 'message'"),
    ("from the worker", {"kind": "lab", "answer": '{"frame": {"step": 0}}'},
     "from the worker 'lab', in 'answer': lab answer 'frame', in 'frame': lab frame: "
     "missing field 'steps'"),
    ("from the worker", {"kind": "lab", "answer": "{not json"},
     "from the worker 'lab': field 'answer' is not JSON text"),
    ("to the worker", {"kind": "learn-table", "runs": [{"chapter": "x.md", "events": [{}],
     "stopped": None}], "engine": "", "diagnose": False, "record": None},
     "to the worker 'learn-table', in 'runs': learner run, in 'events': learner event: a "
     "message has one of the fields start, passed, wording, failed, waits, blocked, aside to "
     "name its kind; this one has none (its fields: )"),
    ("lab request", {"action": "fly", "settings": {}},
     "lab request: unknown kind action=\"fly\" (known: open, reset, step, train, draw, clear, "
     "add, weight, set, apart, apart-stage)"),
    ("the page", {}, "protocol: no family \"the page\""),
]  # fmt: skip


def said(family: str, message: object) -> str | None:
    try:
        check(family, message)
    except ProtocolError as error:
        return str(error)
    return None


@pytest.mark.parametrize(("family", "message", "says"), CASES, ids=lambda c: str(c)[:30])
def test_a_bad_message_is_an_error_that_names_its_kind_and_field(family, message, says):
    found = said(family, message)
    assert found is None if says is None else found.startswith(says), found


class Telling:
    """A notebook whose run tells one event, as tools/page/run.py would."""

    def __init__(self, event: dict):
        self.event = event

    def run(self, target, codes, all, tell):
        tell(self.event)


def test_python_raises_rather_than_send_or_act_on_a_bad_message(tmp_path):
    here = os.getcwd()
    sent = []
    with pytest.raises(ProtocolError, match="run event 'done': missing field 'state'"):
        bridge.run(Telling({"kind": "done", "index": 0}), 0, "{}", False, sent.append)
    assert sent == [], "a bad event was sent"
    with pytest.raises(ProtocolError, match="chapter page: missing field 'fences'"):
        bridge.open_chapter(json.dumps({"chapter": "x.md"}), "[]")
    with pytest.raises(ProtocolError, match='lab request: unknown kind action="fly"'):
        lab.answer(json.dumps({"action": "fly", "settings": lab.BOOK}), "[]")
    runs = json.dumps([{"chapter": "x.md", "events": []}])
    try:
        with pytest.raises(ProtocolError, match="learner run: missing field 'stopped'"):
            in_page.table_in_page(runs, "", False, folder=str(tmp_path))
    finally:
        moved = os.getcwd()
        os.chdir(here)
    assert moved == here and not (tmp_path / "micrograd.py").exists(), "it acted, then checked"


def node() -> str:
    found = shutil.which("node")
    if found is None:
        reason = "protocol.js is checked in Node, which is not installed (apt-get install nodejs)"
        missing(reason)
    return found


# Runs the site's protocol.js as the page does (a classic script that sets self.bookProtocol),
# then checks each [family, message] of the JSON file given, printing what each is told.
IN_NODE = """
globalThis.self = globalThis;
require(process.argv[1]);
const told = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8")).map(([f, m]) => {
  try { bookProtocol.check(f, m); return null; } catch (error) { return error.message; }
});
console.log(JSON.stringify(told));
"""


def test_the_pages_protocol_js_says_what_python_says_and_takes_every_recorded_message(
    tmp_path, chapter_run, learner_check, lab_steps
):
    template = (ROOT / "docs" / PROTOCOL_JS).read_text(encoding="utf-8")
    script = tmp_path / "protocol.js"
    script.write_text(protocol_script(template), encoding="utf-8")  # as the site build does
    posted = [("from the worker", {"kind": "event", "event": e}) for e in chapter_run[1:]]
    recorded = [
        ("to the worker", chapter_run[0]),
        ("to the worker", {"kind": "run", "target": 3, "codes": "{}", "all": True}),
        *posted,
        *(("to the worker" if "engine" in m else "from the worker", m) for m in learner_check),
        *(("to the worker" if "request" in m else "from the worker", m) for m in lab_steps),
    ]  # fmt: skip
    cases = [(family, message) for family, message, _ in CASES] + recorded
    (tmp_path / "cases.json").write_text(json.dumps(cases), encoding="utf-8")
    done = run_text([node(), "-e", IN_NODE, str(script), str(tmp_path / "cases.json")], timeout=60)
    assert done.returncode == 0, done.stderr
    told = json.loads(done.stdout)
    python = [said(family, message) for family, message in cases]
    assert told == python, [
        (case, js, py) for case, js, py in zip(cases, told, python) if js != py
    ][:3]
    assert not any(python[len(CASES) :]), "a recorded message is not of the protocol"


def test_the_site_loads_protocol_js_where_the_page_and_the_worker_read_it():
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    scripts = config["extra_javascript"]
    notebook = [s for s in scripts if s.startswith("assets/notebook/") and s != PROTOCOL_JS]
    assert notebook and scripts.index(PROTOCOL_JS) < scripts.index(notebook[0]), scripts
    worker = (ROOT / "docs" / "assets" / "notebook" / "worker.js").read_text(encoding="utf-8")
    assert 'import "./protocol.js";' in worker
    with pytest.raises(ValueError, match="must hold"):
        protocol_script("// no placeholder")
