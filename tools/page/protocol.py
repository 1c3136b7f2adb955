"""The messages between the page and its Python, written down once.

Every message is a JSON object of a family (``FAMILIES``): what the page posts to its
worker, what the worker posts back, what tools/page/run.py tells as a chapter runs, what
learner mode and the lab send and answer. A message's kind is the value of its family's
``key`` field ("kind", "action"); in a family whose ``key`` is None it is the one field of
the message named as a kind ({"passed": 3}, {"refused": "..."}); a record (``key`` RECORD)
has one kind. A kind lists the fields a message must have and those it may have, and no
other field is allowed. A field in ``inner`` holds messages of another family: one, a list
of them, or the JSON text of one.

Who reads it: tools/page/bridge.py, tools/page/lab.py and tools/learn/in_page.py raise
ProtocolError rather than send or act on a bad message; the site build writes ``FAMILIES``
into docs/assets/notebook/protocol.js, with which worker.js checks what the page posts and
notebook.js what the worker posts (a bad message is reported in the console and stops the
page's Python, with the reason on the fence); tests/test_protocol.py records real runs.
Standard library only: this file also runs in the reader's browser (tools/page/).
"""

import dataclasses
import json
from dataclasses import dataclass, field

from .run import Cell

RECORD = ""  # the key of a family whose messages all have one shape, and that kind's name


class ProtocolError(ValueError):
    """A message of no known kind, or without a field its kind needs, or with one it has not."""


@dataclass(frozen=True)
class Kind:
    fields: tuple[str, ...] = ()  # each message of the kind has these
    optional: tuple[str, ...] = ()  # and may have these
    inner: dict[str, str] = field(default_factory=dict)  # field -> the family of what it holds


@dataclass(frozen=True)
class Family:
    key: str | None  # the field whose value is the kind; None: the kind is the field present
    kinds: dict[str, Kind]


def record(*fields: str, optional: tuple[str, ...] = (), inner: dict | None = None) -> Family:
    return Family(RECORD, {RECORD: Kind(fields, optional, inner or {})})


INDEX_STATUS = Kind(("index", "status"))
ROWS = ("head", "body", "foot")

FAMILIES: dict[str, Family] = {
    # docs/assets/notebook/notebook.js (and learner.js, lab.js through it) to worker.js
    "to the worker": Family(
        "kind",
        {
            # first, how to start: the site's address, the files from disk (or null), the
            # kept snapshot (or null), whether to keep one, its key and largest size
            "start": Kind(("site", "disk", "kept", "keep", "key", "limit")),
            "open": Kind(("page",), inner={"page": "chapter page"}),  # a fresh namespace
            "run": Kind(("target", "codes", "all")),  # codes: JSON, edited code by index
            "learn-load": Kind(("bundle",)),  # the book's zip, for learner mode
            "learn": Kind(("chapter", "engine")),  # one chapter against the engine's text
            "learn-table": Kind(
                ("runs", "engine", "diagnose", "record"), inner={"runs": "learner run"}
            ),
            "lab": Kind(("request",), inner={"request": "lab request"}),
        },
    ),
    # worker.js to the page
    "from the worker": Family(
        "kind",
        {
            # the phase of the start (tools/site/runtime.py's START_PHASES) and how far
            "loading": Kind(("phase", "received", "expected")),
            "afresh": Kind(("because",), optional=("error",)),  # the kept snapshot refused
            "snapshot": Kind(("key", "bytes")),  # a new snapshot, for the page to keep
            "ready": Kind(("restored",)),  # Python is loaded (restored: from a snapshot)
            "event": Kind(("event",), inner={"event": "run event"}),
            "figure": Kind(("name",), optional=("book", "svg", "steps", "problem")),
            "graphs": Kind(("index", "drawn")),  # the graphs a fence printed, drawn
            "finished": Kind(),  # the run is over
            "broken": Kind(("error",)),  # Python could not load, or failed itself
            "learn-start": Kind(),  # a learner's message starts (it may have waited)
            "learn-event": Kind(("event",), inner={"event": "learner event"}),
            "learned": Kind(),
            "learn-table": Kind(("table",), inner={"table": "learner table"}),
            "lab": Kind(("answer",), inner={"answer": "lab answer"}),
        },
    ),
    # tools/page/run.py, as a chapter runs (the worker posts each in an "event" message,
    # but for figure and graphs, which it draws)
    "run event": Family(
        "kind",
        {
            "fresh": Kind(),  # Run all starts from a fresh namespace
            "stale": INDEX_STATUS,
            "waiting": INDEX_STATUS,
            "running": INDEX_STATUS,
            "print": Kind(("index", "text")),
            "done": Kind(("index", "state", "status", "report", "same")),
            "not-run": INDEX_STATUS,
            "graphs": Kind(("index", "text")),
            "figure": Kind(("name", "live")),
        },
    ),
    # the page's page data, as the worker's open and the lab's open send it
    "chapter page": record(
        "chapter",
        "fences",
        "figures",
        "engine_before",
        optional=("unserved", "names", "editor"),
        inner={"fences": "fence"},
    ),
    "fence": record(*(f.name for f in dataclasses.fields(Cell))),
    # learner mode: tools/learn/child.py's run_chapter, one event per check
    "learner event": Family(
        None,
        {
            "start": Kind(("start",)),
            "passed": Kind(("passed",)),
            "wording": Kind(("wording",)),
            "failed": Kind(
                ("failed", "line", "kind", "message"),
                optional=("printed", "engine_line", "function"),
            ),
            "waits": Kind(("waits", "on")),
            "blocked": Kind(("blocked", "why")),
            "aside": Kind(("aside",)),  # about the book, and read by no counted check
        },
    ),
    "learner run": record("chapter", "events", "stopped", inner={"events": "learner event"}),
    "learner table": record(  # rows: tools/learn/table.py's page_table (none: nothing ran)
        "table", "record", "fix", "hints", "next", optional=("rows",), inner={"rows": "table rows"}
    ),
    "table rows": record("caption", *ROWS, inner=dict.fromkeys(ROWS, "table row")),  # learner's
    "table row": record("chapter", "score", "failing"),  # a cell: [[text, chapter, section]...]
    # the lab: docs/assets/lab/lab.js asks, tools/page/lab.py answers
    "lab request": Family(
        "action",
        {
            "open": Kind(  # added: the address's added points, as text
                ("action", "settings", "page"),
                optional=("gradients", "codes", "learner", "added"),
                inner={"page": "chapter page"},
            ),
            **{
                action: Kind(("action", "settings", *more), optional=("gradients",))
                for action, more in (
                    ("reset", ()),
                    ("step", ()),
                    ("train", ()),
                    ("draw", ()),
                    ("clear", ()),  # the added points
                    ("add", ("point", "label")),  # a training point: [x, y], 1 or -1
                    ("weight", ("which",)),  # read a weight: "layer, unit, input"
                    ("set", ("which", "value")),  # and set it (value: text)
                    ("apart", ("point",)),  # one step taken apart: a point's number, or ""
                    ("apart-stage", ("stage",)),  # another part of it
                )
            },
        },
    ),
    "lab answer": Family(
        None,
        {
            "frame": Kind(("frame",), inner={"frame": "lab frame"}),
            "apart": Kind(("apart",), inner={"apart": "lab apart part"}),
            "refused": Kind(("refused",)),
        },
    ),
    "lab apart part": record("index", "count", "text", "details", "svg"),
    "lab frame": record(
        "step",
        "steps",
        "done",
        "status",
        "announce",
        "problem",
        "to_learner",
        "engine",
        "losses",
        "held_losses",  # the loss on the held-out points, with the same penalty
        "accuracies",
        "held",
        "curves",
        "rates",
        "readouts",  # a sentence per step, for the chart's pointer and keys
        "chart",  # where step k is on the chart
        "settings",  # the fields' texts, as Python read them
        "added",  # the added points, as the address keeps them
        "address",  # the page's query that makes the run again
        "note",  # what the last change did ("": nothing to say)
        "weight",  # the weight read, with its value and gradient ("": none)
        "speed",  # the engine's steps a second, and which engine is faster ("": no step yet)
        optional=("boundary", "plane", "units", "network", "shows", "network_note"),
    ),
}


def shown(value: object) -> str:
    """``value`` as JSON, cut to 80 characters (as protocol.js shows it)."""
    return json.dumps(value, default=repr, separators=(",", ":"))[:80]


def check(family: str, message: object) -> dict:
    """``message``, if it is a message of ``family``; else ProtocolError, naming the kind and
    the field at fault."""
    known = FAMILIES.get(family)
    if known is None:
        raise ProtocolError(f"protocol: no family {shown(family)}")
    if not isinstance(message, dict):
        raise ProtocolError(f"{family}: a message is a JSON object, not {shown(message)}")
    if known.key == RECORD:
        kind = RECORD
    elif known.key is None:
        named = [k for k in known.kinds if k in message]
        if len(named) != 1:
            raise ProtocolError(
                f"{family}: a message has one of the fields {', '.join(known.kinds)} to name "
                f"its kind; this one has {', '.join(named) or 'none'} (its fields: "
                f"{', '.join(message)})"
            )
        kind = named[0]
    else:
        kind = message.get(known.key)
        if not isinstance(kind, str) or kind not in known.kinds:
            names = ", ".join(known.kinds)
            raise ProtocolError(
                f"{family}: unknown kind {known.key}={shown(kind)} (known: {names})"
            )
    spec = known.kinds[kind]
    what = f"{family} {kind!r}" if kind else family
    allowed = {known.key, *spec.fields, *spec.optional} - {None, RECORD}
    for name in spec.fields:
        if name not in message:
            raise ProtocolError(f"{what}: missing field {name!r}")
    for name in message:
        if name not in allowed:
            raise ProtocolError(f"{what}: unknown field {name!r}")
    for name, inner in spec.inner.items():
        if name in message:
            value = message[name]
            if isinstance(value, str):
                try:
                    value = json.loads(value)
                except ValueError:
                    raise ProtocolError(f"{what}: field {name!r} is not JSON text") from None
            for one in value if isinstance(value, list) else [value]:
                try:
                    check(inner, one)
                except ProtocolError as error:
                    raise ProtocolError(f"{what}, in {name!r}: {error}") from None
    return message


def as_json() -> str:
    """``FAMILIES`` as JSON, for the page's scripts (docs/assets/notebook/protocol.js)."""
    families = {name: dataclasses.asdict(family) for name, family in FAMILIES.items()}
    return json.dumps(families, separators=(",", ":"))
