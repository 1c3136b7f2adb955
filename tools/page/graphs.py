"""The book's graph figures, one function each: DOT drawn with the engine from a namespace,
the chapter's at build time or the reader's in the page (live.py), with the step-throughs
of some (steps.py, ``track``). The engine is imported where a figure is drawn: whichever
``micrograd`` runs the chapter then.
"""

import re

from . import steps
from .figures import figure, steps_of


def dot_after_backward(root, names) -> str:
    """graph_dot of the fresh graph under ``root`` after ``root.backward()``, with the local
    derivatives that backward() spends put back, to be drawn."""
    from micrograd import graph_dot

    saved = {node: node._local for node in root.topo()}
    root.backward()
    for node, local in saved.items():
        node._local = local
    return graph_dot(root, names)


def digraph(name: str, rankdir: str, body: list[str]) -> str:
    """A DOT graph of boxes laid out towards ``rankdir``, its statements ``body``."""
    return "\n".join(
        [f"digraph {name} {{", f"  rankdir={rankdir};", "  node [shape=box];", *body, "}"]
    )


def cluster(k: int, title: str, body: list[str]) -> list[str]:
    """The statements of a titled box ``k`` of a DOT graph, holding ``body``."""
    return [f"  subgraph cluster_{k} {{", f'    label="{title}";', *body, "  }"]


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
    by_hand: bool = False,
) -> steps.Track:
    """How ``figure`` shows ``recording``: node i is the DOT node ``dot_names[i]`` (nodes
    not in it are not drawn), and each edge is the figure's arrow between those two nodes
    (the k-th arrow for the k-th edge, or with ``one_arrow`` the only one). ``readouts``:
    node i's box has a line ``prefix`` + its gradient; ``texts``: (a DOT cluster, prefix,
    a node's name) for a gradient in a cluster's title. ``result``: names of the nodes
    whose final gradients the last step states. ``by_hand``: the figure is of a computation
    done by hand (see steps.Track). Ids are svg.py's."""
    index = {name: i for i, name in enumerate(recording.names)}
    boxes = {i: f"{figure}-node-{dot}" for i, dot in dot_names.items()}
    edges = {}
    for step in recording.steps:
        for edge in step.edges:
            ends = (dot_names.get(edge.operand), dot_names.get(step.node))
            if None not in ends:
                again = f"-{edge.k}" if edge.k > 1 and not one_arrow else ""
                drawn = f"{figure}-edge-{ends[0]}-{ends[1]}{again}"
                edges[edge.operand, step.node, edge.k] = drawn
    shown = [steps.Readout(boxes[i], prefix, i) for i, prefix in (readouts or {}).items()]
    shown += [
        steps.Readout(f"{figure}-cluster-{cluster}", prefix, index[name])
        for cluster, prefix, name in texts
    ]
    stated = tuple(index[name] for name in result)
    return steps.Track(recording, title, boxes, edges, tuple(shown), stated, by_hand)


def _diamond(x_value: float):
    """Chapter 1's diamond at ``x_value``, built from Values: its root L, and its names."""
    from micrograd import Value

    x = Value(x_value)
    a = x * x
    b, c = 2 * a, 3 * a
    root = b + c
    return root, {x: "x", a: "a", b: "b", c: "c", root: "L"}


def _neuron_names(w, x, b) -> dict:
    """What chapter 6 calls a neuron's bias, weights and inputs."""
    return {b: "b", **{v: f"{n}{i}" for n, vs in (("w", w), ("x", x)) for i, v in enumerate(vs)}}


@figure("01-what-autograd-records.md", "01-diamond", graph=True)
def chain_rule_by_hand(ns):
    """Chapter 1's hand computation: values in the boxes, local derivatives on the arrows."""
    g = {k: f"{ns[k]:g}" for k in ("x", "a", "b", "c", "L", "dL_da", "dL_dx", "da_dx")}
    return f"""digraph chain_rule {{
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


@steps_of("01-diamond")
def chain_rule_by_the_engine(ns):
    """The same diamond built from Values at the chapter's x, run backward step by step."""
    root, names = _diamond(ns["x"])
    recording = steps.record(root, names)
    drawn = {i: name for i, name in enumerate(recording.names) if name in names.values()}
    return [
        track(
            "01-diamond",
            recording,
            drawn,
            readouts={i: f"dL/d{name} = " for i, name in drawn.items()},
            result=("x",),
            one_arrow=True,  # the figure draws x -> a once, with 2x: the engine's two edges
            by_hand=True,  # chapter 1 has no engine yet, and its figure no constants
        )
    ]


@figure("02-the-value-atom.md", "02-neuron", graph=True)
def first_neuron(ns):
    """Chapter 2's neuron, built afresh from the chapter's numbers, after backward()."""
    from micrograd import Value

    x1, x2, w1, w2, b = (Value(ns[name].data) for name in ("x1", "x2", "w1", "w2", "b"))
    x1w1, x2w2 = x1 * w1, x2 * w2
    n = x1w1 + x2w2 + b
    names = {x1: "x1", x2: "x2", w1: "w1", w2: "w2", b: "b", x1w1: "x1*w1", x2w2: "x2*w2"}
    return dot_after_backward(n, {**names, n: "n"})


def _walked(ns) -> list:
    """Chapter 3's three walks, each recorded on a fresh diamond of the chapter's (x, a, b, c,
    L), every named node a step where the walk releases it: (title, recording, names)."""
    walks = [
        ("careless, b first", lambda root: ns["careless_backward"](root)),
        ("careless, c first", lambda root: ns["careless_backward"](root, False)),
        ("reverse topological order", None),  # the engine's own order
    ]
    walked = []
    for title, walk in walks:
        x, a, root = ns["diamond"]()
        names = {x: "x", a: "a", root: "L", root._prev[0]: "b", root._prev[1]: "c"}
        walked.append((title, steps.record(root, names, walk=walk, leaves=True), names))
    return walked


@figure("03-backward.md", "03-careless-walk", graph=True, key=2)  # reverse topological
def careless_walk(ns):
    """The diamond three times: each node numbered in the order a walk released it, and
    marked where it ran before all its consumers had sent it their share (Step.waiting)."""
    lines = []
    for k, (title, recorded, names) in enumerate(_walked(ns)):
        released = {recorded.names[s.node]: (n, s.waiting) for n, s in enumerate(recorded.steps, 1)}
        boxes = []
        for name in names.values():
            n, early = released[name]
            mark, note = (", penwidth=2.5", " (too early)") if early else ("", "")
            boxes.append(f'    {name}{k} [label="{name}: released {n}{note}"{mark}];')
        boxes += [
            f"    x{k} -> a{k}; x{k} -> a{k}; a{k} -> b{k}; a{k} -> c{k};",
            f"    b{k} -> L{k}; c{k} -> L{k};",
        ]
        x_grad = recorded.final[recorded.names.index("x")]
        lines += cluster(k, f"{title}\\nx.grad = {x_grad:g}", boxes)
    return digraph("walks", "TB", lines)


def _neuron(ns):
    """The chapter's neuron and its loss, built afresh from its numbers; and its names."""
    from micrograd import Value

    w, x, b, y = (Value(ns[name].data) for name in "wxby")  # the chapter's fixture
    prediction = w * x + b
    residual = prediction - y
    loss = residual**2
    names = {w: "w", x: "x", b: "b", y: "y", prediction: "p", residual: "r", loss: "L"}
    return loss, names


@figure("05-a-scalar-neuron.md", "05-neuron", graph=True)
def scalar_neuron(ns):
    return dot_after_backward(*_neuron(ns))


@steps_of("05-neuron")
def scalar_neuron_steps(ns):
    loss, names = _neuron(ns)
    product = loss._prev[0]._prev[0]._prev[0]  # L = r**2, r = p - y, p = w*x + b
    recording = steps.record(loss, {**names, product: "w·x"})
    every = dict(enumerate(f"n{i}" for i in range(len(recording.names))))  # graph_dot's
    readouts = {i: "grad " for i, node in enumerate(loss.topo()) if node._op != "const"}
    return [track("05-neuron", recording, every, readouts=readouts, result=("w", "b", "x", "y"))]


@steps_of("03-careless-walk")
def careless_walk_steps(ns):
    """The figure's three walks, each recorded on a diamond of its own, side by side."""
    tracks = []
    for k, (title, recording, names) in enumerate(_walked(ns)):
        drawn = {i: f"{n}{k}" for i, n in enumerate(recording.names) if n in names.values()}
        texts = ((f"cluster_{k}", "x.grad = ", "x"),)  # x's gradient, in its panel's title
        walk = track("03-careless-walk", recording, drawn, title=title, texts=texts, result=("x",))
        tracks.append(walk)
    return tracks


def side_by_side(graphs: list[tuple[str, str]], rankdir: str = "LR") -> str:
    """One DOT graph holding several graph_dot texts, each in a titled box of its own."""
    lines = []
    for k, (title, dot_text) in enumerate(graphs):
        body = dot_text.splitlines()[3:-1]  # graph_dot's own header and closing brace off
        lines += cluster(k, title, ["  " + re.sub(r"\bn(\d+)\b", rf"g{k}n\1", b) for b in body])
    return digraph("figure", rankdir, lines)


def structure_dot(root, names: dict) -> str:
    """The shape of the graph under root: one small box per node (its name or operation)."""
    order = root.topo()
    number = {node: i for i, node in enumerate(order)}
    lines = []
    for node in order:
        label = names.get(node) or (f"{node.data:g}" if node._op == "const" else node._op)
        label = label or "leaf"
        style = ", style=dashed" if node._op == "const" else ""
        lines.append(f'  n{number[node]} [label="{label}"{style}];')
        lines += [f"  n{number[operand]} -> n{number[node]};" for operand in node._prev]
    return digraph("structure", "LR", lines)


def structures(*graphs: tuple[str, object, dict]) -> str:
    """Graphs (title, root, names) stacked, each drawn as its shape, its size in its title."""
    sized = [(f"{title}: {len(g.topo())} nodes", structure_dot(g, n)) for title, g, n in graphs]
    return side_by_side(sized, rankdir="TB")


@figure("06-neuron-layer-mlp.md", "06-dot", graph=True)
def one_node_per_neuron(ns):
    names, fused = _neuron_names(ns["w"], ns["x"], ns["b"]), ns["fused"]
    return structures(
        ("one dot node", fused, {**names, fused: "dot"}), ("the long way", ns["long_way"], names)
    )


@steps_of("06-dot")
def one_node_per_neuron_steps(ns):
    """Both graphs of the figure, built afresh from the chapter's numbers, stepped together:
    the dot node sends all seven contributions in one step, the long way takes six."""
    Value = ns["Value"]  # noqa: N806 (the chapter's, which its dot takes)

    def leaves():  # the chapter's numbers, in fresh leaves, and their names
        w, x = ([Value(v.data) for v in ns[name]] for name in "wx")
        b = Value(ns["b"].data)
        return w, x, b, _neuron_names(w, x, b)

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
        tracks.append(track("06-dot", recording, every, title=title))
    return tracks


@figure("08-drawing-the-graph.md", "08-diamond", graph=True)
def graph_dot_of_the_diamond(ns):
    return dot_after_backward(*_diamond(ns["x"].data))  # the chapter's x, as the reader left it


@figure("09-failure-cases.md", "09-cut", graph=True, key=0)  # the copied number
def the_cut_graph(ns):
    return structures(
        ("built on a copied number", ns["cut"], {}), ("built on the prediction", ns["intact"], {})
    )


@figure("13-forward-and-reverse-mode.md", "13-sweeps", graph=True)
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
    edges = [e.split() for e in ("x1 s", "x2 s", "x3 t", "s p", "x3 p", "s f1", "t f1", "p f2")]
    names = dict(s="s = x1 x2", t="t = tanh x3", p="p = s x3", f1="f1 = s + t", f2="f2 = exp p")
    lines = []
    sweeps = [  # graphviz stacks the boxes bottom up: reverse first puts forward on top
        ("reverse: cotangents, seeded on f1 (1 of 2 passes)", back, "cotangent", "back"),
        ("forward: tangents, seeded on x1 (1 of 3 passes)", ahead, "tangent", "forward"),
    ]
    for k, (title, nodes, kind, direction) in enumerate(sweeps):
        boxes = []
        for name, node in nodes.items():
            number, sent = (
                (node.value, node.tangent) if kind == "tangent" else (node.data, node.grad)
            )
            label = f"{names.get(name, name)}\\nvalue {number:.3g}\\n{kind} {sent:.3g}"
            boxes.append(f'    {name}{k} [label="{label}"];')
        boxes += [f"    {a}{k} -> {b}{k} [dir={direction}];" for a, b in edges]
        lines += cluster(k, title, boxes)
    return digraph("sweeps", "LR", lines)


@figure("14-dynamic-static-captured.md", "14-branches", graph=True)
def the_branch_taken(ns):
    from micrograd import Value, graph_dot

    runs = []
    for start in (2.0, -2.0):
        x, y, z = Value(start), Value(5.0), Value(-7.0)
        out = ns["branchy"](x, y, z)
        out.backward()
        runs.append((f"branchy at x = {start:g}", graph_dot(out, {x: "x", y: "y", z: "z"})))
    return side_by_side(runs, rankdir="TB")
