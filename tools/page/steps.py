"""Backward, one node at a time: what the engine does, recorded for the page and the book.

``record(root, names)`` runs the backward pass of the graph under ``root`` itself, as
``Value.backward()`` does, one ``_backward()`` call at a time, reading the graph from
outside (``topo()``, ``_prev``, ``_local``), and notes each step; ``walk=`` records another
order (the chapter-3 careless walk). The rest turns a recording into captions, a
chapter's table and a page's step data, from one source.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

TIMES, ARROW = "\N{MULTIPLICATION SIGN}", "\N{RIGHTWARDS ARROW}"
SPENT = "this graph was already run backward (a node's _local is None): record a fresh one"


@dataclass(frozen=True)
class Edge:
    """One ``operand.grad += local * grad`` of a step."""

    operand: int  # index of the node it sends to, in Recording.names
    local: float  # d(node)/d(operand), saved by the forward pass
    sent: float  # local * the node's gradient
    before: float  # the operand's gradient before this +=
    after: float  # and after it
    late: bool  # the operand has already run: what it receives now goes no further
    k: int = 1  # the k-th edge of its step to this operand (x * x sends to x twice)


@dataclass(frozen=True)
class Step:
    """One node's ``_backward()``."""

    node: int
    grad: float  # the gradient it holds, and sends
    edges: tuple[Edge, ...]
    waiting: tuple[int, ...]  # consumers of the node that have not run yet: it runs early


@dataclass(frozen=True)
class Recording:
    names: tuple[str, ...]  # every node of the graph, in topo() order
    ops: tuple[str, ...]  # each node's _op ("*", "+", "const"; "" for a leaf)
    root: int
    start: tuple[float, ...]  # each node's gradient once the root is seeded with 1
    steps: tuple[Step, ...]

    def grads(self, position: int) -> tuple[float, ...]:
        """Every node's gradient after ``position`` steps (0: at the start)."""
        grads = list(self.start)
        for step in self.steps[:position]:
            for edge in step.edges:
                grads[edge.operand] = edge.after
        return tuple(grads)

    @property
    def final(self) -> tuple[float, ...]:
        return self.grads(len(self.steps))


def label(node) -> str:
    """What a node is called where it has no name: a constant by its number."""
    if node._op == "const":
        return f"the constant {node.data:.4g}"
    return f"the {node._op or 'leaf'} node"


def fresh_copy(root):
    """A new graph of the same shape, numbers and local derivatives, every gradient 0."""
    value = type(root)
    copies: dict = {}
    for node in root.topo():
        operands = tuple(copies[operand] for operand in node._prev)
        copies[node] = value(node.data, operands, node._local, node._op)
    return copies[root]


def replayed(walk: Callable, root) -> list:
    """The nodes of ``root``'s graph in the order ``walk`` runs their ``_backward()``,
    found by running ``walk`` (which returns that order) on a fresh copy of the graph."""
    copy = fresh_copy(root)
    position = {node: i for i, node in enumerate(copy.topo())}
    nodes = root.topo()
    return [nodes[position[node]] for node in walk(copy)]


def record(
    root, names: Mapping | None = None, *, walk: Callable | None = None, leaves: bool = False
) -> Recording:
    """Run backward on ``root``'s graph one node at a time and write down every step.

    ``names`` maps nodes to what the reader calls them (others get ``label``). Without
    ``walk`` the order is the engine's, reversed ``topo()``; with it, the order in which
    ``walk(root)`` (run on a copy) calls ``_backward()``. Leaves are not steps: their
    ``_backward()`` has no edge to send along, and ``backward()`` skips them. With
    ``leaves``, a named leaf is a step too, where the order reaches it, with no edges: for
    a figure that numbers every node it draws in the order a walk reaches it."""
    names = names or {}
    nodes = root.topo()
    if any(node._local is None for node in nodes):
        raise RuntimeError(SPENT)
    index = {node: i for i, node in enumerate(nodes)}
    called = tuple(names.get(node) or label(node) for node in nodes)
    consumers: list[set[int]] = [set() for _ in nodes]
    for node in nodes:
        for operand in node._prev:
            consumers[index[operand]].add(index[node])
    order = reversed(nodes) if walk is None else replayed(walk, root)

    root.grad = 1.0
    start = tuple(node.grad for node in nodes)
    ran: set[int] = set()
    steps = []
    for node in order:
        if not node._prev and not (leaves and node in names):
            continue
        i, grad = index[node], node.grad
        waiting = tuple(sorted(consumers[i] - ran))
        edges, holds = [], {}
        for operand, local in zip(node._prev, node._local):
            j = index[operand]
            before = holds.get(j, operand.grad)
            sent = local * grad
            holds[j] = before + sent
            k = 1 + sum(edge.operand == j for edge in edges)
            edges.append(Edge(j, local, sent, before, holds[j], j in ran, k))
        if node._prev or walk is not None:  # backward() skips leaves; a walk may not
            node._backward()  # the engine's own step
        for j, expected in holds.items():
            got = nodes[j].grad
            if got != expected and not (got != got and expected != expected):  # nan is nan
                raise AssertionError(
                    f"{called[i]}._backward() left {called[j]}.grad = {got!r}, "
                    f"not {expected!r} (its gradient + local * grad, edge by edge)"
                )
        if node._prev:
            node._local = None  # spent, as backward() leaves it
        ran.add(i)
        steps.append(Step(i, grad, tuple(edges), waiting))
    ops = tuple(node._op for node in nodes)
    return Recording(called, ops, index[root], start, tuple(steps))


# --- what a reader sees ------------------------------------------------------------------


def number(x: float) -> str:
    """A number as graph_dot writes it (four significant digits)."""
    return f"{x:.4g}"


@dataclass(frozen=True)
class Readout:
    """A text of the figure that shows a node's gradient: a line of the box (or of the
    cluster's title) ``element`` that reads ``prefix`` followed by the gradient."""

    element: str  # the SVG id of the node or cluster group, figure name included
    prefix: str  # "grad ", "dL/dx = ", "x.grad = "
    node: int  # whose gradient, by index in the recording


@dataclass(frozen=True)
class Track:
    """One recording as a figure shows it. A figure may step several side by side."""

    recording: Recording
    title: str = ""  # said before its captions when a figure has several tracks
    boxes: Mapping[int, str] = field(default_factory=dict)  # node -> SVG id of its box
    edges: Mapping[tuple[int, int, int], str] = field(default_factory=dict)
    # (operand, node, k) -> SVG id of the k-th drawn arrow from operand to node, k from 1
    readouts: tuple[Readout, ...] = ()
    result: tuple[int, ...] = ()  # nodes whose final gradient the last step names
    by_hand: bool = False  # a computation done by hand: no engine words, no wrapped constants


def _sent(recording: Recording, step: Step) -> list[str]:
    """Each edge of a step in words: ``2 TIMES 5 = 10 to x (x.grad 0 ARROW 10)``."""
    said = []
    for edge in step.edges:
        name = recording.names[edge.operand]
        again = " again" if edge.k > 1 else ""
        whose = f"{name}.grad" if name.isidentifier() else "its grad"
        change = f"{whose} {number(edge.before)} {ARROW} {number(edge.after)}"
        late = f", too late: {name} has already run" if edge.late else ""
        product = f"{number(edge.local)} {TIMES} {number(step.grad)} = {number(edge.sent)}"
        said.append(f"{product} to {name}{again} ({change}{late})")
    return said


def _joined(parts: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c`` (and "" for nothing)."""
    return " and ".join([", ".join(parts[:-1]), parts[-1]] if len(parts) > 1 else parts)


def _waited(recording: Recording, step: Step) -> str:
    """Which consumers of the step's node have not run yet ("c", "b and c"), or ""."""
    return _joined([recording.names[i] for i in step.waiting])


def caption(track: Track, position: int) -> str:
    """What happens at ``position`` of a track (0: the start), in one sentence."""
    recording = track.recording
    steps = recording.steps
    if position == 0:
        others = [
            f"{name}.grad = {number(g)}"
            for i, (name, g) in enumerate(zip(recording.names, recording.start))
            if i != recording.root and g != 0
        ]
        held = "; ".join(others) if others else "every other gradient is 0"
        return f"Start: {recording.names[recording.root]}.grad = 1, the seed; {held}."
    final = recording.final
    results = _joined([f"{recording.names[i]}.grad = {number(final[i])}" for i in track.result])
    if position > len(steps):
        return f"Done after step {len(steps)}" + (f": {results}." if results else ".")
    step = steps[position - 1]
    node = recording.names[step.node]
    if not step.edges:
        said = f"{node} is a leaf: it has nothing to send, and its gradient, "
        said += f"{number(step.grad)}, is final."
    else:
        node += f" (grad {number(step.grad)})"
        if step.waiting:
            node += f" runs too early, before {_waited(recording, step)} has sent its share, and"
        said = f"{node} sends {_joined(_sent(recording, step))}."
    return f"{said} Done: {results}." if position == len(steps) and results else said


def captions(tracks: Sequence[Track], position: int) -> list[str]:
    """The caption of ``position`` of a figure, one line per track (and a first line
    saying which step, when there are several tracks)."""
    total = max(len(track.recording.steps) for track in tracks)
    where = f"Step {position} of {total}" if position else ""
    if len(tracks) == 1:
        said = caption(tracks[0], position)
        return [f"{where}: {said}" if where else said]
    lines = [f"{where}:"] if where else []
    return lines + [f"{track.title}: {caption(track, position)}" for track in tracks]


def table(tracks: Sequence[Track]) -> str:
    """The steps of a figure as Markdown, one table per track: for a chapter, under the
    figure, for readers without the page's controls."""
    parts = []
    for track in tracks:
        recording = track.recording
        names, final = recording.names, recording.final
        unwritten = "const" if track.by_hand else None  # by hand, the constants go unsaid
        if track.title:
            ends = ", ".join(f"{names[i]}.grad ends at {number(final[i])}" for i in track.result)
            parts.append(f"**{track.title}**" + (f" ({ends})" if ends else "") + "\n")
        parts += [
            f"`{names[recording.root]}.grad = 1`, then row by row each node sends its gradient "
            f"on to its operands{'' if track.by_hand else ' (its `_backward()`)'}:\n",
            f"| step | node | its grad | sends (local {TIMES} grad) "
            f"| gradients (before {ARROW} after) |",
            "|---:|---|---:|---|---|",
        ]
        for k, step in enumerate(recording.steps, 1):
            edges = [e for e in step.edges if recording.ops[e.operand] != unwritten]
            node = names[step.node]
            if step.waiting:
                node += f" (too early: before {_waited(recording, step)})"
            grad = number(step.grad)
            sends = "; ".join(
                f"{number(e.local)} {TIMES} {grad} = {number(e.sent)} to {names[e.operand]}"
                for e in edges
            )
            chains: dict[int, list[str]] = {}
            for edge in edges:
                chain = chains.setdefault(edge.operand, [number(edge.before)])
                chain.append(number(edge.after) + (" (too late)" if edge.late else ""))
            after = "; ".join(
                f"{names[i]}: " + f" {ARROW} ".join(chain) for i, chain in chains.items()
            )
            if not step.edges:
                node, sends, after = f"{node} (a leaf)", "nothing", f"{node}: {grad}, final"
            row = [str(k), node, grad, sends, after]
            parts.append("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")
        parts[-1] += "\n"
    return "\n".join(parts)


def page_data(name: str, tracks: Sequence[Track], key: int | None = None) -> dict:
    """What the page's step controls need for a figure: at each position (0, the start, to
    the last step), per track, the SVG ids to light and the texts to show, and captions;
    and ``key``, the track of the panel its caption is about (kept in sight as it steps)."""
    total = max(len(track.recording.steps) for track in tracks)
    positions = []
    for position in range(total + 1):
        shown = []
        for track in tracks:
            recording = track.recording
            at = min(position, len(recording.steps))
            grads = recording.grads(at)
            step = recording.steps[at - 1] if 0 < position <= len(recording.steps) else None
            active = recording.root if at == 0 else step.node if step else None  # none: done
            lit = {"active": [track.boxes.get(active)], "receives": [], "edges": []}
            for edge in step.edges if step else ():
                lit["receives"].append(track.boxes.get(edge.operand))
                lit["edges"].append(track.edges.get((edge.operand, step.node, edge.k)))
            lit = {kind: sorted(set(ids) - {None}) for kind, ids in lit.items()}
            texts = [[r.element, r.prefix, number(grads[r.node])] for r in track.readouts]
            shown.append({**lit, "texts": texts})
        positions.append({"tracks": shown, "caption": captions(tracks, position)})
    return {"figure": name, "steps": total, "positions": positions, "key": key}
