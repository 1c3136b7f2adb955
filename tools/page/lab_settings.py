"""The lab's settings: what the reader may type in each field, the one table of its limits
(the refusals and the fields' hints both read it), and the page's address that keeps them.
Standard library only: this file runs in the reader's browser (tools/page/).
"""

import math
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

from .lab_data import DATASETS, CurveError, curve

# The chapter's own settings (as the reader types them): its network, data and schedule.
BOOK = {
    "rate": "1.0",
    "steps": "100",
    "seed": "0",
    "decay": "0",
    "hidden": "16, 16",
    "activation": "relu",
    "dataset": "moons",
    "curve": "sin(3*x)",  # the lab's, for the data set "curve"
    "noise": "0.1",
    "points": "200",
    "engine": "micrograd",  # or "tensor": chapter 20's tensor.py
}
REDRAW = ("hidden", "activation", "dataset", "curve", "noise", "points", "engine")  # redrawn
ENGINES = {
    "micrograd": "the scalar engine (micrograd.py)",
    "tensor": "the tensor engine (tensor.py)",
}
MAX_LAYERS, MAX_UNITS = 3, 16  # hidden layers, and units in each
MAX_ADDED = 200  # points the reader may add


@dataclass(frozen=True)
class Limit:
    """A field that takes a number from ``low`` to ``high`` (both allowed)."""

    what: str  # the field, as a refusal names it
    low: float
    high: float
    whole: bool  # a whole number
    note: str = ""  # what the field's hint adds to its range
    book_note: str = ""  # what a refusal says of the book's value
    also: str = ""  # another example, after the book's value

    def text(self, value: float) -> str:
        return str(int(value)) if self.whole else f"{value:g}"

    @property
    def range(self) -> str:
        return f"{self.text(self.low)} to {self.text(self.high)}"


LIMITS = {
    "steps": Limit("The number of steps", 1, 1000, True),
    "seed": Limit("The seed", 0, 2**32 - 1, True, ", the starting network, at Reset"),
    "decay": Limit(
        "The weight decay",
        0,
        0.1,
        False,
        ", as in exercise 2",
        ": the loss's own 1e-4 penalty only",
        " or 0.001",
    ),
    "noise": Limit("The noise", 0, 1.0, False),
    "points": Limit("The number of points", 8, 1000, True, ", half held out"),
}
MAX_STEPS, MAX_POINTS = LIMITS["steps"].high, LIMITS["points"].high


def hint(name: str) -> str:
    """The words beside a number field: its range and the book's value."""
    limit = LIMITS[name]
    return f"{limit.range}{limit.note}; the book's {BOOK[name]}"


class LabError(Exception):
    """What the reader is told, when the lab refuses or cannot go on; the lab is unchanged."""


@dataclass(frozen=True)
class Settings:
    rate: float  # the first learning rate of the schedule
    steps: int
    seed: int
    decay: float = 0.0  # weight decay: after each step, a step on decay * sum(p * p) alone
    hidden: tuple[int, ...] = (16, 16)
    activation: str = "relu"
    noise: float = 0.1
    points: int = 200
    dataset: str = "moons"
    curve: str = "sin(3*x)"
    engine: str = "micrograd"

    @property
    def network(self) -> tuple:
        return self.hidden, self.activation, self.engine

    @property
    def data(self) -> tuple:
        return self.dataset, self.curve if self.dataset == "curve" else "", self.noise, self.points


def number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def whole(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def settings(given: dict) -> Settings:
    """The lab's settings from what the reader typed; LabError says what to change."""
    text = {name: str(given.get(name, BOOK[name])).strip() for name in BOOK}

    def refuse(what: str, name: str):
        raise LabError(f"{what}; {text[name]!r} is not. Change it and try again.")

    rate = number(text["rate"])
    if not (math.isfinite(rate) and rate > 0):
        refuse(
            "The learning rate must be a positive number, such as 1.0 (the book's), 0.1 or 3.0",
            "rate",
        )
    limited = {}
    for name, limit in LIMITS.items():
        value = whole(text[name]) if limit.whole else number(text[name])
        if value is None or not limit.low <= value <= limit.high:  # nan compares False
            kind = "a whole number" if limit.whole else "a number"
            such = f"{BOOK[name]} (the book's{limit.book_note}){limit.also}"
            refuse(f"{limit.what} must be {kind} from {limit.range}, such as {such}", name)
        limited[name] = value
    words = text["hidden"].replace(",", " ").split()
    sizes = [whole(word) for word in words] if text["hidden"].lower() != "none" else []
    if len(sizes) > MAX_LAYERS or any(n is None or not 1 <= n <= MAX_UNITS for n in sizes):
        refuse(
            f"The hidden layers must be 0 to {MAX_LAYERS} sizes from 1 to {MAX_UNITS}, "
            "such as '16, 16' (the book's), '8' or 'none'",
            "hidden",
        )
    if text["activation"] not in ("relu", "tanh"):
        refuse("The activation must be relu (the book's) or tanh", "activation")
    if text["dataset"] not in DATASETS:
        refuse(f"The data set must be one of {', '.join(DATASETS)}", "dataset")
    try:
        curve(text["curve"])
    except CurveError as why:
        refuse(f"The curve must be a formula in x, such as sin(3*x) or x**2 - 1 ({why})", "curve")
    if text["engine"] not in ENGINES:
        refuse("The engine must be micrograd (the book's, a node per number) or tensor", "engine")
    chosen = {name: text[name] for name in ("activation", "dataset", "curve", "engine")}
    return Settings(rate, hidden=tuple(sizes), **chosen, **limited)


def typed(chosen: Settings) -> dict:
    """The settings as the page's fields show them (the inverse of ``settings``)."""
    shown = {name: str(getattr(chosen, name)) for name in BOOK}  # ints and words as they are
    shown["decay"] = "0" if chosen.decay == 0 else repr(chosen.decay)
    return shown | {"hidden": ", ".join(map(str, chosen.hidden)) or "none"}


def added_points(text: str) -> list[tuple[float, float, float]]:
    """Points added by the reader, from the address's ``x,y,label;...``."""
    found = []
    for part in filter(None, text.split(";")):
        pieces = part.split(",")
        values = [number(p) for p in pieces] if len(pieces) == 3 else [math.nan]
        if not all(math.isfinite(v) for v in values) or values[2] not in (1.0, -1.0):
            raise LabError(
                f"An added point must be x,y,label with label 1 (inner) or -1 (outer); "
                f"{part!r} is not. Fix the address, or open the page without it."
            )
        found.append(tuple(values))
    if len(found) > MAX_ADDED:
        raise LabError(f"At most {MAX_ADDED} points can be added; the address has {len(found)}.")
    return found


def added_text(added: list) -> str:
    """The added points as the address keeps them (the inverse of ``added_points``)."""
    return ";".join(f"{x:.3f},{y:.3f},{label:g}" for x, y, label in added)


def address(chosen: Settings, added: list) -> str:
    """The page's query for these settings and points: only what differs from the book's."""
    pairs = [(k, v) for k, v in typed(chosen).items() if settings({k: v}) != settings({})]
    if added:
        pairs.append(("added", added_text(added)))
    return "?" + urlencode(pairs) if pairs else ""


def from_address(query: str) -> tuple[dict, str]:
    """The fields' texts and the added points' text from a page's query (what it lacks is
    the book's)."""
    found = dict(parse_qsl(query.lstrip("?")))
    return {k: found.get(k, v) for k, v in BOOK.items()}, found.get("added", "")
