"""One step of training, taken apart, for the two-moons lab (tools/page/lab.py).

For one training point, with the engine itself: the forward pass layer by layer (each
unit's value), the point's loss (its hinge term, max(0, 1 - y s)), the backward pass layer
by layer (a layer's weights and biases getting their gradients, in the order the engine's
``backward`` reaches them: its reversed ``topo()``; how many units pass nothing back, and
why, in a sentence; each unit's numbers a detail to open), and the update (each weight
moving by the rate times its gradient). ``record`` runs it once and keeps the numbers; ``stage``
draws any part of it (Next and Back in the page ask for one each). The lab's network is
left as it was: its gradients are put back, and the update is shown, not made.
Standard library only: this file runs in the reader's browser (tools/page/).
"""

from dataclasses import dataclass

from .lab_draw import WIDTH, human


class ApartError(Exception):
    """Why a step cannot be taken apart (the lab says it, and keeps its state)."""


@dataclass
class Record:
    index: int  # the training point's index, from 0
    point: tuple[float, float]
    label: float
    rate: float
    values: list[list[float]]  # the inputs, then each layer's outputs
    loss: float
    order: list[tuple[int, int]]  # (layer, unit) in the order their gradients arrive
    weights: list[list[list[float]]]  # [layer][unit] = [w..., b], before the update
    grads: list[list[list[float]]]  # the same shape: the gradients backward() gave
    relu: list[bool]  # [layer]: its units are ReLUs (a unit at 0 was off)

    @property
    def backward(self) -> list[int]:
        """The layers in the order their gradients arrive: the output first."""
        arrived = list(dict.fromkeys(k for k, _ in self.order))
        return arrived + [k for k in reversed(range(len(self.grads))) if k not in arrived]

    @property
    def count(self) -> int:
        return 1 + 2 * (len(self.values) - 1) + 2


def record(model, point, label: float, index: int, rate: float) -> Record:
    """The engine's own numbers for one step on the point's loss (the lab's model as it
    was after; the lab's gradients put back)."""
    layers = getattr(model, "layers", None)
    if not layers or not all(hasattr(layer, "neurons") for layer in layers):
        raise ApartError("The step can be taken apart only for a network of the book's layers.")
    parameters = model.parameters()
    kept = [p.grad for p in parameters]
    try:
        values, x = [list(point)], list(point)
        outs = []
        for layer in layers:
            x = layer(x)
            outs.append(x)
            values.append([v.data for v in x])
        score = outs[-1][0]
        loss = (1 - label * score).relu()
        for p in parameters:
            p.grad = 0.0
        order_of_nodes = loss.topo()
        loss.backward()
        owner = {
            id(n.b): (k, j) for k, layer in enumerate(layers) for j, n in enumerate(layer.neurons)
        }
        order = []
        for node in reversed(order_of_nodes):
            for prev in getattr(node, "_prev", ()):
                if id(prev) in owner and owner[id(prev)] not in order:
                    order.append(owner[id(prev)])
        weights = [[[w.data for w in n.w] + [n.b.data] for n in layer.neurons] for layer in layers]
        grads = [[[w.grad for w in n.w] + [n.b.grad] for n in layer.neurons] for layer in layers]
        relu = [getattr(layer.neurons[0].activation, "__name__", "") == "relu" for layer in layers]
    except AttributeError as error:
        raise ApartError(
            f"This engine cannot be taken apart here ({error}): it needs Value.topo() and "
            "relu, as the book's has."
        ) from None
    finally:
        for p, grad in zip(parameters, kept):
            p.grad = grad
    return Record(index, tuple(point), label, rate, values, loss.data, order, weights, grads, relu)


def _layer_name(k: int, layers: int) -> str:
    return "the output" if k == layers - 1 else f"hidden layer {k + 1}"


def stage(rec: Record, s: int) -> dict:
    """Part ``s`` (0 to count - 1): {"index", "count", "text", "details", "svg"}."""
    s = max(0, min(s, rec.count - 1))
    n_layers = len(rec.values) - 1
    arrived: set = set()
    after = False
    lit = n_layers  # the values shown: every layer's, once the forward pass is done
    layer, details = None, []
    x, y = rec.point
    moon = "inner" if rec.label > 0 else "outer"
    if s == 0:
        text = (
            f"Forward: training point {rec.index + 1}, at ({human(x)}, {human(y)}), of the "
            f"{moon} moon (label {rec.label:g}), enters the network."
        )
        lit = 0
    elif s <= n_layers:
        k = s - 1
        shown = ", ".join(human(v) for v in rec.values[s])
        text = f"Forward: {_layer_name(k, n_layers)} computes its units: {shown}."
        lit = s
    elif s == n_layers + 1:
        score = rec.values[-1][0]
        text = (
            f"Loss: the score is {human(score)}; this point's hinge term, max(0, 1 - "
            f"({rec.label:g}) times {human(score)}), is {human(rec.loss)}."
            + (
                " It is 0: the point is right by a margin of 1, so every gradient is 0."
                if rec.loss == 0
                else ""
            )
        )
    elif s < rec.count - 1:
        done = s - n_layers - 2
        layer = rec.backward[done]
        arrived = {(k, j) for k in rec.backward[: done + 1] for j in range(len(rec.grads[k]))}
        text, details = _backward_text(rec, layer, done)
    else:
        arrived = set(rec.order)
        after = True
        moves = [
            (abs(rec.rate * g), k, j, i)
            for k, layer_grads in enumerate(rec.grads)
            for j, unit_grads in enumerate(layer_grads)
            for i, g in enumerate(unit_grads)
        ]
        biggest = max(moves)
        _, k, j, i = biggest
        which = "bias" if i == len(rec.grads[k][j]) - 1 else f"weight {i + 1}"
        text = (
            f"Update: each weight moves by the rate ({human(rec.rate)}) times its gradient, "
            f"against it. The largest move is {human(biggest[0])}, of unit {j + 1}'s {which} "
            f"in {_layer_name(k, n_layers)}. (Shown, not made: the lab's network is as it was.)"
        )
    return {
        "index": s,
        "count": rec.count,
        "text": text,
        "details": details,
        "svg": _svg(rec, lit, arrived, layer, after),
    }


def _backward_text(rec: Record, k: int, done: int) -> tuple[str, list[str]]:
    """A layer's part of the backward pass: a sentence, and each unit's numbers."""
    n_layers, units = len(rec.grads), rec.grads[k]
    silent = [j for j, grads in enumerate(units) if not any(grads)]
    off = [j for j in silent if rec.relu[k] and rec.values[k + 1][j] == 0]
    name = _layer_name(k, n_layers)
    text = f"Backward ({done + 1} of {n_layers}): {name}'s weights and biases get their gradients."
    if silent:
        reasons = [
            (len(off), "their ReLU was off"),
            (len(silent) - len(off), "no gradient reached them"),
        ]
        reasons = [(n, why) for n, why in reasons if n]
        said = (
            reasons[0][1]
            if len(reasons) == 1
            else ", ".join(f"{n} because {why}" for n, why in reasons)
        )
        verb = "unit passes" if len(silent) == 1 else "units pass"
        text += f" {len(silent)} of {len(units)} {verb} nothing back: {said}."
    details = []
    for j, grads in enumerate(units):
        if j in off:
            said = "nothing (its ReLU was off)"
        elif j in silent:
            said = "nothing (no gradient reached it)"
        else:
            said = f"weights {', '.join(human(g) for g in grads[:-1])}; bias {human(grads[-1])}"
        details.append(f"Unit {j + 1}: {said}.")
    return text, details


def _svg(rec: Record, lit: int, arrived: set, layer, after: bool) -> str:
    sizes = [len(v) for v in rec.values]
    width, height = WIDTH, 200
    column = lambda k: 14 + k * (width - 28) / (len(sizes) - 1)  # noqa: E731
    row = lambda n, j: height / 2 if n == 1 else 10 + j * (height - 20) / (n - 1)  # noqa: E731
    shown = [
        [[(w - rec.rate * g) if after else g for w, g in zip(ws, gs)] for ws, gs in zip(wl, gl)]
        for wl, gl in zip(rec.weights, rec.grads)
    ]
    biggest = max((abs(v) for layer in shown for u in layer for v in u[:-1]), default=0) or 1.0
    lines = []
    for k, layer in enumerate(shown):
        for j, values in enumerate(layer):
            here = (k, j) in arrived
            for i, v in enumerate(values[:-1]):
                name = ("plus" if v > 0 else "minus") if here else "waiting"
                size = 0.3 + 2.7 * abs(v) / biggest if here else 0.4
                focus = " lab-focus" if layer == k else ""
                lines.append(
                    f'<line class="lab-{name}{focus}" x1="{column(k):.1f}" '
                    f'y1="{row(sizes[k], i):.1f}" x2="{column(k + 1):.1f}" '
                    f'y2="{row(sizes[k + 1], j):.1f}" stroke-width="{size:.2f}"/>'
                )
    circles = []
    for k, values in enumerate(rec.values):
        for j, v in enumerate(values):
            known = k <= lit
            name = ("plus" if v > 0 else "minus" if v < 0 else "zero") if known else "blank"
            ring = " lab-focus" if layer == k - 1 else ""
            circles.append(
                f'<circle class="lab-value-{name}{ring}" cx="{column(k):.1f}" '
                f'cy="{row(len(values), j):.1f}" r="4"/>'
            )
    what = "the weights after the update" if after else "the gradients that have arrived"
    return (
        f'<svg class="lab-apart-network" viewBox="0 0 {width} {height}" aria-hidden="true" '
        f'data-shows="{what}">' + "".join(lines) + "".join(circles) + "</svg>"
    )
