"""The two-moons lab: the chapter's network trained in the page, step by step, and drawn.

The lab is a second notebook of the chapter (tools/page/run.py), with the reader's edits:
its fences run from the top until they define what the lab trains with (``NEEDED``), and
the lab then calls the chapter's own functions, so the book's settings give exactly the
chapter's losses and accuracies. The engine is the page's (the book's, as of the
chapter), or a learner's engine: the text of a whole ``micrograd.py``, kept by learner mode
in the browser. Everything the lab shows is decided here and handed over as JSON (text,
and SVG drawn by tools/page/lab_draw.py); docs/assets/lab/lab.js only puts it in the page.
``answer(request, engine)`` is what the page's worker calls.

Between two steps the reader may change anything: the rate, the weight decay and the
number of steps take effect at the next step; the hidden layers and the activation start a
new network from the same seed; the data (noise, number of points, points added) is drawn
again and training goes on with the network it has. The settings and the added points make
the page's address (``address``), and an address makes them again (``from_address``).
Standard library only: this file runs in the reader's browser (tools/page/).

Messages (JSON both ways; the worker passes them as text) are tools/page/protocol.py's
"lab request" (an ``action``, the ``settings`` as typed, and what the action needs) and
"lab answer": a ``frame`` (``Lab.frame`` says what it holds), a part of the step taken
``apart`` (lab_apart.stage), or ``refused`` (a message; the lab as it was).
"""

import ast
import json
import math
import time
import types
from dataclasses import replace

from . import lab_data
from .bridge import chunks, finished_engine
from .kernel import ENGINE, engine_module
from .lab_apart import ApartError, record, stage
from .lab_draw import (  # noqa: F401 (float_layers, score, grid_scores: the tests' too)
    active_counts,
    boundary_svg,
    chart_geometry,
    chart_svg,
    float_layers,
    grid_scores,
    human,
    network_svg,
    percent,
    plane,
    score,
    unit_maps,
)
from .lab_settings import (
    BOOK,
    ENGINES,
    MAX_ADDED,
    LabError,
    Settings,
    added_points,
    added_text,
    address,
    number,
    settings,
    typed,
    whole,
)
from .lab_tensor import speed, tensor_step
from .protocol import check
from .run import Cell, Notebook

SLICE = 0.12  # seconds of training between two answers, so that Pause acts within 200 ms
DRAW_EVERY = 0.1  # seconds between two drawings of the boundary, units and network while training
ANNOUNCE_EVERY = 10  # steps between two statuses told to screen readers while training
LEARNER = "your engine from learner mode"
DATA_SEED = 0  # the chapter's make_moons(200, noise=0.1, seed=0)
DIVERGED = 1e6  # a loss above this, or not finite: the run has diverged and stops
RUN_LISTS = ("losses", "held_losses", "train_acc", "held_acc", "rates", "readouts")  # history

# What the chapter's fences define that the lab trains with, and what each is for.
NEEDED = {
    "make_model": "builds the network from a seed",
    "train_step": "takes one step of gradient descent, returning the loss and accuracy",
    "learning_rate": "gives the rate at a step of the schedule",
    "accuracy": "measures a model's accuracy on points",
    "make_moons": "draws the two moons",
    "MLP": "builds a network of another shape",
    "X_train": "the training points",
    "Y_train": "their labels",
    "X_held": "the held-out points",
    "Y_held": "their labels",
}


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


# --- the lab ------------------------------------------------------------------------------


class Lab:
    """One training run of the chapter's network, and what the page shows of it."""

    def __init__(self, namespace: dict, engine_name: str, engine: str = "[]"):
        self.ns = namespace
        self.engine_name = engine_name  # "the page's engine" or LEARNER
        self.engine = engine  # engine.json's text: tensor.py is made from it when chosen
        self.speeds = {}  # steps a second, by engine and the other settings (lab_tensor)
        self.failure: str | None = None  # why training stopped (a step raised, or diverged)
        self.drawn_at = 0.0
        self.note = ""  # what the last change did, said once
        self.watched = ""  # the weight the reader reads (Lab.weight names it)
        self.apart = None  # the step taken apart (lab_apart.Record), once asked for
        self.seed_told = None  # a seed the reader typed and was told waits for Reset
        self.added: list[tuple[float, float, float]] = []
        self.book_data = tuple(
            namespace[name] for name in ("X_train", "Y_train", "X_held", "Y_held")
        )

    def reset(self, chosen: Settings) -> None:
        """A fresh network from the seed, on the data the settings give."""
        self.data(chosen, self.added)
        model = self.new_model(chosen)
        self.settings, self.model = chosen, model
        for name in RUN_LISTS:
            setattr(self, name, [])
        self.failure, self.seconds = None, 0.0  # seconds: the engine's, in its steps
        self.layers = float_layers(model)

    def new_model(self, chosen: Settings):
        """The chapter's ``make_model`` for the book's shape; the engine's MLP for another."""
        if chosen.network == (Settings.hidden, Settings.activation, Settings.engine):
            call = f"make_model({chosen.seed})"
            make = lambda: self.ns["make_model"](chosen.seed)  # noqa: E731
        else:  # tensor.MLP draws its weights as micrograd.MLP does
            sizes, where = [*chosen.hidden, 1], "tensor." if chosen.engine == "tensor" else ""
            call = (
                f'{where}MLP(2, {sizes}, seed={chosen.seed}, activation="{chosen.activation}", '
                'output_activation="linear")'
            )
            mlp = finished_engine(self.engine, "tensor").MLP if where else self.ns["MLP"]
            make = lambda: mlp(  # noqa: E731
                2, sizes, seed=chosen.seed, activation=chosen.activation, output_activation="linear"
            )
        try:
            model = make()
            model.parameters()
        except Exception as error:
            raise LabError(
                f"`{call}` failed: {type(error).__name__}: {error}. "
                "Fix the fence that defines it, or put back the book's code."
            ) from None
        return model

    def data(self, chosen: Settings, added: list) -> None:
        """The training and held-out points: the chapter's own for its settings; else its
        ``make_moons``, or another data set (lab_data.py), drawn again, half for training,
        and the added points for training."""
        if chosen.data == settings({}).data:
            x_train, y_train, x_held, y_held = self.book_data
        else:
            n, noise, moons = chosen.points, chosen.noise, chosen.dataset == "moons"
            make = self.ns["make_moons"] if moons else lab_data.maker(chosen.dataset, chosen.curve)
            try:
                xs, ys = make(n, noise, DATA_SEED)
            except Exception as error:
                what = f"make_moons({n}, {noise}, {DATA_SEED})" if moons else f"the {make.__name__}"
                fix = "fix the fence that defines it" if moons else "change the curve"
                raise LabError(
                    f"`{what}` failed: {type(error).__name__}: {error}; {fix}."
                ) from None
            half = chosen.points // 2
            x_train, y_train, x_held, y_held = xs[:half], ys[:half], xs[half:], ys[half:]
        if added:
            x_train = [*x_train, *([x, y] for x, y, _ in added)]
            y_train = [*y_train, *(label for _, _, label in added)]
        ns = self.ns  # train_step reads X_train and Y_train from here
        ns["X_train"], ns["Y_train"], ns["X_held"], ns["Y_held"] = x_train, y_train, x_held, y_held
        self.added = list(added)
        self.box = plane(list(x_train) + list(x_held))

    def change(self, chosen: Settings) -> None:
        """Take the reader's settings between two steps: rate, decay and steps at the next
        step; another network shape or activation: a new network from the same seed;
        other data: the points drawn again, training going on with this network."""
        if chosen.steps < len(self.losses):
            raise LabError(
                f"The lab is at step {len(self.losses)}: the number of steps cannot be below "
                "that. Give a larger number, or Reset to start again."
            )
        if chosen.seed not in (self.settings.seed, self.seed_told):
            self.note = (
                f"The seed makes the starting network: {chosen.seed} is used at Reset; until "
                f"then the run goes on from seed {self.settings.seed}."
            )
        self.seed_told = chosen.seed
        chosen = replace(chosen, seed=self.settings.seed)  # the seed: at Reset
        if chosen.network != self.settings.network:
            self.reset(chosen)
            layers = ", ".join(map(str, chosen.hidden)) or "none"
            self.note = (
                f"A new network: hidden layers {layers}, {chosen.activation}, from seed "
                f"{chosen.seed}. The run starts again at step 0, on {ENGINES[chosen.engine]}."
            )
        elif chosen.data != self.settings.data:
            self.data(chosen, self.added)
            self.note = (
                f"New data: {lab_data.DATASETS[chosen.dataset]}, {chosen.points} points, noise "
                f"{chosen.noise:g}. Training goes on from step {len(self.losses)} with the "
                "network as it is."
            )
        self.settings = chosen

    def add(self, point, label) -> None:
        """A training point the reader placed (rounded as the address keeps it)."""
        try:
            x, y, label = round(float(point[0]), 3), round(float(point[1]), 3), float(label)
        except (TypeError, ValueError, IndexError):
            x = math.nan
        box = self.box
        if not (math.isfinite(x) and math.isfinite(y) and label in (1.0, -1.0)):
            raise LabError(
                f"A point is added with two numbers and a label 1 or -1; not {point!r}, {label!r}."
            )
        if not (box["x0"] <= x <= box["x1"] and box["y0"] <= y <= box["y1"]):
            raise LabError(f"The point ({x}, {y}) is outside the plane drawn: add it inside.")
        if len(self.added) >= MAX_ADDED:
            raise LabError(f"At most {MAX_ADDED} points can be added: Clear them first.")
        box = self.box
        self.data(self.settings, [*self.added, (x, y, label)])
        self.box = box  # the plane stays put while points are added
        moon = "inner" if label > 0 else "outer"
        self.note = (
            f"Added a training point of the {moon} moon at ({x:.3f}, {y:.3f}); "
            f"{len(self.added)} added."
        )

    def step(self) -> None:
        """One step: the chapter's ``train_step`` at the chapter's ``learning_rate``, then
        (with a weight decay) a step on the decay's penalty alone, as exercise 2 derives it."""
        k, ns, chosen = len(self.losses), self.ns, self.settings
        held, held_data = self.measure("X_held", "Y_held")  # where train_step measures: before
        train_data = self.measure("X_train", "Y_train")[1]  # the update
        try:
            rate = ns["learning_rate"](k, chosen.steps, chosen.rate)
            start, data = time.perf_counter(), (ns["X_train"], ns["Y_train"])
            if chosen.engine == "tensor":
                loss, acc = tensor_step(self.model, rate, *data, chosen.decay)
            else:
                loss, acc = ns["train_step"](self.model, rate)
                for p in self.model.parameters() if chosen.decay else ():
                    p.data -= rate * 2 * chosen.decay * p.data
            self.seconds += time.perf_counter() - start
            loss, acc = float(loss), float(acc)
        except Exception as error:
            self.failure = (
                f"Step {k} raised {type(error).__name__}: {error}. Training stopped; "
                + (
                    "learner mode's table says which of your engine's checks fail."
                    if self.engine_name == LEARNER
                    else "training diverged: a rate this large throws the numbers out of a "
                    "float's range. Lower it and Reset (or, if you edited a fence, fix it)."
                )
            )
            return
        self.layers = float_layers(self.model)
        self.rates.append(rate)
        self.losses.append(loss)
        self.held_losses.append(held_data + loss - train_data)  # the same penalty added
        self.train_acc.append(acc)
        self.held_acc.append(held)
        self.readouts.append(
            f"Step {k}: loss {human(loss)} (held out {human(self.held_losses[-1])}), training "
            f"accuracy {percent(acc)}, held-out accuracy {percent(held)}, learning rate "
            f"{human(rate)}."
        )
        if not (math.isfinite(loss) and loss <= DIVERGED):
            self.failure = (
                f"Training diverged: the loss is {human(loss)} at step {k} (it was "
                f"{human(self.losses[0])} at step 0); each step overshoots further than the "
                "last, so training stopped. Lower the learning rate and Reset."
            )

    def weight(self, which: str):
        """The parameter ``which`` names: "layer, unit, input" counted from 1, input "b"
        for the unit's bias."""
        self.scalar_only("A weight is read and set")
        parts = [p.strip() for p in str(which).replace(",", " ").split()]
        layers = getattr(self.model, "layers", None)
        try:
            k, j = int(parts[0]) - 1, int(parts[1]) - 1
            neuron = layers[k].neurons[j]
            if len(parts) != 3 or min(k, j) < 0:
                raise ValueError
            if parts[2] == "b":
                return neuron.b
            i = int(parts[2]) - 1
            if i < 0:
                raise ValueError
            return neuron.w[i]
        except (ValueError, IndexError, AttributeError, TypeError):
            sizes = [len(layer.neurons) for layer in layers] if layers else []
            raise LabError(
                f"A weight is named by its layer, its unit and its input, counted from 1 (b "
                f"for the bias), such as 1, 3, 2; {which!r} names none of this network's "
                f"(layers of {', '.join(map(str, sizes))} units). Change it and try again."
            ) from None

    def scalar_only(self, what: str) -> None:
        if self.settings.engine == "tensor":
            raise LabError(f"{what} on the scalar engine, a node per number: choose micrograd.")

    def weight_text(self) -> str:
        if not self.watched:
            return ""
        try:
            p = self.weight(self.watched)
        except LabError:
            return ""
        return f"Weight {self.watched}: {human(p.data)}, gradient {human(p.grad)}."

    def set_weight(self, which: str, value: str) -> None:
        """Set a parameter to what the reader typed; training goes on from there."""
        p = self.weight(which)
        typed_value = number(str(value).strip())
        if not math.isfinite(typed_value):
            raise LabError(
                f"A weight is set to a number, such as 0.5; {value!r} is not. Change it and "
                "try again."
            )
        p.data = typed_value
        self.layers = float_layers(self.model)
        self.note = f"Weight {which} set to {human(typed_value)}: training goes on from here."

    def take_apart(self, which: str):
        """Record one step on one training point's loss (``which``: its number from 1, or
        empty for the first that pulls: a margin below 1)."""
        self.scalar_only("A step is taken apart")
        xs, ys = self.ns["X_train"], self.ns["Y_train"]
        text = str(which).strip()
        if text:
            index = whole(text)
            if index is None or not 1 <= index <= len(xs):
                raise LabError(
                    f"The point to take a step apart on is a training point's number, from 1 "
                    f"to {len(xs)}; {which!r} is not. Change it and try again."
                )
            index -= 1
        else:
            index = next((i for i, (x, y) in enumerate(zip(xs, ys)) if y * self.scorer(x) < 1), 0)
        rate = self.ns["learning_rate"](len(self.losses), self.settings.steps, self.settings.rate)
        try:
            self.apart = record(self.model, xs[index], ys[index], index, rate)
        except ApartError as error:
            raise LabError(str(error)) from None
        return self.apart

    def measure(self, points: str, labels: str) -> tuple[float, float]:
        """The accuracy and the mean hinge term (the loss without its penalty) on the
        points the namespace names, as the network stands."""
        points, labels = self.ns[points], self.ns[labels]
        if self.layers is None:
            scores = [self.scorer(p) for p in points]
        else:
            scores = [score(self.layers, p) for p in points]
        right = sum((s > 0) == (y > 0) for s, y in zip(scores, labels))
        hinge = sum(max(0.0, 1 - y * s) for s, y in zip(scores, labels))
        return right / len(labels), hinge / len(labels)

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
        if self.engine_name == LEARNER and len(self.losses) >= 20:
            first, best = self.losses[0], min(self.losses)
            if not best < 0.5 * first:
                return (
                    f"After {len(self.losses)} steps the loss has not fallen to half of its "
                    f"first value ({human(first)}; lowest {human(best)}): your engine does not "
                    "learn as the book's does. Its gradients are likely wrong: learner "
                    "mode's table says which check fails."
                )
        return None

    def frame(self, draw: bool, gradients: bool = False, announce: bool = True) -> dict:
        """What the page shows now: ``status`` (told to screen readers when ``announce``),
        ``problem``, ``note`` (what the last change did), the chart (``curves``, with
        ``chart``: where each step is, and ``readouts``: a sentence per step), the
        settings as the fields show them and the ``address`` that makes them again; with
        ``draw``, the plane (``boundary``, with ``plane``: its corners), each hidden
        unit's map (``units``) and the network."""
        k, chosen = len(self.losses), self.settings
        said = f"{k} of {chosen.steps} steps done."
        if k:
            said += " " + self.readouts[-1]
        if self.failure:
            said += " Training stopped."
        out = {
            "step": k,
            "steps": chosen.steps,
            "done": self.done,
            "status": said,
            "announce": announce or self.done or bool(self.note),
            "problem": self.trouble(),
            "note": self.note,
            "to_learner": self.engine_name == LEARNER,  # the problem links to learner mode
            "engine": self.engine_name,
            "losses": self.losses,
            "held_losses": self.held_losses,
            "accuracies": self.train_acc,
            "held": self.held_acc,
            "rates": self.rates,
            "readouts": self.readouts,
            "curves": chart_svg(
                self.losses, self.held_losses, self.train_acc, self.held_acc, chosen.steps
            ),
            "chart": chart_geometry(chosen.steps),
            "settings": typed(chosen),
            "added": added_text(self.added),
            "address": address(chosen, self.added),
            "weight": self.weight_text(),
            "speed": speed(self),
        }
        self.note = ""
        if draw:
            self.drawn_at = time.perf_counter()
            ns = self.ns
            train = (ns["X_train"], ns["Y_train"])
            held = (ns["X_held"], ns["Y_held"])
            out["boundary"] = boundary_svg(self.layers, self.scorer, train, held, self.box)
            out["plane"] = self.box
            out["units"] = []
            if self.layers is not None:
                counts = active_counts(self.layers, ns["X_train"])
                out["units"] = unit_maps(self.layers, self.box, counts, len(ns["X_train"]))
            grads = None
            if self.layers is not None:
                grads = [rows for rows, _, _ in float_layers(self.model, grad=True)]
            out["network"] = network_svg(self.layers, grads, gradients)
            out["shows"] = "gradients" if gradients and grads is not None else "weights"
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
            added = added_points(asked.get("added") or "")
            learner = asked.get("learner")
            namespace = chapter_namespace(asked["page"], engine, asked.get("codes", {}), learner)
            lab = Lab(namespace, LEARNER if learner is not None else "the page's engine", engine)
            lab.added = added
            lab.reset(chosen)
            _lab = lab
            return {"frame": lab.frame(draw=True)}
        if _lab is None:
            raise LabError("The lab has not started: press Reset.")
        gradients = bool(asked.get("gradients"))
        if action == "reset":
            _lab.reset(chosen)
            return {"frame": _lab.frame(draw=True, gradients=gradients)}
        if action == "apart":  # one step on one point, taken apart: its first part
            rec = _lab.take_apart(asked.get("point", ""))
            return {"apart": stage(rec, 0)}
        if action == "apart-stage":  # another part of it
            if _lab.apart is None:
                raise LabError("No step has been taken apart yet: press Take apart.")
            return {"apart": stage(_lab.apart, whole(str(asked.get("stage"))) or 0)}
        if action == "clear":
            _lab.data(_lab.settings, [])
            _lab.note = "The added points are gone; training goes on without them."
            return {"frame": _lab.frame(draw=True, gradients=gradients)}
        kept = dict(vars(_lab))  # the lab as it is: put back whole if the request is refused
        kept.update({name: list(kept[name]) for name in RUN_LISTS})
        try:
            _lab.change(chosen)
            if action == "add":
                _lab.add(asked.get("point"), asked.get("label"))
            if action in ("weight", "set"):
                which = str(asked.get("which", "")).strip()
                _lab.weight(which)
                if action == "set":
                    _lab.set_weight(which, asked.get("value", ""))
                _lab.watched = which
        except LabError:
            vars(_lab).update(kept)
            _lab.data(_lab.settings, _lab.added)
            raise
        if action == "step":
            if not _lab.done:
                _lab.step()
            return {"frame": _lab.frame(draw=True, gradients=gradients)}
        if action == "train":  # one slice of training
            before_k = len(_lab.losses)
            _lab.run_for(SLICE)
            draw = _lab.done or time.perf_counter() - _lab.drawn_at >= DRAW_EVERY
            tens = len(_lab.losses) // ANNOUNCE_EVERY > before_k // ANNOUNCE_EVERY
            frame = _lab.frame(draw=draw, gradients=gradients, announce=tens)
            return {"frame": frame}
        if action in ("draw", "add", "weight", "set"):
            return {"frame": _lab.frame(draw=True, gradients=gradients)}
        raise LabError(f"The lab does not know {action!r}.")
    except LabError as refusal:
        return {"refused": str(refusal)}
