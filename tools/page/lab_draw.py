"""What the two-moons lab draws (tools/page/lab.py decides when): numbers for people, the
chart of the loss and the accuracies with its axes, the plane with the boundary and the
points, each hidden unit's map, and the network. SVG text in the page's colours (the CSS
classes of docs/assets/lab/lab.css), from plain floats read from the parameters.
Standard library only: this file runs in the reader's browser (tools/page/).
"""

import math
import operator

GRID = 28  # the boundary's grid: GRID x GRID cells
UNIT_GRID = 14  # each hidden unit's map: UNIT_GRID x UNIT_GRID cells
WIDTH = 320  # every drawing's width, in the units of its viewBox


# --- numbers for people ------------------------------------------------------------------


def human(value: float) -> str:
    """A number as a reader wants it: 4 decimals below 10, fewer above, and powers of ten
    outside 1e-3 to 1e4 (a loss of 1e9 is ``1.0e9``, never 170 digits)."""
    if math.isnan(value):
        return "not a number"
    if math.isinf(value):
        return "infinite" if value > 0 else "minus infinite"
    size = abs(value)
    if size == 0:
        return "0"
    if size >= 1e4 or size < 1e-3:
        mantissa, exponent = f"{value:.1e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    if size < 10:
        return f"{value:.4f}"
    if size < 1000:
        return f"{value:.2f}"
    return f"{value:.0f}"


def percent(share: float) -> str:
    return f"{share:.0%}".replace("%", " %")


# --- plain floats read from the parameters -----------------------------------------------


def float_layers(model, grad=False) -> list | None:
    """The model as plain floats (or its gradients), [(weights rows, biases, activation
    name), ...], or None if it is not made of the book's layers of neurons (w, b, activation:
    relu, tanh, none), nor of tensor.py's (w (nin, nout): a neuron a column; b; activation)."""
    try:
        found = []
        for layer in model.layers:
            if hasattr(layer, "neurons"):
                rows = [[w.grad if grad else w.data for w in n.w] for n in layer.neurons]
                biases = [n.b.grad if grad else n.b.data for n in layer.neurons]
                names = {getattr(n.activation, "__name__", None) for n in layer.neurons}
            else:
                w, b = (layer.w.grad, layer.b.grad) if grad else (layer.w, layer.b)
                if w is None:  # no gradient yet: zeros
                    w, b = layer.w * 0.0, layer.b * 0.0
                rows, biases = [list(c) for c in zip(*w.tolist())], b.values()
                names = {getattr(layer.activation, "__name__", None)}
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
        sums = []
        for row, total in zip(rows, biases):
            for w, x in zip(row, values):
                total += w * x
            sums.append(total)
        values = activate(sums, activation)
    return values[0]


def activate(values: list[float], activation: str | None) -> list[float]:
    if activation == "relu":
        return [v if v > 0 else 0.0 for v in values]
    if activation == "tanh":
        return [math.tanh(v) for v in values]
    return values


def outputs(layers: list, point) -> list[list[float]]:
    """Every layer's outputs at ``point``, quickly (sums in any order: only drawings and
    the count of active units use these)."""
    mul, values, found = operator.mul, list(point), []
    for rows, biases, act in layers:
        values = activate([sum(map(mul, row, values), b) for row, b in zip(rows, biases)], act)
        found.append(values)
    return found


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


# --- the plane: the boundary, the points, and where a click lands -------------------------


def plane(points) -> dict:
    """The part of the plane drawn, with room around the points, and its size in the SVG:
    what the page needs to turn a click into a point (x0, x1, y0, y1, width, height)."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    pad_x, pad_y = 0.1 * (max(xs) - min(xs)) or 1.0, 0.1 * (max(ys) - min(ys)) or 1.0
    x0, x1, y0, y1 = min(xs) - pad_x, max(xs) + pad_x, min(ys) - pad_y, max(ys) + pad_y
    return {
        "x0": x0,
        "x1": x1,
        "y0": y0,
        "y1": y1,
        "width": WIDTH,
        "height": round(WIDTH * (y1 - y0) / (x1 - x0)),
    }


def _runs(scores: list[list[float]], cw: float, ch: float, classes) -> list[str]:
    """Rectangles for runs of grid cells of one class on a row; ``classes(v)`` names it."""
    cells = []
    for j, line in enumerate(scores):
        i = 0
        while i < len(line):
            name = classes(line[i])
            end = i + 1
            while end < len(line) and classes(line[end]) == name:
                end += 1
            cells.append(
                f'<rect class="{name}" x="{i * cw:.1f}" y="{j * ch:.1f}" '
                f'width="{(end - i) * cw:.1f}" height="{ch + 0.1:.1f}"/>'
            )
            i = end
    return cells


def boundary_svg(layers, scorer, train, held, box: dict) -> str:
    """The regions the network gives each moon, on a grid, with the points on top."""
    x0, x1, y0, y1, width, height = (box[k] for k in ("x0", "x1", "y0", "y1", "width", "height"))
    xs = [x0 + (i + 0.5) * (x1 - x0) / GRID for i in range(GRID)]
    ys = [y1 - (j + 0.5) * (y1 - y0) / GRID for j in range(GRID)]
    if layers is not None and len(layers[0][0][0]) == 2:
        scores = grid_scores(layers, xs, ys)
    else:
        scores = [[scorer((x, y)) for x in xs] for y in ys]
    cells = _runs(
        scores,
        width / GRID,
        height / GRID,
        lambda v: "lab-inner-region" if v > 0 else "lab-outer-region",
    )
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
        + "".join(_axes(box, sx, sy))
        + "".join(marks)
        + "</svg>"
    )


def _axes(box: dict, sx, sy) -> list[str]:
    """The plane's axes where they cross it, and round values marked along its bottom and
    left edges (x and y named at their ends)."""
    x0, x1, y0, y1, width, height = (box[k] for k in ("x0", "x1", "y0", "y1", "width", "height"))
    parts = []
    if x0 < 0 < x1:
        parts.append(
            f'<line class="lab-axis-line" x1="{sx(0):.1f}" y1="0" x2="{sx(0):.1f}" y2="{height}"/>'
        )
    if y0 < 0 < y1:
        parts.append(
            f'<line class="lab-axis-line" x1="0" y1="{sy(0):.1f}" x2="{width}" y2="{sy(0):.1f}"/>'
        )
    tick = '<text class="lab-tick" x="{:.1f}" y="{:.1f}" text-anchor="{}">{:g}</text>'
    parts += [tick.format(sx(v), height - 3, "middle", v) for v in _round_values(x0, x1)]
    parts += [tick.format(3, sy(v) + 4, "start", v) for v in _round_values(y0, y1)]
    parts.append(
        f'<text class="lab-axis" x="{width - 3}" y="{height - 14}" text-anchor="end">x</text>'
    )
    parts.append('<text class="lab-axis" x="14" y="12">y</text>')
    return parts


def _round_values(low: float, high: float) -> list[float]:
    """Whole numbers from ``low`` to ``high`` (halves where there are fewer than three)."""
    step = 1.0 if high - low >= 3 else 0.5
    return [k * step for k in range(math.ceil(low / step), math.floor(high / step) + 1)]


# --- each hidden unit's map ----------------------------------------------------------------


def active_counts(layers: list, points) -> list[list[int]]:
    """For each hidden layer, for each unit: on how many of ``points`` its output is not 0."""
    hidden = layers[:-1]
    counts = [[0] * len(rows) for rows, _, _ in hidden]
    for point in points:
        for layer, values in zip(counts, outputs(hidden, point)):
            for j, v in enumerate(values):
                if v != 0:
                    layer[j] += 1
    return counts


def unit_maps(layers: list, box: dict, counts: list[list[int]], of: int) -> list[dict]:
    """Per hidden layer, each unit's output over the plane as levels, row by row from the
    top: -3 to 3 (its sign, and its size in quarters of its largest: 0 only where it is 0),
    for the page to paint (orange positive, blue negative, blank 0); a dead unit (0 at each
    of the ``of`` training points) marked, and a sentence for each.
    [{"summary", "units": [{"levels", "size", "dead", "text"}]}]."""
    hidden = layers[:-1]
    if not hidden or len(layers[0][0][0]) != 2:
        return []
    x0, x1, y0, y1 = box["x0"], box["x1"], box["y0"], box["y1"]
    n = UNIT_GRID
    grid = [
        outputs(hidden, (x0 + (i + 0.5) * (x1 - x0) / n, y1 - (j + 0.5) * (y1 - y0) / n))
        for j in range(n)
        for i in range(n)
    ]
    found = []
    for k, (rows, _, act) in enumerate(hidden):
        units, dead = [], 0
        for u in range(len(rows)):
            values = [cell[k][u] for cell in grid]
            biggest = max(map(abs, values)) or 1.0
            levels = [
                0 if v == 0 else int(math.copysign(min(3, 1 + int(3 * abs(v) / biggest)), v))
                for v in values
            ]
            is_dead = counts[k][u] == 0
            dead += is_dead
            said = f"Unit {u + 1} of hidden layer {k + 1} ({act or 'linear'}): " + (
                f"dead, 0 at every one of the {of} training points"
                if is_dead
                else f"not 0 at {counts[k][u]} of the {of} training points; "
                f"largest output on the plane {human(biggest)}"
            )
            units.append({"levels": levels, "size": n, "dead": is_dead, "text": said})
        summary = f"Hidden layer {k + 1}: {len(rows) - dead} of {len(rows)} units active"
        if dead:
            summary += f", {dead} dead (0 at every training point)"
        found.append({"summary": summary, "units": units})
    return found


# --- the chart: the loss (log scale) over the accuracies, with axes ----------------------

CHART = {"left": 46, "right": WIDTH - 8, "loss": (8, 104), "accuracy": (126, 194), "height": 224}


def ticks(last: int) -> list[int]:
    """Round steps from 0 to ``last``, at most 6 of them."""
    if last <= 0:
        return [0]
    size = 1
    while last / size > 5:
        for factor in (2, 5, 10):
            if last / (size * factor) <= 5:
                size *= factor
                break
        else:
            size *= 10
    return list(range(0, last + 1, size))


def decades(losses: list[float]) -> tuple[int, int]:
    """The powers of ten the loss axis spans: at least one decade, around every finite loss."""
    finite = [v for v in losses if math.isfinite(v) and v > 0] or [1.0]
    low = math.floor(math.log10(min(finite)))
    high = math.ceil(math.log10(max(finite)))
    return low, max(high, low + 1)


def decade(power: int) -> str:
    """A tick of the loss axis: 0.001 to 1000 as written, other powers of ten as 1e9."""
    return f"{10.0**power:g}" if -3 <= power <= 3 else f"1e{power}"


def chart_svg(losses, held_losses, train_acc, held_acc, steps: int) -> str:
    """Both losses (log scale, above) and both accuracies (below) over the steps so far, out
    of ``steps``, with axes, tick labels and the last values marked."""
    left, right = CHART["left"], CHART["right"]
    (ltop, lbottom), (atop, abottom) = CHART["loss"], CHART["accuracy"]
    last = max(steps - 1, 1)
    sx = lambda k: left + k / last * (right - left)  # noqa: E731
    low, high = decades(losses + held_losses)

    def loss_y(v):
        v = math.log10(min(max(v, 10.0**low), 10.0**high)) if math.isfinite(v) else high
        return ltop + (high - v) / (high - low) * (lbottom - ltop)

    acc_y = lambda a: atop + (1 - a) * (abottom - atop)  # noqa: E731
    parts = [
        f'<rect class="lab-frame" x="{left}" y="{ltop}" width="{right - left}" '
        f'height="{lbottom - ltop}"/>',
        f'<rect class="lab-frame" x="{left}" y="{atop}" width="{right - left}" '
        f'height="{abottom - atop}"/>',
    ]
    every = max(1, math.ceil((high - low) / 5))
    for power in range(high, low - 1, -every):  # from the top: the largest loss labelled
        y = loss_y(10.0**power)
        parts.append(f'<line class="lab-grid" x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}"/>')
        parts.append(
            f'<text class="lab-tick" x="{left - 3}" y="{y + 4:.1f}" text-anchor="end">'
            f"{decade(power)}</text>"
        )
    for share in (0, 0.5, 1):
        y = acc_y(share)
        parts.append(f'<line class="lab-grid" x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}"/>')
        parts.append(
            f'<text class="lab-tick" x="{left - 3}" y="{y + 4:.1f}" text-anchor="end">'
            f"{percent(share)}</text>"
        )
    for k in ticks(steps - 1):
        x = sx(k)
        parts.append(
            f'<line class="lab-grid" x1="{x:.1f}" y1="{abottom}" x2="{x:.1f}" y2="{abottom + 3}"/>'
        )
        parts.append(
            f'<text class="lab-tick" x="{x:.1f}" y="{abottom + 15}" text-anchor="middle">{k}</text>'
        )
    parts.append(
        f'<text class="lab-axis" x="{left + 3}" y="{ltop + 13}">loss (log scale)</text>'
        f'<text class="lab-axis" x="{left + 3}" y="{atop + 13}">accuracy</text>'
        f'<text class="lab-axis" x="{right}" y="{CHART["height"] - 1}" '
        'text-anchor="end">step</text>'
    )

    def line(name, ys):
        points = " ".join(f"{sx(k):.1f},{y:.1f}" for k, y in enumerate(ys))
        return f'<polyline class="lab-{name}" points="{points}"/>' if ys else ""

    parts.append(line("held-line", [acc_y(a) for a in held_acc]))
    parts.append(line("train-line", [acc_y(a) for a in train_acc]))
    parts.append(line("held-loss-line", [loss_y(v) for v in held_losses]))
    parts.append(line("loss-line", [loss_y(v) for v in losses]))
    if losses:
        k = len(losses) - 1
        parts.append(
            f'<circle class="lab-now-loss" cx="{sx(k):.1f}" cy="{loss_y(losses[k]):.1f}" r="2.5"/>'
            f'<circle class="lab-now-train" cx="{sx(k):.1f}" cy="{acc_y(train_acc[k]):.1f}" '
            'r="2.5"/>'
            f'<circle class="lab-now-held" cx="{sx(k):.1f}" cy="{acc_y(held_acc[k]):.1f}" r="2.5"/>'
        )
    return (
        f'<svg class="lab-curves" viewBox="0 0 {WIDTH} {CHART["height"]}" aria-hidden="true">'
        + "".join(parts)
        + '<line class="lab-cursor" x1="0" y1="0" x2="0" y2="0" visibility="hidden"/>'
        + "</svg>"
    )


def chart_geometry(steps: int) -> dict:
    """Where step k is on the chart, for the page's pointer: x = left + k / last * (right -
    left); the cursor runs from top to bottom."""
    return {
        "left": CHART["left"],
        "right": CHART["right"],
        "last": max(steps - 1, 1),
        "top": CHART["loss"][0],
        "bottom": CHART["accuracy"][1],
        "width": WIDTH,
    }


# --- the network ---------------------------------------------------------------------------


def network_svg(layers, gradients, show_gradients: bool = False) -> str:
    """Every weight as a line, its colour its sign and its width its size (or its
    gradient's, with ``show_gradients``); each line names its weight (layer, unit, input,
    from 1: what the page's Weight field takes) with its value and gradient, for a pointer."""
    if layers is None:
        return ""
    weights = [rows for rows, _, _ in layers]
    shown = gradients if show_gradients else weights
    sizes = [len(layers[0][0][0])] + [len(rows) for rows, _, _ in layers]
    width, height = WIDTH, 200
    column = lambda k: 12 + k * (width - 24) / (len(sizes) - 1)  # noqa: E731
    row = lambda n, j: height / 2 if n == 1 else 8 + j * (height - 16) / (n - 1)  # noqa: E731
    biggest = max((abs(v) for rows in shown for r in rows for v in r), default=0) or 1.0
    lines = []
    for k, rows in enumerate(shown):
        for j, values in enumerate(rows):
            for i, v in enumerate(values):
                sign = "plus" if v > 0 else "minus"
                name = f"{k + 1}, {j + 1}, {i + 1}"
                lines.append(
                    f'<line class="lab-{sign}" data-weight="{name}" x1="{column(k):.1f}" '
                    f'y1="{row(sizes[k], i):.1f}" x2="{column(k + 1):.1f}" '
                    f'y2="{row(sizes[k + 1], j):.1f}" '
                    f'stroke-width="{0.2 + 2.8 * abs(v) / biggest:.2f}"><title>weight {name}: '
                    f"{human(weights[k][j][i])}, gradient {human(gradients[k][j][i])}"
                    "</title></line>"
                )
    units = [
        f'<circle class="lab-unit" cx="{column(k):.1f}" cy="{row(n, j):.1f}" r="3"/>'
        for k, n in enumerate(sizes)
        for j in range(n)
    ]
    what = "gradients" if show_gradients else "weights"
    return (
        f'<svg class="lab-network" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="The network: each line one of its {what}, orange positive, blue '
        f'negative, wider the larger">' + "".join(lines) + "".join(units) + "</svg>"
    )
