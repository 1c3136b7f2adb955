"""The two-moons lab: the chapter's network trained in the page, step by step, and drawn.

The lab is a second notebook of the chapter (tools/page/run.py), with the reader's edits:
its fences run from the top until they define what the lab trains with (``NEEDED``), and
the lab then calls the chapter's own functions, so the book's settings give exactly the
chapter's losses and accuracies. The engine is the page's (the book's, as of the
chapter), or a learner's engine: the text of a whole ``micrograd.py``, kept by learner mode
in the browser. Everything the lab shows is decided here and handed over as JSON (text,
and SVG drawn from plain floats read from the parameters); docs/assets/lab/lab.js only
puts it in the page. ``answer(request, engine)`` is what the page's worker calls.
Standard library only: this file runs in the reader's browser (tools/page/).
"""

from __future__ import annotations

import ast
import json
import math
import operator
import time
import types
from dataclasses import dataclass

from .bridge import chunks
from .kernel import ENGINE, engine_module
from .protocol import check
from .run import Cell, Notebook

# What the chapter's fences define that the lab trains with, and what each is for.
NEEDED = {
    "make_model": "builds the network from a seed",
    "train_step": "takes one step of gradient descent, returning the loss and accuracy",
    "learning_rate": "gives the rate at a step of the schedule",
    "accuracy": "measures a model's accuracy on points",
    "X_train": "the training points",
    "Y_train": "their labels",
    "X_held": "the held-out points",
    "Y_held": "their labels",
}
BOOK = {"rate": "1.0", "steps": "100", "seed": "0"}  # the chapter's own settings
MAX_STEPS = 1000
SLICE = 0.12  # seconds of training between two answers, so that Pause acts within 200 ms
DRAW_EVERY = 0.15  # seconds between two drawings of the boundary and network while training
GRID = 28  # the boundary's grid: GRID x GRID cells
ANNOUNCE_EVERY = 10  # steps between two statuses told to screen readers while training
LEARNER = "your engine from learner mode"


class LabError(Exception):
    """What the reader is told, when the lab refuses or cannot go on; the lab is unchanged."""


@dataclass(frozen=True)
class Settings:
    rate: float  # the first learning rate of the schedule
    steps: int
    seed: int


def settings(given: dict) -> Settings:
    """The lab's settings from what the reader typed; LabError says what to change."""
    text = {name: str(given.get(name, "")).strip() for name in BOOK}
    try:
        rate = float(text["rate"])
    except ValueError:
        rate = math.nan
    if not (math.isfinite(rate) and rate > 0):
        raise LabError(
            f"The learning rate must be a positive number, such as 1.0 (the book's), "
            f"0.1 or 3.0; {text['rate']!r} is not. Change it and try again."
        )
    try:
        steps = int(text["steps"])
    except ValueError:
        steps = 0
    if not 1 <= steps <= MAX_STEPS:
        raise LabError(
            f"The number of steps must be a whole number from 1 to {MAX_STEPS}, such as 100 "
            f"(the book's); {text['steps']!r} is not. Change it and try again."
        )
    try:
        seed = int(text["seed"])
    except ValueError:
        seed = -1
    if not 0 <= seed < 2**32:
        raise LabError(
            f"The seed must be a whole number from 0 to {2**32 - 1}, such as 0 (the "
            f"book's); {text['seed']!r} is not. Change it and try again."
        )
    return Settings(rate, steps, seed)


def learner_module(text: str) -> types.ModuleType:
    """A learner's whole ``micrograd.py``, run as the module ``micrograd``."""
    try:
        module = engine_module(text, f"{ENGINE}.py ({LEARNER})")
    except BaseException as error:  # a learner's file may raise anything
        where = f" (line {error.lineno})" if isinstance(error, SyntaxError) else ""
        raise LabError(
            f"Your engine from learner mode does not load{where}: {type(error).__name__}: "
            f"{error}. Fix it in learner mode, or train with the page's engine."
        ) from None
    return module


def defines(code: str) -> set[str]:
    """The names a fence's code defines at its top level (def, class, assignment)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def chapter_namespace(page: str, engine: str, codes: dict, learner: str | None) -> dict:
    """The chapter's namespace for the lab: its fences run from the top (with the reader's
    edits in ``codes``) through the last whose book code defines a name in NEEDED, so
    the training itself, which the lab does step by step, is not run."""
    data = json.loads(page)
    module = learner_module(learner) if learner is not None else None
    book = Notebook(
        data["chapter"],
        [Cell(**fence) for fence in data["fences"]],
        chunks(engine)[: data["engine_before"]],
        engine=module,
    )
    edited = {int(k): code for k, code in codes.items()}
    defining = [i for i, cell in enumerate(book.cells) if defines(cell.code) & set(NEEDED)]
    if defining:
        book.run(defining[-1], edited)
        if book.first_failure is not None:
            index = book.first_failure
            first = (book.outcomes[index].report or "").split("\n")[0]
            raise LabError(
                f"The lab did not start: the fence at line {book.cells[index].opening} "
                f"failed ({first}). Fix that fence, or put back the book's code with its "
                "Reset, and try again."
            )
    missing = [name for name in NEEDED if name not in book.namespace]
    if missing:
        said = "; ".join(f"`{name}`, which {NEEDED[name]}" for name in missing)
        raise LabError(
            f"The chapter's fences, as they stand, no longer define what the lab trains "
            f"with: {said}. Put that code back (a fence's Reset gives the book's)."
        )
    return book.namespace


# --- plain floats read from the parameters ---------------------------------------------


def float_layers(model) -> list | None:
    """The model as plain floats, [(weights rows, biases, activation name), ...], or None if
    it is not made of the book's layers of neurons (w, b, activation: relu, tanh, none)."""
    try:
        found = []
        for layer in model.layers:
            rows = [[w.data for w in n.w] for n in layer.neurons]
            biases = [n.b.data for n in layer.neurons]
            names = {getattr(n.activation, "__name__", None) for n in layer.neurons}
            if len(names) != 1 or not names <= {"relu", "tanh", None}:
                return None
            found.append((rows, biases, names.pop()))
        return found
    except (AttributeError, TypeError):
        return None


def score(layers: list, point) -> float:
    """The network's output at ``point``, in plain floats, summed in the engine's order."""
    values = list(point)
    for rows, biases, activation in layers:
        out = []
        for row, total in zip(rows, biases):
            for w, x in zip(row, values):
                total += w * x
            if activation == "relu":
                total = total if total > 0 else 0.0
            elif activation == "tanh":
                total = math.tanh(total)
            out.append(total)
        values = out
    return values[0]


def activate(values: list[float], activation: str | None) -> list[float]:
    if activation == "relu":
        return [v if v > 0 else 0.0 for v in values]
    if activation == "tanh":
        return [math.tanh(v) for v in values]
    return values


def grid_scores(layers: list, xs: list[float], ys: list[float]) -> list[list[float]]:
    """The network's output at every (x, y) of a grid, row by row: quickly, in plain floats
    (sums in any order: only the drawing uses these)."""
    (first, biases, activation), rest = layers[0], layers[1:]
    mul, out = operator.mul, []
    for y in ys:
        line = []
        for x in xs:
            values = activate(
                [w0 * x + w1 * y + b for (w0, w1), b in zip(first, biases)], activation
            )
            for rows, bs, act in rest:
                values = activate([sum(map(mul, row, values), b) for row, b in zip(rows, bs)], act)
            line.append(values[0])
        out.append(line)
    return out


# --- drawings: SVG text, in the page's colours (CSS classes of docs/assets/lab/lab.css) ----


def _box(points) -> tuple[float, float, float, float]:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    pad_x, pad_y = 0.1 * (max(xs) - min(xs)) or 1.0, 0.1 * (max(ys) - min(ys)) or 1.0
    return min(xs) - pad_x, max(xs) + pad_x, min(ys) - pad_y, max(ys) + pad_y


def boundary_svg(layers, scorer, train, held) -> str:
    """The regions the network gives each moon, on a grid, with the points on top."""
    x0, x1, y0, y1 = _box(train[0] + held[0])
    width, height = 320, round(320 * (y1 - y0) / (x1 - x0))
    cw, ch = width / GRID, height / GRID
    xs = [x0 + (i + 0.5) * (x1 - x0) / GRID for i in range(GRID)]
    ys = [y1 - (j + 0.5) * (y1 - y0) / GRID for j in range(GRID)]
    if layers is not None and len(layers[0][0][0]) == 2:
        scores = grid_scores(layers, xs, ys)
    else:
        scores = [[scorer((x, y)) for x in xs] for y in ys]
    cells = []
    for j, line in enumerate(scores):
        i = 0
        while i < GRID:  # a run of cells on one side, as one rectangle
            inner = line[i] > 0
            end = i + 1
            while end < GRID and (line[end] > 0) == inner:
                end += 1
            side = "inner" if inner else "outer"
            cells.append(
                f'<rect class="lab-{side}-region" x="{i * cw:.1f}" y="{j * ch:.1f}" '
                f'width="{(end - i) * cw:.1f}" height="{ch + 0.1:.1f}"/>'
            )
            i = end
    sx = lambda x: (x - x0) / (x1 - x0) * width  # noqa: E731
    sy = lambda y: (y1 - y) / (y1 - y0) * height  # noqa: E731
    marks = []
    for (points, labels), shape in ((train, "dot"), (held, "ring")):
        for (x, y), label in zip(points, labels):
            side = "inner" if label > 0 else "outer"
            marks.append(
                f'<circle class="lab-{side} lab-{shape}" cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3"/>'
            )
    return (
        f'<svg class="lab-boundary" viewBox="0 0 {width} {height}" role="img" '
        'aria-label="The regions the network gives each moon now, with the points: '
        'training points filled, held-out points hollow">'
        '<g class="lab-regions" shape-rendering="crispEdges">'
        + "".join(cells)
        + "</g>"
        + "".join(marks)
        + "</svg>"
    )


def curves_svg(losses, train_acc, held_acc, steps) -> str:
    """The loss (log scale) and both accuracies over the steps so far, out of ``steps``."""
    width, height, pad = 320, 160, 4
    finite = [v for v in losses if math.isfinite(v) and v > 0] or [1.0]
    low, high = math.log10(min(*finite, 0.01)), math.log10(max(*finite, 1.0))
    top = max(high, low + 1)
    sx = lambda k: pad + k / max(steps - 1, 1) * (width - 2 * pad)  # noqa: E731

    def loss_y(v):
        v = math.log10(min(max(v, 10**low), 10**top)) if math.isfinite(v) else top
        return pad + (top - v) / (top - low) * (height - 2 * pad)

    acc_y = lambda a: pad + (1 - a) * (height - 2 * pad)  # noqa: E731

    def line(name, ys):
        points = " ".join(f"{sx(k):.1f},{y:.1f}" for k, y in enumerate(ys))
        return f'<polyline class="lab-{name}" points="{points}"/>' if ys else ""

    return (
        f'<svg class="lab-curves" viewBox="0 0 {width} {height}" role="img" aria-label="The '
        'loss (log scale) and the training and held-out accuracy at each step so far">'
        f'<rect class="lab-frame" x="0.5" y="0.5" width="{width - 1}" height="{height - 1}"/>'
        + line("held-line", [acc_y(a) for a in held_acc])
        + line("train-line", [acc_y(a) for a in train_acc])
        + line("loss-line", [loss_y(v) for v in losses])
        + "</svg>"
    )


def network_svg(layers, gradients=None) -> str:
    """Every weight as a line, its colour its sign and its width its size; with
    ``gradients`` (the same shape), the gradients instead."""
    if layers is None:
        return ""
    shown = gradients if gradients is not None else [rows for rows, _, _ in layers]
    sizes = [len(layers[0][0][0])] + [len(rows) for rows, _, _ in layers]
    width, height = 320, 200
    column = lambda k: 12 + k * (width - 24) / (len(sizes) - 1)  # noqa: E731
    row = lambda n, j: height / 2 if n == 1 else 8 + j * (height - 16) / (n - 1)  # noqa: E731
    biggest = max((abs(v) for rows in shown for r in rows for v in r), default=0) or 1.0
    lines = []
    for k, rows in enumerate(shown):
        for j, weights in enumerate(rows):
            for i, v in enumerate(weights):
                sign = "plus" if v > 0 else "minus"
                lines.append(
                    f'<line class="lab-{sign}" x1="{column(k):.1f}" y1="{row(sizes[k], i):.1f}" '
                    f'x2="{column(k + 1):.1f}" y2="{row(sizes[k + 1], j):.1f}" '
                    f'stroke-width="{0.2 + 2.8 * abs(v) / biggest:.2f}"/>'
                )
    units = [
        f'<circle class="lab-unit" cx="{column(k):.1f}" cy="{row(n, j):.1f}" r="3"/>'
        for k, n in enumerate(sizes)
        for j in range(n)
    ]
    what = "gradients" if gradients is not None else "weights"
    return (
        f'<svg class="lab-network" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="The network: each line one of its {what}, orange positive, blue '
        f'negative, wider the larger">' + "".join(lines) + "".join(units) + "</svg>"
    )


# --- the lab ------------------------------------------------------------------------------


class Lab:
    """One training run of the chapter's network, and what the page shows of it."""

    def __init__(self, namespace: dict, engine_name: str):
        self.ns = namespace
        self.engine_name = engine_name  # "the page's engine" or LEARNER
        self.failure: str | None = None  # why training stopped (a step raised)
        self.drawn_at = 0.0

    def reset(self, chosen: Settings) -> None:
        try:
            model = self.ns["make_model"](chosen.seed)
            model.parameters()
        except Exception as error:
            raise LabError(
                f"`make_model({chosen.seed})` failed: {type(error).__name__}: {error}. "
                "Fix the fence that defines it, or put back the book's code."
            ) from None
        self.settings, self.model = chosen, model
        self.losses, self.train_acc, self.held_acc, self.rates = [], [], [], []
        self.failure = None
        self.layers = float_layers(model)

    def step(self) -> None:
        """One step: the chapter's ``train_step`` at the chapter's ``learning_rate``."""
        k, ns = len(self.losses), self.ns
        held = self.held_accuracy()  # where train_step measures: before the update
        try:
            rate = ns["learning_rate"](k, self.settings.steps, self.settings.rate)
            loss, acc = ns["train_step"](self.model, rate)
            loss, acc = float(loss), float(acc)
        except Exception as error:
            self.failure = (
                f"Step {k} raised {type(error).__name__}: {error}. Training stopped; "
                + (
                    "learner mode's table says which of your engine's checks fail."
                    if self.engine_name == LEARNER
                    else "a rate this large can throw the numbers out of a float's range: "
                    "lower it and Reset (or, if you edited a fence, fix it)."
                )
            )
            return
        self.layers = float_layers(self.model)
        self.rates.append(rate)
        self.losses.append(loss)
        self.train_acc.append(acc)
        self.held_acc.append(held)

    def held_accuracy(self) -> float:
        points, labels = self.ns["X_held"], self.ns["Y_held"]
        if self.layers is None:
            return float(self.ns["accuracy"](self.model, points, labels))
        right = sum((score(self.layers, p) > 0) == (y > 0) for p, y in zip(points, labels))
        return right / len(labels)

    @property
    def done(self) -> bool:
        return self.failure is not None or len(self.losses) >= self.settings.steps

    def run_for(self, seconds: float) -> None:
        """Steps until ``seconds`` have gone (at least one), or the run is done."""
        start = time.perf_counter()
        while not self.done:
            before = time.perf_counter()
            self.step()
            now = time.perf_counter()
            if now - start + (now - before) > seconds:  # a next step would overrun
                break

    def trouble(self) -> str | None:
        """Why the loss is not what training should give, if it is not."""
        if self.failure:
            return self.failure
        if self.losses and not math.isfinite(self.losses[-1]):
            return (
                f"The loss is {self.losses[-1]} at step {len(self.losses) - 1}: the steps "
                "have thrown the parameters out of range. Lower the learning rate and Reset."
            )
        if self.engine_name == LEARNER and len(self.losses) >= 20:
            first, best = self.losses[0], min(self.losses)
            if not best < 0.5 * first:
                return (
                    f"After {len(self.losses)} steps the loss has not fallen to half of its "
                    f"first value ({first:.4f}; lowest {best:.4f}): your engine does not "
                    "learn as the book's does. Its gradients are likely wrong: learner "
                    "mode's table says which check fails."
                )
        return None

    def frame(self, draw: bool, gradients: bool = False, announce: bool = True) -> dict:
        """What the page shows now. ``draw``: with the boundary and the network;
        ``announce``: the status is also told to screen readers."""
        k, chosen = len(self.losses), self.settings
        said = f"{k} of {chosen.steps} steps done."
        if k:
            said += (
                f" Step {k - 1}: loss {self.losses[-1]:.4f}, training accuracy "
                f"{self.train_acc[-1]:.0%}, held-out accuracy {self.held_acc[-1]:.0%}, "
                f"learning rate {self.rates[-1]:.3f}."
            )
        out = {
            "step": k,
            "steps": chosen.steps,
            "done": self.done,
            "status": said,
            "announce": announce or self.done,
            "problem": self.trouble(),
            "to_learner": self.engine_name == LEARNER,  # the problem links to learner mode
            "engine": self.engine_name,
            "losses": self.losses,
            "accuracies": self.train_acc,
            "held": self.held_acc,
            "curves": curves_svg(self.losses, self.train_acc, self.held_acc, chosen.steps),
        }
        if draw:
            self.drawn_at = time.perf_counter()
            train = (self.ns["X_train"], self.ns["Y_train"])
            held = (self.ns["X_held"], self.ns["Y_held"])
            out["boundary"] = boundary_svg(self.layers, self.scorer, train, held)
            grads = None
            if gradients and self.layers is not None:
                grads = [
                    [[w.grad for w in n.w] for n in layer.neurons] for layer in self.model.layers
                ]
            out["network"] = network_svg(self.layers, grads)
            out["shows"] = "gradients" if grads is not None else "weights"
            out["network_note"] = (
                ""
                if self.layers is not None
                else "The network is not drawn: it is not made of the book's layers of neurons."
            )
        return out

    def scorer(self, point) -> float:
        return float(self.model(list(point)).data)


_lab: Lab | None = None


def answer(request: str, engine: str) -> str:
    """What the page asked (JSON: ``action``, and what it needs), answered as JSON:
    ``{"frame": ...}``, or ``{"refused": message}`` with the lab as it was. Both are
    checked against tools/page/protocol.py: a bad message is a ProtocolError."""
    asked = check("lab request", json.loads(request))
    return json.dumps(check("lab answer", _answer(asked, engine)))


def _answer(asked: dict, engine: str) -> dict:
    global _lab
    action = asked["action"]
    try:
        chosen = settings(asked.get("settings", BOOK))
        if action == "open":
            learner = asked.get("learner")
            namespace = chapter_namespace(asked["page"], engine, asked.get("codes", {}), learner)
            lab = Lab(namespace, LEARNER if learner is not None else "the page's engine")
            lab.reset(chosen)
            _lab = lab
            return {"frame": lab.frame(draw=True)}
        if _lab is None:
            raise LabError("The lab has not started: press Reset.")
        gradients = bool(asked.get("gradients"))
        if action == "reset":
            _lab.reset(chosen)
            return {"frame": _lab.frame(draw=True, gradients=gradients)}
        if chosen.steps < len(_lab.losses):
            raise LabError(
                f"The lab is at step {len(_lab.losses)}: the number of steps cannot be below "
                "that. Give a larger number, or Reset to start again."
            )
        _lab.settings = Settings(chosen.rate, chosen.steps, _lab.settings.seed)
        if action == "step":
            if not _lab.done:
                _lab.step()
            return {"frame": _lab.frame(draw=True, gradients=gradients)}
        if action == "train":  # one slice of training
            before = len(_lab.losses)
            _lab.run_for(SLICE)
            draw = _lab.done or time.perf_counter() - _lab.drawn_at >= DRAW_EVERY
            tens = len(_lab.losses) // ANNOUNCE_EVERY > before // ANNOUNCE_EVERY
            frame = _lab.frame(draw=draw, gradients=gradients, announce=tens)
            return {"frame": frame}
        if action == "draw":
            return {"frame": _lab.frame(draw=True, gradients=gradients)}
        raise LabError(f"The lab does not know {action!r}.")
    except LabError as refusal:
        return {"refused": str(refusal)}
