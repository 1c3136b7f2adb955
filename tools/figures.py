"""The book's figures, one function each: drawn by the engine from the chapters' own code.

A chapter shows a figure as a plain Markdown image, ``![text alternative](figures/NAME.svg)``,
so that it appears on the site, in VS Code's preview and on GitHub alike. Each file in
docs/figures/ is drawn by a function below from the namespace of its chapter, after the
chapter's fences have run (the same notebook the tests run), so a figure shows what the
chapter computes and cannot drift from it: tests/test_figures.py redraws every figure and
fails if a committed file differs. ``drawn()`` draws them; tools/redraw.py is the command
(`python3 tools/dev.py figures`), and tools/site/figures.py puts each figure's SVG into the
page itself, so that its lines and text take the page's colour in light and dark mode; as
a file, the SVG carries its own colours for a light or dark reader.

Some figures are also stepped through: a function registered with ``steps_of`` records the
backward pass of the figure's graph one node at a time, with the real engine, from the same
namespace (tools/site/steps.py), and says which box of the figure is which node. The page
gets step controls from it; the chapter gets, under the figure, a folded table of the same
steps (``steps_block``, put in place by ``with_step_tables``), which tests/test_steps.py
checks and `python3 tools/dev.py figures` rewrites.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from tools import DOCS, pictures
from tools.site import steps

# The catalogue runs in the page's Python too, to draw figures from the reader's code
# (tools/site/live.py): what reads the chapters (tools.chapter, markdown-it) is imported
# only where a chapter is read.

FOLDER = DOCS / "figures"
# As a standalone file (GitHub, VS Code), the drawing's "current colour" is this, or the
# other in a dark scheme; inside a page, the page's text colour.
STANDALONE_STYLE = (
    "<style>svg.picture{color:#1f2328}"
    "@media (prefers-color-scheme: dark){svg.picture{color:#e6edf3}}</style>"
)


@dataclass(frozen=True)
class Figure:
    name: str  # the file is docs/figures/<name>.svg
    chapter: str  # the chapter whose namespace it is drawn from, e.g. "03-backward.md"
    draw: Callable[[dict], str]  # namespace -> DOT text (a graph) or inline SVG (a plot)
    graph: bool = False  # drawn as DOT, laid out by Graphviz: in the page too, live
    steps: Callable[[dict], list[steps.Track]] | None = None  # namespace -> its step-through
    nudges: Callable[[dict], dict] | None = None  # namespace -> its nudge control's data

    @property
    def path(self) -> Path:
        return FOLDER / f"{self.name}.svg"

    def svg(self, namespace: dict) -> str:
        """The figure drawn from ``namespace``, as inline SVG (tools.pictures)."""
        drawing = self.draw(namespace)
        return pictures.svg_from_dot(drawing) if self.graph else drawing


FIGURES: dict[str, Figure] = {}


def figure(chapter: str, name: str, *, graph: bool = False):
    """Register ``draw(namespace) -> svg`` as the figure ``name`` of ``chapter``; with
    ``graph``, ``draw`` returns DOT text instead, which Graphviz lays out."""

    def register(draw):
        FIGURES[name] = Figure(name, chapter, draw, graph)
        return draw

    return register


def graph_figure(chapter: str, name: str):
    """Register ``draw(namespace) -> DOT text`` as the graph figure ``name`` of ``chapter``."""
    return figure(chapter, name, graph=True)


def steps_of(name: str):
    """Register ``record(namespace) -> [Track, ...]`` as the step-through of figure ``name``
    (registered above it): the tracks the figure's step controls play side by side."""

    def register(record):
        FIGURES[name] = replace(FIGURES[name], steps=record)
        return record

    return register


def nudges_of(name: str):
    """Register ``nudges(namespace) -> data`` as the data of the nudge control under figure
    ``name`` (docs/assets/nudge/nudge.js): for a choice of nudges, how far the output moves."""

    def register(nudges):
        FIGURES[name] = replace(FIGURES[name], nudges=nudges)
        return nudges

    return register


def unique_ids(svg: str, name: str) -> str:
    """Prefix every id in the SVG with the figure's name: several figures share a page."""
    for old in set(re.findall(r'\bid="([^"]+)"', svg)):
        svg = re.sub(rf'(\bid="|#){re.escape(old)}(?=[")])', rf"\g<1>{name}-{old}", svg)
    return svg


def standalone(svg: str, name: str) -> str:
    """The SVG as a file: with an XML namespace, ids of its own, and its own colours."""
    svg = unique_ids(svg, name)
    root = svg[: svg.index(">")]
    if 'xmlns="http://www.w3.org/2000/svg"' not in root:  # matplotlib and graphviz have it
        svg = svg.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1)
    head_end = svg.index(">") + 1
    return svg[:head_end] + STANDALONE_STYLE + svg[head_end:] + "\n"


# --- drawing -----------------------------------------------------------------------------


def dot_of(root, names, *, locals_=None) -> str:
    """graph_dot of ``root``; ``locals_`` restores spent local derivatives for it."""
    from micrograd import graph_dot

    spent = {node: node._local for node in root.topo()}
    try:
        for node, local in (locals_ or {}).items():
            node._local = local
        return graph_dot(root, names)
    finally:
        for node, local in spent.items():
            node._local = local


def saved_locals(root) -> dict:
    """Each node's local derivatives, before backward() spends them."""
    return {node: node._local for node in root.topo()}


def track(
    figure: str,
    recording: steps.Recording,
    dot_names: dict[int, str],
    *,
    title: str = "",
    readouts: dict[int, str] | None = None,
    texts: tuple[tuple[str, str, str], ...] = (),
    result: tuple[str, ...] = (),
    one_arrow: bool = False,
) -> steps.Track:
    """How ``figure`` shows ``recording``: node i is the DOT node ``dot_names[i]`` (nodes
    not in it are not drawn), and each edge is the figure's arrow between those two nodes
    (the k-th arrow for the k-th edge, or with ``one_arrow`` the only one). ``readouts``:
    node i's box has a line ``prefix`` + its gradient; ``texts``: (a DOT cluster, prefix,
    a node's name) for a gradient in a cluster's title. ``result``: names of the nodes
    whose final gradients the last step states. Ids are tools/pictures.py's."""
    index = {name: i for i, name in enumerate(recording.names)}
    boxes = {i: f"{figure}-node-{dot}" for i, dot in dot_names.items()}
    edges = {}
    for step in recording.steps:
        seen: dict[int, int] = {}
        for edge in step.edges:
            k = seen[edge.operand] = seen.get(edge.operand, 0) + 1
            ends = (dot_names.get(edge.operand), dot_names.get(step.node))
            if None not in ends:
                again = f"-{k}" if k > 1 and not one_arrow else ""
                edges[edge.operand, step.node, k] = f"{figure}-edge-{ends[0]}-{ends[1]}{again}"
    shown = [steps.Readout(boxes[i], prefix, i) for i, prefix in (readouts or {}).items()]
    shown += [
        steps.Readout(f"{figure}-cluster-{cluster}", prefix, index[name])
        for cluster, prefix, name in texts
    ]
    return steps.Track(
        recording, title, boxes, edges, tuple(shown), tuple(index[name] for name in result)
    )


def _diamond(x_value=3.0):
    from micrograd import Value

    x = Value(x_value)
    a = x * x
    b, c = 2 * a, 3 * a
    return {"x": x, "a": a, "b": b, "c": c, "L": b + c}


def _names(nodes: dict) -> dict:
    return {node: name for name, node in nodes.items()}


def _slope(function, x: float) -> float:
    """d function / dx at ``x``, as the engine computes it (a Value through ``function``)."""
    from micrograd import Value

    leaf = Value(x)
    function(leaf).backward()
    return leaf.grad


@figure("01-what-autograd-records.md", "01-nudge")
def nudge_and_tangent(ns):
    """Chapter 1's L(x) around its x, the tangent there, and the chapter's nudge."""
    loss_of, x, h = ns["L_of"], ns["x"], ns["nudge"]
    slope, at = _slope(loss_of, x), loss_of(x)

    def draw(ax):
        xs = [x - 1 + k * (1.25 + h) / 100 for k in range(101)]  # to a little past x + h
        ax.plot(xs, [loss_of(v) for v in xs], color="C0", label="L(x)")
        tangent = [at + slope * (v - x) for v in xs]
        ax.plot(xs, tangent, "--", color="C1", label=f"tangent at x = {x:g}: slope {slope:g}")
        ax.plot([x, x + h], [at, at], color=pictures.TEXT_COLOUR, linewidth=0.8)
        ax.plot([x + h] * 2, [at, loss_of(x + h)], color="C0", linewidth=2.5)
        ax.plot([x + h] * 2, [at, at + slope * h], color="C1", linewidth=5, alpha=0.5)
        ax.plot([x, x + h], [at, loss_of(x + h)], "o", color=pictures.TEXT_COLOUR, markersize=4)
        ax.annotate(
            f"nudge {h:g}",
            (x + h / 2, at),
            xytext=(0, -14),
            textcoords="offset points",
            ha="center",
        )
        ax.annotate(
            f"L moves {loss_of(x + h) - at:g}",
            (x + h, loss_of(x + h)),
            xytext=(-8, 4),
            textcoords="offset points",
            ha="right",
        )
        ax.annotate(
            f"gradient {steps.TIMES} nudge = {slope * h:g}",
            (x + h, at + slope * h / 2),
            xytext=(6, -6),
            textcoords="offset points",
            va="center",
        )
        ax.set_xlabel("x")
        ax.set_ylabel("L")
        ax.legend(loc="upper left")

    return pictures.plot_svg(draw, name="01-nudge", size=(6.0, 3.6))


NUDGES = (-1.0, -0.5, -0.2, -0.1, -0.01, 0.01, 0.1, 0.2, 0.5, 1.0)  # what the control offers


@nudges_of("01-nudge")
def nudges_of_x(ns):
    """For each of NUDGES, how far L moves, beside the gradient (from the engine) times it."""
    loss_of, x = ns["L_of"], ns["x"]
    slope, at = _slope(loss_of, x), loss_of(x)
    rows = [{"h": h, "moved": loss_of(x + h) - at, "predicted": slope * h} for h in NUDGES]
    return {"x": x, "L": at, "grad": slope, "nudges": rows, "start": NUDGES.index(ns["nudge"])}


@graph_figure("01-what-autograd-records.md", "01-diamond")
def chain_rule_by_hand(ns):
    """Chapter 1's hand computation: values in the boxes, local derivatives on the arrows."""
    g = {k: f"{ns[k]:g}" for k in ("x", "a", "b", "c", "L", "dL_da", "dL_dx", "da_dx")}
    dot = f"""digraph chain_rule {{
  rankdir=LR;
  node [shape=box, style=rounded];
  x [label="x = {g["x"]}\\ndL/dx = {g["dL_dx"]}"];
  a [label="a = x·x = {g["a"]}\\ndL/da = {g["dL_da"]}"];
  b [label="b = 2a = {g["b"]}\\ndL/db = 1"];
  c [label="c = 3a = {g["c"]}\\ndL/dc = 1"];
  L [label="L = b + c = {g["L"]}\\ndL/dL = 1"];
  x -> a [label="da/dx = 2x = {g["da_dx"]}"];
  a -> b [label="db/da = 2"];
  a -> c [label="dc/da = 3"];
  b -> L [label="dL/db = 1"];
  c -> L [label="dL/dc = 1"];
}}"""
    return dot


@steps_of("01-diamond")
def chain_rule_by_the_engine(ns):
    """The same diamond built from Values at the chapter's x, run backward step by step."""
    nodes = _diamond(ns["x"])
    recording = steps.record(nodes["L"], _names(nodes))
    drawn = {i: name for i, name in enumerate(recording.names) if name in nodes}
    return [
        track(
            "01-diamond",
            recording,
            drawn,
            readouts={i: f"dL/d{name} = " for i, name in drawn.items()},
            result=("x",),
            one_arrow=True,  # the figure draws x -> a once, with 2x: the engine's two edges
        )
    ]


@graph_figure("02-the-value-atom.md", "02-square")
def square_pushed(ns):
    from micrograd import Value

    x = Value(3.0)
    square = x * x
    ns["push"](square)  # the chapter's own helper: seed 1 and push one step
    return dot_of(square, {x: "x", square: "x * x"})


def node_consumers(names: dict) -> list:
    """The nodes named b and c: the two consumers of a in the diamond."""
    return [node for node, name in names.items() if name in ("b", "c")]


@graph_figure("03-backward.md", "03-careless-walk")
def careless_walk(ns):
    """The diamond three times: each node numbered in the order a walk released it."""
    runs = []
    for title, walk in [
        ("careless, b first", lambda root: ns["careless_backward"](root)),
        ("careless, c first", lambda root: ns["careless_backward"](root, False)),
        ("reverse topological order", lambda root: (root.backward(), root.topo()[::-1])[1]),
    ]:
        x, a, root = ns["diamond"]()
        names = {x: "x", a: "a", root: "L", root._prev[0]: "b", root._prev[1]: "c"}
        order = [node for node in walk(root) if node in names]
        runs.append((title, x.grad, names, order))
    lines = ["digraph walks {", "  rankdir=TB;", "  node [shape=box];"]
    for k, (title, result, names, order) in enumerate(runs):
        lines += [f"  subgraph cluster_{k} {{", f'    label="{title}\\nx.grad = {result:g}";']
        step = {node: i + 1 for i, node in enumerate(order)}
        for node, name in names.items():
            early = name == "a" and step[node] < max(step[c] for c in node_consumers(names))
            mark = ", penwidth=2.5" if early else ""
            note = " (too early)" if early else ""
            lines.append(f'    {name}{k} [label="{name}: released {step[node]}{note}"{mark}];')
        lines += [
            f"    x{k} -> a{k}; x{k} -> a{k}; a{k} -> b{k}; a{k} -> c{k};",
            f"    b{k} -> L{k}; c{k} -> L{k};",
            "  }",
        ]
    return "\n".join([*lines, "}"])


def _neuron(ns):
    """The chapter's neuron and its loss, built afresh from its numbers; and its names."""
    from micrograd import Value

    w, x, b, y = (Value(ns[name].data) for name in "wxby")  # the chapter's fixture
    prediction = w * x + b
    residual = prediction - y
    loss = residual**2
    names = {w: "w", x: "x", b: "b", y: "y", prediction: "p", residual: "r", loss: "L"}
    return loss, names


@graph_figure("04-a-scalar-neuron.md", "04-neuron")
def scalar_neuron(ns):
    loss, names = _neuron(ns)
    local = saved_locals(loss)
    loss.backward()
    return dot_of(loss, names, locals_=local)


@steps_of("04-neuron")
def scalar_neuron_steps(ns):
    loss, names = _neuron(ns)
    product = loss._prev[0]._prev[0]._prev[0]  # L = r**2, r = p - y, p = w*x + b
    recording = steps.record(loss, {**names, product: "w·x"})
    every = dict(enumerate(f"n{i}" for i in range(len(recording.names))))  # graph_dot's
    return [
        track(
            "04-neuron",
            recording,
            every,
            readouts={i: "grad " for i, node in enumerate(loss.topo()) if node._op != "const"},
            result=("w", "b", "x", "y"),
        )
    ]


@steps_of("03-careless-walk")
def careless_walk_steps(ns):
    """The figure's three walks, each recorded on a diamond of its own, side by side."""
    tracks = []
    for k, (title, walk) in enumerate(
        [
            ("careless, b first", lambda root: ns["careless_backward"](root)),
            ("careless, c first", lambda root: ns["careless_backward"](root, False)),
            ("reverse topological order", None),
        ]
    ):
        x, a, root = ns["diamond"]()
        names = {x: "x", a: "a", root: "L", root._prev[0]: "b", root._prev[1]: "c"}
        recording = steps.record(root, names, walk=walk, leaves=True)  # as the figure numbers
        shown = set(names.values())  # the constants are not drawn
        drawn = {i: f"{name}{k}" for i, name in enumerate(recording.names) if name in shown}
        texts = ((f"cluster_{k}", "x.grad = ", "x"),)
        tracks.append(
            track("03-careless-walk", recording, drawn, title=title, texts=texts, result=("x",))
        )
    return tracks


def side_by_side(graphs: list[tuple[str, str]], rankdir: str = "LR") -> str:
    """One DOT graph holding several graph_dot texts, each in a titled box of its own."""
    lines = ["digraph figure {", f"  rankdir={rankdir};", "  node [shape=box];"]
    for k, (title, dot_text) in enumerate(graphs):
        body = dot_text.splitlines()[3:-1]  # graph_dot's own header and closing brace off
        lines += [f"  subgraph cluster_{k} {{", f'    label="{title}";']
        lines += ["  " + re.sub(r"\bn(\d+)\b", rf"g{k}n\1", line) for line in body]
        lines.append("  }")
    return "\n".join([*lines, "}"])


def structure_dot(root, names: dict) -> str:
    """The shape of the graph under root: one small box per node (its name or operation)."""
    order = root.topo()
    number = {node: i for i, node in enumerate(order)}
    lines = ["digraph structure {", "  rankdir=LR;", "  node [shape=box];"]
    for node in order:
        label = names.get(node) or (f"{node.data:g}" if node._op == "const" else node._op)
        label = label or "leaf"
        style = ", style=dashed" if node._op == "const" else ""
        lines.append(f'  n{number[node]} [label="{label}"{style}];')
        lines += [f"  n{number[operand]} -> n{number[node]};" for operand in node._prev]
    return "\n".join([*lines, "}"])


@graph_figure("05-neuron-layer-mlp.md", "05-dot")
def one_node_per_neuron(ns):
    w, x, b = ns["w"], ns["x"], ns["b"]
    names = {b: "b", **{v: f"w{i}" for i, v in enumerate(w)}}
    names |= {v: f"x{i}" for i, v in enumerate(x)}
    fused = structure_dot(ns["fused"], {**names, ns["fused"]: "dot"})
    long_way = structure_dot(ns["long_way"], names)
    return side_by_side(
        [
            (f"one dot node: {len(ns['fused'].topo())} nodes", fused),
            (f"the long way: {len(ns['long_way'].topo())} nodes", long_way),
        ],
        rankdir="TB",
    )


@steps_of("05-dot")
def one_node_per_neuron_steps(ns):
    """Both graphs of the figure, built afresh from the chapter's numbers, stepped together:
    the dot node sends all seven contributions in one step, the long way takes six."""
    Value = ns["Value"]  # noqa: N806 (the chapter's, which its dot takes)

    def leaves():  # the chapter's numbers, in fresh leaves, and their names
        w, x = ([Value(v.data) for v in ns[name]] for name in "wx")
        b = Value(ns["b"].data)
        named = {v: f"{n}{i}" for n, vs in (("w", w), ("x", x)) for i, v in enumerate(vs)}
        return w, x, b, {b: "b", **named}

    w, x, b, names = leaves()
    fused = ns["dot"](w, x, b)
    graphs = [("one dot node", fused, {**names, fused: "dot"})]
    w, x, b, names = leaves()
    total = b
    for i, (wi, xi) in enumerate(zip(w, x)):  # b + w[0] * x[0] + ..., as the chapter adds
        product = wi * xi
        total = total + product
        names |= {product: f"w{i}·x{i}", total: f"s{i + 1}"}
    graphs.append(("the long way", total, names))
    tracks = []
    for k, (title, root, called) in enumerate(graphs):
        recording = steps.record(root, called)
        every = {i: f"g{k}n{i}" for i in range(len(recording.names))}
        tracks.append(track("05-dot", recording, every, title=title))
    return tracks


@figure("05-neuron-layer-mlp.md", "05-loss")
def four_point_loss(ns):
    return pictures.line_plot_svg(
        {"sum of squared errors": ns["losses"]}, name="05-loss", ylabel="loss", logy=True
    )


@figure("06-softmax-cross-entropy.md", "06-softmax")
def probabilities_and_gradients(ns):
    p, grads = ns["p"], [v.grad for v in ns["logits"]]

    def draw(ax):
        where = range(len(p))
        ax.bar([i - 0.2 for i in where], p, width=0.4, label="probability p", color="C0")
        ax.bar([i + 0.2 for i in where], grads, width=0.4, label="gradient", color="C1")
        ax.axhline(0, color=pictures.TEXT_COLOUR, linewidth=0.8)
        ax.set_xticks(
            list(where),
            [
                f"logit {v:g}" + (" (target)" if i == ns["target"] else "")
                for i, v in enumerate(ns["values"])
            ],
        )
        ax.legend()

    return pictures.plot_svg(draw, name="06-softmax", size=(6.0, 3.2))


@graph_figure("07-drawing-the-graph.md", "07-diamond")
def graph_dot_of_the_diamond(ns):
    nodes = _diamond(ns["x"].data)  # the chapter's x, as the reader may have changed it
    local = saved_locals(nodes["L"])
    nodes["L"].backward()
    return dot_of(nodes["L"], _names(nodes), locals_=local)


@graph_figure("08-failure-cases.md", "08-cut")
def the_cut_graph(ns):
    cut, intact = ns["cut"], ns["intact"]
    return side_by_side(
        [
            (f"built on a copied number: {len(cut.topo())} nodes", structure_dot(cut, {})),
            (f"built on the prediction: {len(intact.topo())} nodes", structure_dot(intact, {})),
        ],
        rankdir="TB",
    )


@figure("08-failure-cases.md", "08-kept")
def nodes_kept_alive(ns):
    kept = ns["train_and_log"](keep_values=True)
    alive, counts = set(), []
    for loss in kept:
        alive.update(loss.topo())
        counts.append(len(alive))
    return pictures.line_plot_svg(
        {"logging loss (the Value)": counts, "logging loss.data": [0] * len(counts)},
        name="08-kept",
        ylabel="nodes kept alive",
    )


MOONS = ("outer moon", "inner moon")


@figure("09-two-moons.md", "09-data")
def the_two_moons(ns):
    groups = {"training": (ns["X_train"], ns["Y_train"]), "held out": (ns["X_held"], ns["Y_held"])}
    return pictures.scatter_svg(groups, name="09-data", labels=MOONS)


@figure("09-two-moons.md", "09-training")
def training_curves(ns):
    return pictures.line_plot_svg(
        {"loss": ns["losses"], "training accuracy": ns["accuracies"]}, name="09-training"
    )


@figure("09-two-moons.md", "09-boundary")
def decision_boundary(ns):
    model = ns["model"]
    groups = {"training": (ns["X_train"], ns["Y_train"]), "held out": (ns["X_held"], ns["Y_held"])}
    return pictures.scatter_svg(
        groups,
        name="09-boundary",
        labels=MOONS,
        boundary=lambda x, y: model([x, y]).data,
        resolution=50,
    )


@graph_figure("12-forward-and-reverse-mode.md", "12-sweeps")
def forward_and_reverse_sweeps(ns):
    """The graph of f twice: tangents pushed forward from x1, cotangents pulled back from f1."""
    from micrograd import Value

    dual, point = ns["Dual"], ns["point"]

    def trace(x1, x2, x3):  # f of the chapter, with its intermediates named
        s = x1 * x2
        t = x3.tanh()
        p = s * x3
        return {"x1": x1, "x2": x2, "x3": x3, "s": s, "t": t, "p": p, "f1": s + t, "f2": p.exp()}

    ahead = trace(*(dual(v, 1.0 if k == 0 else 0.0) for k, v in enumerate(point)))
    back = trace(*(Value(v) for v in point))
    back["f1"].backward()
    edges = [
        ("x1", "s"),
        ("x2", "s"),
        ("x3", "t"),
        ("s", "p"),
        ("x3", "p"),
        ("s", "f1"),
        ("t", "f1"),
        ("p", "f2"),
    ]
    names = {
        "s": "s = x1 x2",
        "t": "t = tanh x3",
        "p": "p = s x3",
        "f1": "f1 = s + t",
        "f2": "f2 = exp p",
    }
    lines = ["digraph sweeps {", "  rankdir=LR;", "  node [shape=box];"]
    sweeps = [  # graphviz stacks the boxes bottom up: reverse first puts forward on top
        ("reverse: cotangents, seeded on f1 (1 of 2 passes)", back, "cotangent", "back"),
        ("forward: tangents, seeded on x1 (1 of 3 passes)", ahead, "tangent", "forward"),
    ]
    for k, (title, nodes, kind, direction) in enumerate(sweeps):
        lines += [f"  subgraph cluster_{k} {{", f'    label="{title}";']
        for name, node in nodes.items():
            number, carried = (
                (node.value, node.tangent) if kind == "tangent" else (node.data, node.grad)
            )
            lines.append(
                f'    {name}{k} [label="{names.get(name, name)}\\nvalue {number:.3g}\\n'
                f'{kind} {carried:.3g}"];'
            )
        lines += [f"    {a}{k} -> {b}{k} [dir={direction}];" for a, b in edges]
        lines.append("  }")
    return "\n".join([*lines, "}"])


@figure("appendix-making-it-fast.md", "appendix-variants")
def time_per_variant(ns):
    """Time per step of each variant, split into the collector's share and the rest."""
    variants = ns["variants"]
    names = list(variants)
    total = [variants[n]["ms per step"] for n in names]
    in_gc = [t * variants[n]["collector share"] for t, n in zip(total, names)]

    def draw(ax):
        where = range(len(names))
        ax.barh(where, [t - g for t, g in zip(total, in_gc)], color="C0", label="the engine")
        ax.barh(
            where,
            in_gc,
            left=[t - g for t, g in zip(total, in_gc)],
            color="C1",
            label="the garbage collector",
        )
        ax.set_yticks(list(where), names)
        ax.invert_yaxis()
        ax.set_xlabel("milliseconds per training step (median)")
        ax.legend(loc="lower right")

    return pictures.plot_svg(draw, name="appendix-variants", size=(7.5, 3.0))


@graph_figure("13-dynamic-static-captured.md", "13-branches")
def the_branch_taken(ns):
    from micrograd import Value, graph_dot

    runs = []
    for start in (2.0, -2.0):
        x, y, z = Value(start), Value(5.0), Value(-7.0)
        out = ns["branchy"](x, y, z)
        out.backward()
        runs.append((f"branchy at x = {start:g}", graph_dot(out, {x: "x", y: "y", z: "z"})))
    return side_by_side(runs, rankdir="TB")


# --- drawing each figure from its chapter ---------------------------------------------


def line_showing(lines: list[str], name: str) -> int | None:
    """The first line (from 1) of ``lines`` that shows figure ``name``, or None."""
    needle = f"(figures/{name}.svg)"
    return next((number for number, line in enumerate(lines, 1) if needle in line), None)


def shown_at(figure: Figure) -> int:
    """The line of the figure's chapter that shows it: ![...](figures/<name>.svg)."""
    from tools.chapter import Chapter

    found = line_showing(Chapter.read(DOCS / figure.chapter).lines, figure.name)
    if found is None:
        raise RuntimeError(f"docs/{figure.chapter} does not show figures/{figure.name}.svg")
    return found


def namespaces(figures: list[Figure]) -> Iterator[tuple[Figure, dict]]:
    """Each figure with its chapter's namespace as it stands where the chapter shows the
    figure: the fences above it have run, the ones below (exercises that reuse a name,
    say) have not. One run of each chapter serves all of its figures. Fences that need an
    optional module (PyTorch) do not run: a figure is the same with or without it."""
    from tools.notebook import Notebook

    for chapter in sorted({f.chapter for f in figures}):
        book = Notebook(DOCS / chapter, optional=False)
        for figure in sorted((f for f in figures if f.chapter == chapter), key=shown_at):
            line = shown_at(figure)
            book.run_until(sum(1 for cell in book.cells if cell.line < line))
            if book.failure:
                raise RuntimeError(f"cannot draw {figure.name}: {book.failure}")
            yield figure, book.namespace


def drawn(names: list[str] | None = None) -> dict[str, str]:
    """name -> the text its file should hold, for the given figures (default: all)."""
    figures = [FIGURES[n] for n in (names or FIGURES)]
    return {f.name: standalone(f.svg(ns), f.name) for f, ns in namespaces(figures)}


def recorded(names: list[str] | None = None) -> dict[str, list[steps.Track]]:
    """name -> its step-through, for the given figures that have one (default: all)."""
    figures = [FIGURES[n] for n in (names or FIGURES) if FIGURES[n].steps]
    return {f.name: f.steps(ns) for f, ns in namespaces(figures)}


def nudged(names: list[str]) -> dict[str, dict]:
    """name -> its nudge control's data, for the given figures that have one."""
    figures = [FIGURES[n] for n in names if FIGURES[n].nudges]
    return {f.name: f.nudges(ns) for f, ns in namespaces(figures)}


def with_data_in(chapter: str) -> list[str]:
    """The figures of ``chapter`` whose page carries data for a control: steps, nudges."""
    return [n for n, f in FIGURES.items() if f.chapter == chapter and (f.steps or f.nudges)]


def stepped_in(chapter: str) -> list[str]:
    """The figures of ``chapter`` (a file name in docs/) that have a step-through."""
    return [name for name, f in FIGURES.items() if f.chapter == chapter and f.steps]


# --- the steps of a figure as a table in its chapter ------------------------------------

STEPS_SUMMARY = "Figure {number}, step by step: the table of its backward pass"


def steps_block(tracks: list[steps.Track]) -> str:
    """What goes between a figure's two step comments in its chapter (blank lines round)."""
    return "\n" + steps.table(tracks) + "\n"


def steps_opening(name: str) -> str:
    return (
        f"<!-- steps of figures/{name}.svg: written by `python3 tools/dev.py figures`, "
        "do not edit -->"
    )


def with_step_tables(path: Path, tables: dict[str, str]) -> str:
    """The chapter's text with each figure's steps block made ``tables[name]`` (from
    ``steps_block``). A figure that has none yet gets one, folded, after the paragraph
    below the figure (its caption); a block of a figure not in ``tables`` is left alone."""
    from tools.chapter import GENERATED_CLOSE, Chapter

    chapter = Chapter.read(path)
    lines = chapter.text.splitlines(keepends=True)
    have = {block.name: block for block in chapter.generated}
    edits = []  # (first line, last line, 0-based and inclusive/exclusive, new lines)
    for name, text in tables.items():
        block = have.get(name)
        if block is not None and block.end:
            edits.append((block.line, block.end - 1, text.splitlines(keepends=True)))
            continue
        figure = FIGURES[name]
        at = shown_at(figure)  # 1-based line of the image; the caption paragraph after it
        after = at
        if (
            after + 1 < len(lines)
            and lines[after].strip() == ""
            and lines[after + 1].startswith("*")
        ):
            after += 1
            while after < len(lines) and lines[after].strip():
                after += 1
        number = re.match(r"\*Figure (\d+)\.", lines[at + 1]) if at + 1 < len(lines) else None
        summary = STEPS_SUMMARY.format(number=number[1] if number else "").replace(
            "Figure , ", "The figure, "
        )
        new = [
            "\n",
            '<details markdown="1">\n',
            f"<summary>{summary}</summary>\n",
            "\n",
            steps_opening(name) + "\n",
            *text.splitlines(keepends=True),
            GENERATED_CLOSE + "\n",
            "\n",
            "</details>\n",
        ]
        edits.append((after, after, new))
    for first, last, new in sorted(edits, key=lambda edit: -edit[0]):
        lines[first:last] = new
    return "".join(lines)
