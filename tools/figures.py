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
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tools import DOCS, pictures
from tools.chapter import Chapter

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
    draw: Callable[[dict], str]  # namespace -> inline SVG (tools.pictures)

    @property
    def path(self) -> Path:
        return FOLDER / f"{self.name}.svg"


FIGURES: dict[str, Figure] = {}


def figure(chapter: str, name: str):
    """Register ``draw(namespace) -> svg`` as the figure ``name`` of ``chapter``."""

    def register(draw):
        FIGURES[name] = Figure(name, chapter, draw)
        return draw

    return register


def _unique_ids(svg: str, name: str) -> str:
    """Prefix every id in the SVG with the figure's name: several figures share a page."""
    for old in set(re.findall(r'\bid="([^"]+)"', svg)):
        svg = re.sub(rf'(\bid="|#){re.escape(old)}(?=[")])', rf"\g<1>{name}-{old}", svg)
    return svg


def standalone(svg: str, name: str) -> str:
    """The SVG as a file: with an XML namespace, ids of its own, and its own colours."""
    svg = _unique_ids(svg, name)
    root = svg[: svg.index(">")]
    if 'xmlns="http://www.w3.org/2000/svg"' not in root:  # matplotlib and graphviz have it
        svg = svg.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1)
    head_end = svg.index(">") + 1
    return svg[:head_end] + STANDALONE_STYLE + svg[head_end:] + "\n"


# --- drawing -----------------------------------------------------------------------------


def graph(root, names, *, locals_=None) -> str:
    """graph_dot of ``root`` as SVG; ``locals_`` restores spent local derivatives for it."""
    from micrograd import graph_dot

    spent = {node: node._local for node in root.topo()}
    try:
        for node, local in (locals_ or {}).items():
            node._local = local
        return pictures.svg_from_dot(graph_dot(root, names))
    finally:
        for node, local in spent.items():
            node._local = local


def saved_locals(root) -> dict:
    """Each node's local derivatives, before backward() spends them."""
    return {node: node._local for node in root.topo()}


def _diamond(x_value=3.0):
    from micrograd import Value

    x = Value(x_value)
    a = x * x
    b, c = 2 * a, 3 * a
    return {"x": x, "a": a, "b": b, "c": c, "L": b + c}


def _names(nodes: dict) -> dict:
    return {node: name for name, node in nodes.items()}


@figure("01-what-autograd-records.md", "01-diamond")
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
    return pictures.svg_from_dot(dot)


@figure("02-the-value-atom.md", "02-square")
def square_pushed(ns):
    from micrograd import Value

    x = Value(3.0)
    square = x * x
    ns["push"](square)  # the chapter's own helper: seed 1 and push one step
    return graph(square, {x: "x", square: "x * x"})


def node_consumers(names: dict) -> list:
    """The nodes named b and c: the two consumers of a in the diamond."""
    return [node for node, name in names.items() if name in ("b", "c")]


@figure("03-backward.md", "03-careless-walk")
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
    return pictures.svg_from_dot("\n".join([*lines, "}"]))


@figure("04-a-scalar-neuron.md", "04-neuron")
def scalar_neuron(ns):
    from micrograd import Value

    w, x, b, y = (Value(ns[name].data) for name in "wxby")  # the chapter's fixture
    prediction = w * x + b
    residual = prediction - y
    loss = residual**2
    local = saved_locals(loss)
    loss.backward()
    names = {w: "w", x: "x", b: "b", y: "y", prediction: "p", residual: "r", loss: "L"}
    return graph(loss, names, locals_=local)


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


@figure("05-neuron-layer-mlp.md", "05-dot")
def one_node_per_neuron(ns):
    w, x, b = ns["w"], ns["x"], ns["b"]
    names = {b: "b", **{v: f"w{i}" for i, v in enumerate(w)}}
    names |= {v: f"x{i}" for i, v in enumerate(x)}
    fused = structure_dot(ns["fused"], {**names, ns["fused"]: "dot"})
    long_way = structure_dot(ns["long_way"], names)
    return pictures.svg_from_dot(
        side_by_side(
            [
                (f"one dot node: {len(ns['fused'].topo())} nodes", fused),
                (f"the long way: {len(ns['long_way'].topo())} nodes", long_way),
            ],
            rankdir="TB",
        )
    )


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


@figure("07-drawing-the-graph.md", "07-diamond")
def graph_dot_of_the_diamond(ns):
    nodes = _diamond()
    local = saved_locals(nodes["L"])
    nodes["L"].backward()
    return graph(nodes["L"], _names(nodes), locals_=local)


@figure("08-failure-cases.md", "08-cut")
def the_cut_graph(ns):
    cut, intact = ns["cut"], ns["intact"]
    return pictures.svg_from_dot(
        side_by_side(
            [
                (f"built on a copied number: {len(cut.topo())} nodes", structure_dot(cut, {})),
                (f"built on the prediction: {len(intact.topo())} nodes", structure_dot(intact, {})),
            ],
            rankdir="TB",
        )
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


@figure("12-forward-and-reverse-mode.md", "12-sweeps")
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
    return pictures.svg_from_dot("\n".join([*lines, "}"]))


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


@figure("13-dynamic-static-captured.md", "13-branches")
def the_branch_taken(ns):
    from micrograd import Value, graph_dot

    runs = []
    for start in (2.0, -2.0):
        x, y, z = Value(start), Value(5.0), Value(-7.0)
        out = ns["branchy"](x, y, z)
        out.backward()
        runs.append((f"branchy at x = {start:g}", graph_dot(out, {x: "x", y: "y", z: "z"})))
    return pictures.svg_from_dot(side_by_side(runs, rankdir="TB"))


# --- drawing each figure from its chapter ---------------------------------------------


def shown_at(figure: Figure) -> int:
    """The line of the figure's chapter that shows it: ![...](figures/<name>.svg)."""
    lines = Chapter.read(DOCS / figure.chapter).lines
    needle = f"(figures/{figure.name}.svg)"
    found = [number for number, line in enumerate(lines, 1) if needle in line]
    if not found:
        raise RuntimeError(f"docs/{figure.chapter} does not show figures/{figure.name}.svg")
    return found[0]


def drawn(names: list[str] | None = None) -> dict[str, str]:
    """name -> the text its file should hold, for the given figures (default: all).

    A figure is drawn from its chapter's namespace as it stands where the chapter shows
    the figure: the fences above it have run, the ones below (exercises that reuse a name,
    say) have not. One run of each chapter serves all of its figures."""
    from tools.notebook import Notebook

    figures = sorted((FIGURES[n] for n in (names or FIGURES)), key=lambda f: f.chapter)
    result = {}
    for chapter in sorted({f.chapter for f in figures}):
        book = Notebook(DOCS / chapter)
        for figure in sorted((f for f in figures if f.chapter == chapter), key=shown_at):
            line = shown_at(figure)
            book.run_until(sum(1 for cell in book.cells if cell.line < line))
            if book.failure:
                raise RuntimeError(f"cannot draw {figure.name}: {book.failure}")
            result[figure.name] = standalone(figure.draw(book.namespace), figure.name)
    return result
