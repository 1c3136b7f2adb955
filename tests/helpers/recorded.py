"""What the page's Python tells the page, recorded in CPython: a chapter's Runs as worker.js
posts them (tools/page/bridge.py's events, then what it draws), and a learner's Check
(tools/learn/in_page.py). tests/test_protocol.py checks such records against the protocol;
tests/test_page_scripts.py replays them into the page's scripts through a stand-in worker.
"""

import json
import os
from pathlib import Path

from tools.learn import in_page
from tools.page import bridge

STANDIN = "not drawn: the stand-in worker has no Graphviz"


def posted(notebook, target: int, codes: dict[int, str], all: bool) -> list[dict]:
    """What worker.js posts for this Run: the run's events, then the figures and printed
    graphs it draws (here: the book's figure back, or not drawn), then finished."""
    told: list[dict] = []
    bridge.run(notebook, target, json.dumps(codes), all, lambda text: told.append(json.loads(text)))
    messages = [
        {"kind": "event", "event": e} for e in told if e["kind"] not in ("figure", "graphs")
    ]
    for event in (e for e in told if e["kind"] in ("figure", "graphs")):
        if event["kind"] == "graphs":
            messages.append({"kind": "graphs", "index": event["index"],
                             "drawn": [{"svg": None, "problem": STANDIN}]})  # fmt: skip
        elif event["live"]:
            messages.append({"kind": "figure", "name": event["name"], "svg": None,
                             "steps": None, "problem": STANDIN})  # fmt: skip
        else:
            messages.append({"kind": "figure", "name": event["name"], "book": True})
    return [*messages, {"kind": "finished"}]


def learner_check(folder: Path, chapter: str, engine: str) -> tuple[list[dict], dict]:
    """A Check of ``chapter`` (a docs/ file name) against ``engine``'s text, as the page's
    Python makes it, in ``folder``: the runs the page keeps ([{chapter, events, stopped}])
    and the table it is shown (diagnosed, as for the last chapter of a Check)."""
    events, here = [], os.getcwd()
    os.chdir(folder)  # in_page works in its folder (the page's /tmp/learner)
    try:
        in_page.check_in_page(chapter, engine, events.append, folder=str(folder))
        runs = [{"chapter": chapter, "events": [json.loads(e) for e in events], "stopped": None}]
        table = json.loads(
            in_page.table_in_page(json.dumps(runs), engine, True, folder=str(folder))
        )
    finally:
        os.chdir(here)
    return runs, table
