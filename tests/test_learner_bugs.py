"""The catalogue of learners' mistakes: a typical bug in every function of the engine (and
every alias, such as ``__radd__``), each planted in a copy of the book's micrograd.py. The
book's own checks catch every one, and the first failure's *Read next* names the function
and the section that builds it (and, where the book shows that mistake, the section that
does).

Each row of ``CATALOGUE`` reads: the function, the mistake, the text changed (asserted to
be found exactly once, so the test breaks loudly if the engine changes under it), the
chapters run (the one that builds the function, and any that uses it in a way worth
checking), and the check that catches it: the section holding the first failing check.
"""

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from tests.test_learner_score import reworded
from tools import DOCS, ROOT, relative
from tools.chapter import Chapter
from tools.learn.child import check
from tools.learn.diagnose import _Replay, _with_the_books, needed
from tools.learn.hints import LEVELS, hint
from tools.learn.mistakes import MISTAKES, mistake, seen
from tools.learn.places import book_definitions, heading_above, section_showing, where_in_book
from tools.learn.table import progress_table
from tools.notebook import import_engine

BOOK_ENGINE = ROOT / "micrograd.py"


@dataclass(frozen=True)
class Bug:
    fix: str  # the function Read next names
    name: str  # the mistake, as a learner would make it
    old: str  # a piece of the book's micrograd.py, found exactly once
    new: str  # what the learner wrote instead
    chapters: tuple[str, ...]  # chapters run (file names without docs/), the first catches it
    caught_in: str  # the section of the first failing check
    shown: str = ""  # a section that shows the mistake caught, if the book has one
    mistake: str = ""  # the mistake the diagnosis tells apart (tools/learn/mistakes.py), if any
    engine: str = "micrograd.py"  # the engine file planted in: micrograd.py, tensor.py

    @property
    def id(self) -> str:
        return f"{self.fix}: {self.name}"


V2 = ("02-the-value-atom.md",)  # Value's fields, +, *, the order and backward()
V3 = ("03-backward.md",)
V4 = ("04-the-other-operations.md",)  # powers, -, /, numbers on the left, tanh, exp...
NN = ("06-neuron-layer-mlp.md",)

ORDER = "docs/02-the-value-atom.md, section 'The order of the backward pass'"
DEEP = "docs/02-the-value-atom.md, section 'Deep graphs'"  # recursion shown failing
START, END = "        order, visited = [], set()\n", "        return order\n"  # topo's body
TOPO_BODY = START + BOOK_ENGINE.read_text(encoding="utf-8").split(START)[1].split(END)[0] + END
UNVISITED_ORDER = """\
        order, stack = [], [(self, False)]
        while stack:
            node, done = stack.pop()
            if done:
                order.append(node)
                continue
            stack.append((node, True))
            stack.extend((operand, False) for operand in reversed(node._prev))
"""
RECURSIVE_ORDER = """\
        order, visited = [], set()

        def visit(node):
            if node not in visited:
                visited.add(node)
                for operand in node._prev:
                    visit(operand)
                order.append(node)

        visit(self)
"""

# fmt: off
CATALOGUE = [
    # function, the mistake, the book's text, the learner's, chapters run, caught in (section)
    Bug("Value.__init__", "keeps an int as it is, not as a float",
        "            data = float(data)\n", "            pass\n",
        V2, "Five fields"),
    Bug("Value.__repr__", "shows the data alone",
        'f"Value(data={self.data:.6g}, grad={self.grad:.6g})"', 'f"Value({self.data:.6g})"',
        V2, "Five fields"),
    Bug("Value.wrap", "wraps a Value again, as a copy",
        'return x if isinstance(x, Value) else Value(x, _op="const")',
        'return Value(x.data if isinstance(x, Value) else x, _op="const")',
        V2, "Five fields"),
    Bug("Value._backward", "= instead of += in the backward push",
        "            operand.grad += local * grad\n", "            operand.grad = local * grad\n",
        V2, "Addition and multiplication",
        "docs/03-backward.md, section 'Accumulate, never assign'", "assigned"),
    Bug("Value.__add__", "the local derivative of the second operand as 0",
        '(self, other), (1.0, 1.0), "+")', '(self, other), (1.0, 0.0), "+")',
        V2, "Addition and multiplication"),
    Bug("Value.__mul__", "the two local derivatives swapped",
        '(self, other), (other.data, self.data), "*")',
        '(self, other), (self.data, other.data), "*")',
        V2, "Addition and multiplication"),
    Bug("Value.__radd__", "no number on the left: 2 + x",
        "    __radd__ = __add__  # 2 + x is x + 2\n", "",
        V4, "Negation, subtraction, division, and numbers on the left"),
    Bug("Value.__rmul__", "no number on the left: 2 * x",
        "    __rmul__ = __mul__  # 2 * x is x * 2\n", "",
        V2, "Addition and multiplication"),
    Bug("Value.__pow__", "the power rule's slope as n * a**n",
        "slope = 0.0 if n == 0 else n * a ** (n - 1)\n", "slope = 0.0 if n == 0 else n * a**n\n",
        V4, "Constant powers"),
    Bug("Value.__neg__", "the slope of -x as 1",
        '(self,), (-1.0,), "neg")', '(self,), (1.0,), "neg")',
        V4, "Negation, subtraction, division, and numbers on the left"),
    Bug("Value.__sub__", "subtraction as addition",
        "Value(self.data - other.data, (self, other), (1.0, -1.0)",
        "Value(self.data + other.data, (self, other), (1.0, 1.0)",
        V4, "Negation, subtraction, division, and numbers on the left"),
    Bug("Value.__truediv__", "the divisor's slope without its minus sign",
        "local = (1.0 / b, -a / b / b)", "local = (1.0 / b, a / b / b)",
        V4, "Negation, subtraction, division, and numbers on the left"),
    Bug("Value.__rsub__", "2 - x computed as x - 2",
        "        return Value.wrap(other) - self\n", "        return self - Value.wrap(other)\n",
        V4, "Negation, subtraction, division, and numbers on the left"),
    Bug("Value.__rtruediv__", "2 / x computed as x / 2",
        "        return Value.wrap(other) / self\n", "        return self / Value.wrap(other)\n",
        V4, "Negation, subtraction, division, and numbers on the left"),
    Bug("Value.tanh", "tanh's slope as 1 - t",
        '(1.0 - t * t,), "tanh")', '(1.0 - t,), "tanh")',
        V4, "tanh, exp, log and relu",
        "docs/04-the-other-operations.md, section '3. Find the bug'"),
    Bug("Value.exp", "exp's slope as 1",
        '(self,), (e,), "exp")', '(self,), (1.0,), "exp")',
        V4, "tanh, exp, log and relu"),
    Bug("Value.log", "log's slope as 1/log(a)",
        '(1.0 / a,), "log")', '(1.0 / math.log(a),), "log")',
        V4, "tanh, exp, log and relu"),
    Bug("Value.relu", "ReLU's slope 1 at 0, where the book says 0",
        "(1.0 if a > 0 else 0.0,)", "(1.0 if a >= 0 else 0.0,)",
        V4, "tanh, exp, log and relu"),
    Bug("Value.topo", "lists a node twice",
        "            elif node not in visited:\n", "            else:\n",
        V2, "backward()", ORDER, "visited twice"),
    Bug("Value.topo", "recursion, one call per level",
        TOPO_BODY, RECURSIVE_ORDER + "        return order\n",
        V2, "Deep graphs", DEEP, "recursed"),
    Bug("Value.backward", "walks the order without reversing it",
        "        for node in reversed(order):\n", "        for node in order:\n",
        V2, "backward()",
        "docs/03-backward.md, section '2. Find the bug in a backward pass'",
        "unreversed"),
    Bug("Value.backward", "does not seed the root's gradient with 1",
        "        self.grad = 1.0\n", "",
        V2, "backward()", "docs/02-the-value-atom.md, section 'backward()'", "no seed"),
    Bug("Value.backward", "pushes by assigning, = for +=, in its own loop",
        "                node._backward()\n",
        "                for operand, local in zip(node._prev, node._local):\n"
        "                    operand.grad = local * node.grad\n",
        V2, "backward()", "docs/03-backward.md, section 'Accumulate, never assign'", "assigned"),
    Bug("Value.backward", "its own walk, with no set of nodes visited",
        "        order = self.topo()\n", UNVISITED_ORDER,
        V2, "backward()", ORDER, "visited twice"),
    Bug("Value.backward", "its own walk, by recursion",
        "        order = self.topo()\n", RECURSIVE_ORDER,
        V2, "Deep graphs", DEEP, "recursed"),
    Bug("Value.backward", "never spends the graph (pytest.raises sees nothing raised)",
        "                node._local = None  # spent: this graph cannot be run backward again\n",
        "", V2, "What backward() leaves behind"),
    Bug("Value.backward", "refuses a spent graph only at its root, after pushing",
        "        if any(node._local is None for node in order):\n",
        "        if self._local is None:\n", V2, "What backward() leaves behind"),
    Bug("Value.backward", "zeroes every gradient first (chapter 3: a leaf used twice)",
        "        self.grad = 1.0\n        for node in reversed(order):\n",
        "        for node in order:\n            node.grad = 0.0\n"
        "        self.grad = 1.0\n        for node in reversed(order):\n",
        V3, "3. A second graph over a spent one"),
    Bug("check_sequence", "lets a dict through: its keys become the inputs",
        '    if hasattr(items, "keys") or not hasattr(items, "__getitem__"):',
        '    if not hasattr(items, "__getitem__"):',
        NN, "One node per neuron"),
    Bug("dot", "forgets the bias",
        "    total, operands, local = bias.data, [bias], [1.0]\n",
        "    total, operands, local = 0.0, [bias], [1.0]\n",
        NN, "One node per neuron"),
    Bug("check_size", "accepts a size of 0",
        "    if n < 1:\n", "    if n < 0:\n",
        NN, "Neuron, Layer, MLP"),
    Bug("check_activation", "lets an activation ACTIVATIONS does not name through",
        "    if not isinstance(name, str) or name not in ACTIVATIONS:\n",
        "    if not isinstance(name, str):\n",
        NN, "Neuron, Layer, MLP"),
    Bug("Neuron.__init__", "draws the bias at random too",
        "        self.b = Value(0.0)\n", "        self.b = Value(rng.uniform(-1, 1))\n",
        NN, "Neuron, Layer, MLP"),
    Bug("Neuron.__call__", "forgets the activation",
        "        return z if self.activation is None else self.activation(z)\n",
        "        return z\n",
        NN, "Neuron, Layer, MLP"),
    Bug("Neuron.parameters", "leaves out the bias",
        "        return [*self.w, self.b]\n", "        return [*self.w]\n",
        NN, "Neuron, Layer, MLP"),
    Bug("Neuron.parameters", "the bias first",
        "        return [*self.w, self.b]\n", "        return [self.b, *self.w]\n",
        NN, "Neuron, Layer, MLP"),
    Bug("Layer.__init__", "one neuron per input, not per output",
        "        self.neurons = [Neuron(nin, rng, activation) for _ in range(nout)]\n",
        "        self.neurons = [Neuron(nin, rng, activation) for _ in range(nin)]\n",
        NN, "Neuron, Layer, MLP"),
    Bug("Layer.__call__", "only the first neuron answers",
        "        return [neuron(x) for neuron in self.neurons]\n",
        "        return [neuron(x) for neuron in self.neurons[:1]]\n",
        NN, "Neuron, Layer, MLP"),
    Bug("Layer.parameters", "only the first neuron's parameters",
        "        return [p for neuron in self.neurons for p in neuron.parameters()]\n",
        "        return [p for neuron in self.neurons[:1] for p in neuron.parameters()]\n",
        NN, "Neuron, Layer, MLP"),
    Bug("MLP.__init__", "a random generator that ignores the seed",
        "        rng = random.Random(seed)\n", "        rng = random.Random()\n",
        NN, "Neuron, Layer, MLP"),
    Bug("MLP.__call__", "a single output stays in a list",
        "        return x[0] if len(x) == 1 else x\n", "        return x\n",
        NN, "Neuron, Layer, MLP"),
    Bug("MLP.parameters", "only the last layer's parameters",
        "        return [p for layer in self.layers for p in layer.parameters()]\n",
        "        return [p for layer in self.layers[-1:] for p in layer.parameters()]\n",
        NN, "Neuron, Layer, MLP"),
    Bug("MLP.parameters", "the layers last to first",
        "        return [p for layer in self.layers for p in layer.parameters()]\n",
        "        return [p for layer in self.layers[::-1] for p in layer.parameters()]\n",
        NN, "Neuron, Layer, MLP"),
    Bug("softmax_ce", "the shift subtracted from one logit only",
        "    return sum((v - m).exp() for v in logits).log() - (logits[target] - m)\n",
        "    return sum((v - m).exp() for v in logits).log() - logits[target]\n",
        ("07-softmax-cross-entropy.md",), "Shift before you exponentiate"),
    Bug("graph_dot", "arrows from the result to its operands",
        'edge = f"  n{number[operand]} -> n{number[node]}"',
        'edge = f"  n{number[node]} -> n{number[operand]}"',
        ("08-drawing-the-graph.md",), "8. Drawing the graph",
        "docs/08-drawing-the-graph.md, section '3. Find the bug in an edge count'"),
]
# Part II's: each caught by one chapter and named right (not in chapter 16's table, of Part I).
T17, T18, T19 = (f"{n}.md" for n in ("17-tensors-storage-and-views", "18-broadcasting-and-"
                                      "backward", "19-matmul-and-cross-entropy"))
TENSOR = [Bug(*bug[:4], (bug[4],), bug[5], engine="tensor.py") for bug in [
    ("Tensor._elementwise", "a repeated operand's gradient not summed: its first repeat kept",
     "d = [sum(d[i :: t.size]) for i in range(t.size)]", "d = d[: t.size]", T18,
     "Backward on tensors"),
    ("Tensor._groups", "reduces the mirror axis", "{a % len(self.shape) for a in axes}",
     "{len(self.shape) - 1 - a % len(self.shape) for a in axes}", T18, "Reductions, and keepdims"),
    ("Tensor.__matmul__", "the first operand's gradient G @ B: B not transposed",
     "products(rows(g, m), rows(b, m))", "products(rows(g, m), columns(b, m))", T19,
     "The matrix product"),
    ("Tensor.permute", "the strides ignored: a permuted view read as contiguous",
     "[self.strides[a] for a in axes]", "contiguous_strides(shape)", T17, "Views share storage"),
    ("Tensor.reshape", "reshapes a non-contiguous view without copying it",
     "source = self.contiguous()", "source = self", T17, "Views share storage"),
    ("Tensor.mean", "keepdims lost: the mean no longer broadcasts back",
     "total = self.sum(axis, keepdims)", "total = self.sum(axis)", T18, "Reductions, and keepdims"),
    ("Tensor.backward", "runs twice: never spends the graph",
     "node._backward = None  # spent: this graph", "pass  #", T18, "Backward on tensors"),
    ("Tensor._elementwise", "writes its result into its input's storage", "strides = "
     "contiguous_strides(shape)\n        return Tensor._node(out,", "if self.shape == shape and "
     "self.is_contiguous():\n            self.data[:], out = out, self.data  # no new storage\n"
     "        strides = contiguous_strides(shape)\n        return Tensor._node(out,", T18,
     "Reductions, and keepdims"),
]]
# fmt: on

QUICK = {  # a few run in `dev.py check` too
    "Value._backward: = instead of += in the backward push",
    "Tensor._elementwise: a repeated operand's gradient not summed: its first repeat kept",
}


def planted(bug: Bug, folder: Path) -> Path:
    """A copy of the bug's engine in ``folder``, the bug planted in it."""
    book = (ROOT / bug.engine).read_text(encoding="utf-8")
    assert book.count(bug.old) == 1, f"{bug.id}: the engine changed; update the bug"
    folder.mkdir(parents=True, exist_ok=True)
    (engine := folder / bug.engine).write_text(book.replace(bug.old, bug.new), encoding="utf-8")
    return engine


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Each bug's copy of the engine against its chapters, run once: (its results, its table)."""

    @cache
    def run(bug: Bug):
        engine = planted(bug, tmp_path_factory.mktemp("bug"))
        results = check(engine, [DOCS / c for c in bug.chapters], jobs=1)
        return results, progress_table(results, "my-engine/micrograd.py")

    return run


def test_every_function_and_alias_of_the_engine_has_a_mistake_in_the_catalogue():
    assert set(book_definitions()) == {bug.fix for bug in CATALOGUE}
    assert len({bug.id for bug in CATALOGUE}) == len(CATALOGUE)
    assert {bug.id for bug in CATALOGUE + TENSOR} >= QUICK
    assert len({bug.id for bug in TENSOR}) == len(TENSOR) >= 8


def test_the_book_shows_each_mistake_told_apart_somewhere():
    """Each mistake's worked section is found by a piece of the book's code; when a chapter
    loses it (renamed, moved into prose), this names the piece to update in mistakes.py."""
    for made in MISTAKES:
        assert section_showing(made.shown_by), (
            f"no fence of the book holds {made.shown_by!r} any more: give mistake "
            f"{made.key!r} (tools/learn/mistakes.py) a piece of code the book still shows"
        )


def test_each_mistake_backward_is_told_apart_has_its_own_entry():
    told = {m.key for m in MISTAKES if "Value.backward" in m.functions}
    assert len(told) == 5
    assert {bug.mistake for bug in CATALOGUE if bug.fix == "Value.backward"} - {""} == told
    for made in MISTAKES:
        assert {bug.fix for bug in CATALOGUE if bug.mistake == made.key} <= set(made.functions)


@pytest.mark.parametrize("bug", [b for b in CATALOGUE if b.mistake], ids=lambda b: b.id)
def test_the_mistake_is_seen_by_calling_the_engine_alone(bug, tmp_path):
    """Without the chapters: the small programs of tools/learn/mistakes.py, run against the
    planted engine, name the mistake; against the book's engine, none."""
    found = seen(bug.fix, import_engine(planted(bug, tmp_path)))
    assert found is not None and found["mistake"] == bug.mistake, found
    assert found["yours"] != found["book"]
    assert seen(bug.fix, import_engine(BOOK_ENGINE)) is None


def test_backward_s_mistakes_each_have_their_own_worked_example(tmp_path):
    last = {}
    for bug in [b for b in CATALOGUE if b.fix == "Value.backward" and b.mistake]:
        found = seen(bug.fix, import_engine(planted(bug, tmp_path / bug.mistake.replace(" ", "-"))))
        last[bug.mistake] = "\n".join(hint(bug.fix, LEVELS, seen=found))
        first = "\n".join(hint(bug.fix, 1, seen=found))
        assert first not in last[bug.mistake], first
        assert f"    {found['code'].splitlines()[-1]}" in last[bug.mistake].splitlines()
    assert len(set(last.values())) == len(last) == 5, last
    assert len({text.split("works it through in ")[1] for text in last.values()}) >= 4


PARAMS = [
    pytest.param(bug, id=bug.id, marks=() if bug.id in QUICK else pytest.mark.heavy)
    for bug in CATALOGUE + TENSOR
]


@pytest.mark.parametrize("bug", PARAMS)
def test_the_book_catches_the_mistake_and_names_the_function_and_section(bug, runs):
    results, table = runs(bug)
    first = results[0]
    assert first.failure is not None, f"{bug.id}: no check caught it\n{table}"
    assert first.failure.fix == bug.fix, table
    assert heading_above(first.chapter, first.failure.line) == bug.caught_in, table
    definition = book_definitions(engine=bug.engine)[bug.fix]
    builds = where_in_book(definition.chapter, definition.line)
    read_next = table[table.index("Read next: ") :].splitlines()
    assert read_next[0] == f"Read next: {builds}, which builds {bug.fix}, the function to fix."
    assert bug.fix.split(".")[-1] in Chapter.read(definition.chapter).text
    both = ["--- the ```output block", "What it gives with your engine, and with the book's:"]
    assert any(said in table for said in both), f"{bug.id}: yours and the book's not shown\n{table}"
    if bug.mistake:
        assert first.failure.seen["mistake"] == bug.mistake, table
        made = mistake(bug.mistake)
        assert (
            read_next[1] == f"The mistake, as a small program shows it: your {bug.fix} {made.what}."
        )
        read_next.pop(1)
        worked = hint(bug.fix, LEVELS, seen=first.failure.seen)
        assert f"your {bug.fix.split('.')[-1]} {made.what}" in worked[0], worked
        assert f"works it through in {bug.shown} (page '" in worked[-1], worked
    else:
        assert first.failure.seen is None, table
    if bug.shown:
        shown = f"A mistake in {bug.fix}, shown and caught: {bug.shown} (page '"
        assert read_next[1].startswith(shown), table
    assert relative(definition.chapter, ROOT).startswith("docs/")
    assert bug.engine == "micrograd.py" or third_rung(first.failure).startswith("worked"), table


# The diagnosis table: every planted mistake above, and correct engines written in other
# styles than the book's, through learner mode; recorded in RECORDED, which chapter 16
# shows. `python3 tools/dev.py test tests/test_learner_bugs.py --update-outputs` measures
# it again and writes it (then `... test docs/16-rebuild-it-yourself.md --update-outputs`).
RECORDED = ROOT / "tests" / "diagnosis.json"
PAIRS = """\
        order, visited, stack = [], set(), [(self, False)]
        while stack:
            node, done = stack.pop()
            if done:
                order.append(node)
            elif node not in visited:
                visited.add(node)
                stack.append((node, True))
                stack.extend((o, False) for o in reversed(node._prev) if o not in visited)
        return order
"""
BOOK_REPR = 'f"Value(data={self.data:.6g}, grad={self.grad:.6g})"'
STYLES = {  # (old, new) pieces of the book's engine, or a function of its whole text
    "error messages in other words, the repr unformatted": reworded,
    "a repr in angle brackets": [(BOOK_REPR, 'f"<Value data={self.data} grad={self.grad}>"')],
    "topo on a stack of (node, flag) pairs": [(TOPO_BODY, PAIRS)],
    "reflected operations as methods, parameters by loops": [
        ("    __radd__ = __add__  # 2 + x is x + 2\n",
         "    def __radd__(self, o):\n        return self + o\n"),
        ("    __rmul__ = __mul__  # 2 * x is x * 2\n",
         "    def __rmul__(self, o):\n        return self * o\n"),
        ("        return [*self.w, self.b]\n", "        return self.w + [self.b]\n"),
        ("        return [p for layer in self.layers for p in layer.parameters()]\n",
         "        found = []\n        for layer in self.layers:\n"
         "            found.extend(layer.parameters())\n        return found\n"),
    ],
    "a !r repr, backward's refusal as a loop": [
        (BOOK_REPR, 'f"Value(data={self.data!r}, grad={self.grad!r})"'),
        ("        if any(node._local is None for node in order):\n            raise",
         "        for node in order:\n            if node._local is None:\n                raise"),
    ],
}  # fmt: skip


def third_rung(failure) -> str:
    """What the last hint gives for ``failure``: which kind of worked example, or the code."""
    said = hint(
        failure.fix, LEVELS, seen=failure.seen, compared=failure.compared, engine=failure.engine
    )
    said = "\n".join(said)
    if failure.seen:
        return f"worked example of the mistake seen: {failure.seen['mistake']}"
    if "a worked example of your mistake" in said:
        return "worked example from the failing check: input, both values, the rule"
    return "the book's code"


@pytest.mark.heavy  # the whole book once per correct engine, and every bug (shared with above)
def test_the_diagnosis_table_holds_its_promise_and_is_the_one_chapter_16_shows(
    runs, tmp_path_factory, request
):
    book = BOOK_ENGINE.read_text(encoding="utf-8")
    mistakes = []
    for bug in CATALOGUE:
        results, _ = runs(bug)
        failure = next((r.failure for r in results if r.failure), None)
        named = failure.fix if failure else ""
        if named and named != bug.fix:  # wrong, but is it what the evidence shows?
            engine = planted(bug, tmp_path_factory.mktemp("named"))
            chapter = next(r.chapter for r in results if r.failure)
            cells = needed(chapter, failure.index)
            fixed = _Replay(chapter, engine, cells, _with_the_books(book_definitions()[named]))
            assert fixed.complete and fixed.error is None, (
                f"{bug.id}: {named} named against the evidence"
            )
        mistakes.append(
            {
                "function": bug.fix,
                "mistake": bug.name,
                "caught": failure is not None,
                "named": named,
                "third rung": third_rung(failure) if named else "",
            }
        )
    engines = []
    for style, changes in STYLES.items():
        text = changes(book) if callable(changes) else book
        for old, new in [] if callable(changes) else changes:
            assert text.count(old) == 1, f"{style}: the engine changed; update {old!r}"
            text = text.replace(old, new)
        engine = tmp_path_factory.mktemp("style") / "micrograd.py"
        engine.write_text(text, encoding="utf-8")
        results = check(engine)
        alarms = [r.chapter.name for r in results if r.passed < r.checks]  # of the engine
        worded = sum(len(r.worded) for r in results)
        passed, total = sum(r.passed for r in results), sum(r.checks for r in results)
        engines.append({"style": style, "passed": passed, "of": total, "false alarms": alarms})
        if callable(changes) and not alarms:  # another test's promise: the words told apart
            assert worded >= 20 and passed == total, (worded, passed, total)
            assert "worded otherwise than the book" in progress_table(results, "x")
    measured = {"planted mistakes": mistakes, "correct engines": engines}
    text = json.dumps(measured, indent=1, ensure_ascii=False) + "\n"
    if request.config.getoption("--update-outputs"):  # what was measured, promise kept or not
        RECORDED.write_text(text, encoding="utf-8")
    assert all(m["caught"] for m in mistakes), [m for m in mistakes if not m["caught"]]
    right = sum(m["named"] == m["function"] for m in mistakes)
    assert right >= 0.95 * len(mistakes), f"{right} of {len(mistakes)} named right"
    assert len(engines) >= 5 and not [e for e in engines if e["false alarms"]], engines
    recorded = RECORDED.read_text(encoding="utf-8") if RECORDED.exists() else ""
    assert recorded == text, (
        f"{relative(RECORDED, ROOT)} is not what learner mode measures now: run `python3 "
        "tools/dev.py test tests/test_learner_bugs.py --update-outputs`, then the same with "
        "docs/16-rebuild-it-yourself.md"
    )
