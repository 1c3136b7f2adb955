"""The step-throughs of backward (tools/page/steps.py) record what the engine does.

A recording runs the real ``_backward()`` of each node, one at a time; these tests check
that its steps add up to exactly what ``backward()`` gives, that every contribution it
reports is the node's local derivative times its gradient, that the careless walk of
chapter 3 ends where the chapter says, that the graph is left as ``backward()`` leaves it,
and that what the page and the chapters show of each figure's steps matches the figure:
its boxes, its texts, and the table under it.
"""

import difflib
from xml.etree import ElementTree

import pytest
from hypothesis import given, settings

from micrograd import Value
from tests.helpers.graphs import evaluate, graphs, value_backend
from tools import DOCS, ROOT, relative
from tools.chapter import Chapter
from tools.figures.from_chapters import FIGURES, namespaces, path, recorded, shown_at
from tools.figures.step_tables import steps_block, steps_opening, with_step_tables
from tools.page import steps
from tools.page.steps import ARROW, TIMES
from tools.site import page_data

SVG = "{http://www.w3.org/2000/svg}"
STEPPED = sorted(name for name, figure in FIGURES.items() if figure.steps)


@pytest.fixture(scope="module")
def recordings() -> dict[str, list[steps.Track]]:
    """Every stepped figure's tracks, recorded from its chapter (one run of each)."""
    return recorded()


def diamond(x_value=3.0):
    x = Value(x_value)
    a = x * x
    b, c = 2 * a, 3 * a
    root = b + c
    return root, {x: "x", a: "a", b: "b", c: "c", root: "L"}


def random_graph(program):
    nodes = evaluate(program, [Value(v) for v in program.leaves], value_backend())
    return nodes[-1]


def assert_adds_up(recording: steps.Recording) -> None:
    """Every step sends its local derivatives times the gradient it holds, onto what its
    operands held: the chain of += that the engine's _backward() runs."""
    grads = list(recording.start)
    for k, step in enumerate(recording.steps, 1):
        assert step.grad == grads[step.node], f"step {k}: holds {step.grad}, not {grads}"
        for edge in step.edges:
            assert edge.sent == edge.local * step.grad, f"step {k}: {edge}"
            assert edge.before == grads[edge.operand], f"step {k}: {edge} after {grads}"
            assert edge.after == edge.before + edge.sent, f"step {k}: {edge}"
            grads[edge.operand] = edge.after
        assert tuple(grads) == recording.grads(k)


# --- the recording is the engine's backward --------------------------------------------


def test_the_diamond_ends_where_backward_ends():
    root, names = diamond()
    reference = steps.fresh_copy(root)
    recording = steps.record(root, names)
    reference.backward()
    assert recording.final == tuple(node.grad for node in reference.topo())
    assert recording.final == tuple(node.grad for node in root.topo())
    x = recording.names.index("x")
    assert recording.final[x] == 30.0
    assert [recording.names[s.node] for s in recording.steps] == ["L", "c", "b", "a"]
    last = recording.steps[-1]  # a = x * x: x is reached twice, and accumulates twice
    assert [(e.before, e.after) for e in last.edges] == [(0.0, 15.0), (15.0, 30.0)]
    assert_adds_up(recording)


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(graphs())
def test_every_graph_ends_where_backward_ends_and_adds_up(program):
    root = random_graph(program)
    reference = steps.fresh_copy(root)
    recording = steps.record(root)
    reference.backward()
    assert recording.final == tuple(node.grad for node in reference.topo())
    assert_adds_up(recording)
    assert all(not step.waiting for step in recording.steps)  # reverse topological order
    assert not any(edge.late for step in recording.steps for edge in step.edges)


def test_the_recording_leaves_the_graph_as_backward_leaves_it():
    root, names = diamond()
    reference = steps.fresh_copy(root)
    steps.record(root, names)
    reference.backward()
    for ours, theirs in zip(root.topo(), reference.topo(), strict=True):
        assert (ours.data, ours.grad, ours._op) == (theirs.data, theirs.grad, theirs._op)
        assert ours._local == theirs._local  # None for spent nodes, () for leaves
    with pytest.raises(RuntimeError, match="already run backward"):
        steps.record(root, names)  # spent, as after backward()
    with pytest.raises(RuntimeError, match="already spent"):
        root.backward()  # and the engine agrees


def test_an_engine_that_assigns_instead_of_adding_is_caught():
    class Assigning(Value):
        __slots__ = ()

        def _backward(self):  # = instead of +=: x * x loses one of its two edges
            for operand, local in zip(self._prev, self._local):
                operand.grad = local * self.grad

    x = Value(3.0)
    square = Assigning(9.0, (x, x), (3.0, 3.0), "*")
    with pytest.raises(AssertionError, match=r"x\.grad = 3\.0, not 6\.0"):
        steps.record(square, {x: "x", square: "x * x"})


def test_the_careless_walk_is_replayed_as_the_chapter_runs_it(recordings):
    [(_, ns)] = list(namespaces([FIGURES["03-careless-walk"]]))
    for track, first in zip(recordings["03-careless-walk"], (True, False, None), strict=True):
        *_, root = ns["diamond"]()
        if first is None:
            root.backward()
        else:
            ns["careless_backward"](root, first)  # the chapter's own walk, on its own graph
        recording = track.recording
        assert recording.final == tuple(node.grad for node in root.topo()), track.title
        assert_adds_up(recording)


def test_the_careless_walk_ends_at_12_or_18_and_the_topological_at_30(recordings):
    ends = {}
    for track in recordings["03-careless-walk"]:
        recording = track.recording
        ends[track.title] = recording.final[recording.names.index("x")]
        early = [recording.names[s.node] for s in recording.steps if s.waiting]
        late = [recording.names[e.operand] for s in recording.steps for e in s.edges if e.late]
        order = [recording.names[s.node] for s in recording.steps]  # as the figure numbers
        walked = {
            "careless, b first": ["L", "b", "a", "x", "c"],
            "careless, c first": ["L", "c", "a", "x", "b"],
            "reverse topological order": ["L", "c", "b", "a", "x"],
        }
        assert order == walked[track.title], track.title
        if track.title.startswith("careless"):
            assert early == ["a"] and late == ["a"], (track.title, early, late)
        else:
            assert early == [] and late == [], (track.title, early, late)
    assert ends == {
        "careless, b first": 12.0,
        "careless, c first": 18.0,
        "reverse topological order": 30.0,
    }


@pytest.mark.parametrize("name", STEPPED)
def test_each_figure_s_steps_add_up(recordings, name):
    for track in recordings[name]:
        assert track.recording.steps, f"{name}: {track.title} has no steps"
        assert_adds_up(track.recording)


# --- what the page shows, against the figure ----------------------------------------------


def svg_elements(name: str) -> dict[str, ElementTree.Element]:
    root = ElementTree.fromstring(path(name).read_text(encoding="utf-8"))
    return {element.get("id"): element for element in root.iter() if element.get("id")}


def texts(element: ElementTree.Element) -> list[str]:
    return [t.text or "" for t in element.iter(f"{SVG}text")]


@pytest.mark.parametrize("name", STEPPED)
def test_the_page_data_lights_boxes_the_figure_has(recordings, name):
    elements = svg_elements(name)
    tracks = recordings[name]
    for track in tracks:
        recording = track.recording
        for node, box in track.boxes.items():
            assert box in elements, f"figures/{name}.svg has no {box} (for {node})"
            called, op = recording.names[node], recording.ops[node]
            first = texts(elements[box])[0].split()[0].rstrip(":")  # "x: released 4"
            assert first in (called, op), (  # the figure names it, or shows its operation
                f"figures/{name}.svg: {box} reads {first!r}, but the recording says it is "
                f"{called} ({op}): the figure and its recording number nodes differently"
            )
        for arrow in track.edges.values():
            assert arrow in elements, f"figures/{name}.svg has no arrow {arrow}"
        final = recording.final
        for readout in track.readouts:  # at the end, the figure's own text
            said = [t for t in texts(elements[readout.element]) if t.startswith(readout.prefix)]
            assert said == [readout.prefix + steps.number(final[readout.node])], (
                f"figures/{name}.svg: {readout.element} reads {said}, the last step "
                f"{readout.prefix}{steps.number(final[readout.node])}"
            )
    data = steps.page_data(name, tracks)
    total = max(len(track.recording.steps) for track in tracks)
    assert data["steps"] == total and len(data["positions"]) == total + 1
    shown = {
        i for p in data["positions"] for t in p["tracks"] for k in t if k != "texts" for i in t[k]
    }
    assert shown <= elements.keys(), sorted(shown - elements.keys())
    made = page_data.element(data, data_steps=name)
    assert "<" not in made[1 : -len("</span>")] and "<script" not in made  # not run, not text
    assert page_data.read(made, f'data-steps="{name}"') == [data]


@pytest.mark.parametrize("name", STEPPED)
def test_each_step_lights_the_box_that_runs_and_the_boxes_it_sends_to(recordings, name):
    """At every step, the lit boxes read (in the figure's own text) the node whose
    _backward() runs and the operands it sends to: not any other box of the figure."""
    elements = svg_elements(name)
    data = steps.page_data(name, recordings[name])

    def said(boxes) -> list[str]:  # each box's first word: the node's name or its operation
        return sorted(texts(elements[box])[0].split()[0].rstrip(":") for box in boxes)

    for t, track in enumerate(recordings[name]):
        recording = track.recording

        def shown(node: int, boxes=track.boxes) -> str:  # how the figure labels a node
            return said([boxes[node]])[0]

        for position, step in enumerate(recording.steps, start=1):
            lit = data["positions"][position]["tracks"][t]
            where = f"figures/{name}.svg, track {t + 1}, step {position}"
            if step.node in track.boxes:
                assert said(lit["active"]) == [shown(step.node)], where
            sent_to = {edge.operand for edge in step.edges if edge.operand in track.boxes}
            assert said(lit["receives"]) == sorted(shown(node) for node in sent_to), where


def test_a_caption_says_what_a_step_sends_and_what_it_adds_up_to(recordings):
    [careless, _, topological] = recordings["03-careless-walk"]
    assert steps.caption(topological, 4) == (
        f"a (grad 5) sends 3 {TIMES} 5 = 15 to x (x.grad 0 {ARROW} 15) and 3 {TIMES} 5 = 15 "
        f"to x again (x.grad 15 {ARROW} 30)."
    )
    assert steps.caption(topological, 5) == (
        "x is a leaf: it has nothing to send, and its gradient, 30, is final. Done: x.grad = 30."
    )
    assert "runs too early, before c has sent its share" in steps.caption(careless, 3)
    assert f"(a.grad 2 {ARROW} 5, too late: a has already run)" in steps.caption(careless, 5)
    first = steps.captions(recordings["03-careless-walk"], 3)
    assert first[0] == "Step 3 of 5:" and first[1].startswith("careless, b first: a (grad 2)")


# --- the table under each stepped figure, in its chapter -----------------------------------


def table_problems(path, blocks: dict[str, str]) -> list[str]:
    """What is wrong with the step tables of the chapter at ``path``, chapter:line first."""
    chapter = Chapter.read(path)
    where = relative(path, ROOT) if path.is_relative_to(ROOT) else f"docs/{path.name}"
    fix = "run `python3 tools/dev.py figures` to write it from the recording"
    found = []
    for block in chapter.generated:
        if block.name not in blocks:
            found.append(
                f"{where}:{block.line}: a steps table for figures/{block.name}.svg, "
                "which has no recording in tools/page/graphs.py: remove it"
            )
        elif not block.end:
            found.append(
                f"{where}:{block.line}: the steps table of figures/{block.name}.svg "
                "has no closing `<!-- end of steps -->`: add it, then " + fix
            )
    for name, text in blocks.items():
        mine = [block for block in chapter.generated if block.name == name]
        line = shown_at(FIGURES[name])
        if len(mine) != 1 or mine[0].line < line:
            found.append(
                f"{where}:{line}: figures/{name}.svg should have one steps table "
                f"under it (found {len(mine)}): {fix}"
            )
        elif mine[0].end and mine[0].text != text:
            diff = "".join(difflib.unified_diff(
                mine[0].text.splitlines(keepends=True), text.splitlines(keepends=True),
                "the chapter's table", "what the recording gives now", n=0))  # fmt: skip
            found.append(
                f"{where}:{mine[0].line}: the steps table of figures/{name}.svg is "
                f"not what the recording gives now: {fix} (or fix the chapter's "
                f"code, if that is what changed)\n{diff}"
            )
    return found  # fmt: skip


def chapter_blocks(recordings, chapter: str) -> dict[str, str]:
    return {
        name: steps_block(tracks)
        for name, tracks in recordings.items()
        if FIGURES[name].chapter == chapter
    }


CHAPTERS = sorted({FIGURES[name].chapter for name in STEPPED})


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_table_under_each_stepped_figure_is_its_recording(recordings, chapter):
    problems = table_problems(DOCS / chapter, chapter_blocks(recordings, chapter))
    assert not problems, "\n".join(problems)


def test_a_table_edited_by_hand_is_caught_and_rewritten(recordings, tmp_path):
    chapter = "03-backward.md"
    text = (DOCS / chapter).read_text(encoding="utf-8")
    row = (
        f"| 4 | a | 5 | 3 {TIMES} 5 = 15 to x; 3 {TIMES} 5 = 15 to x | x: 0 {ARROW} 15 {ARROW} 30 |"
    )
    assert text.count(row) == 1, f"{chapter} no longer has the row {row!r}: update this test"
    copy = tmp_path / chapter
    edited = row.replace(f"{ARROW} 30", f"{ARROW} 31")
    copy.write_text(text.replace(row, edited), encoding="utf-8")
    blocks = chapter_blocks(recordings, chapter)
    [problem] = table_problems(copy, blocks)
    block = next(b for b in Chapter.read(copy).generated if b.name == "03-careless-walk")
    assert problem.startswith(f"docs/{chapter}:{block.line}: the steps table of figures/")
    assert f"\n-{edited}\n+{row}\n" in problem
    assert with_step_tables(copy, blocks) == text  # the figures command puts it back


def test_a_missing_table_is_caught_and_written_under_the_figure(recordings, tmp_path):
    chapter = "05-a-scalar-neuron.md"
    text = (DOCS / chapter).read_text(encoding="utf-8")
    [block] = Chapter.read(DOCS / chapter).generated
    lines = text.splitlines(keepends=True)
    start = max(i for i in range(block.line) if lines[i].startswith("<details"))
    stop = next(i for i in range(block.end, len(lines)) if lines[i].startswith("</details>"))
    copy = tmp_path / chapter
    copy.write_text("".join(lines[: start - 1] + lines[stop + 1 :]), encoding="utf-8")
    blocks = chapter_blocks(recordings, chapter)
    [problem] = table_problems(copy, blocks)
    assert problem.startswith(f"docs/{chapter}:{shown_at(FIGURES['05-neuron'])}: ")
    assert with_step_tables(copy, blocks) == text, "written where the chapter has it"


def test_a_table_is_output_not_prose():
    chapter = Chapter.read(DOCS / "06-neuron-layer-mlp.md")
    [block] = chapter.generated
    assert steps_opening(block.name) in chapter.lines[block.line - 1]
    inside = [line for line, _ in chapter.prose if block.line <= line <= block.end]
    assert not inside, f"lines {inside} of a generated table are read as prose"
    assert "-0.4899" in block.text  # a number no fence prints: the prose check would fail
