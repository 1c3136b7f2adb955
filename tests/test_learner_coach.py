"""The coach meets each mistake where it is (tools/learn/): a learner's objects may keep their
state in another shape than the book's and the function to fix is still named; a repr of
another shape costs only the checks that print one; the appendix does not hold a learner's
engine to the book's own allocation counts; and when no function can be named, --hint says
why and what to try. Each runs one chapter, not the book.
"""

from pathlib import Path

import pytest

from tests.test_learner import ENDLESS
from tests.test_learner_bugs import PAIRS
from tools import DOCS, ROOT
from tools.chapter import Chapter
from tools.learn.child import check
from tools.learn.counted import engine_checks, engine_names
from tools.learner import main
from tools.notebook import BOOK_ONLY, for_a_learner

pytestmark = pytest.mark.heavy  # learner mode runs chapters: `test`, not `check`

BOOK_ENGINE = ROOT / "micrograd.py"
NEURONS = DOCS / "06-neuron-layer-mlp.md"
VALUES = DOCS / "02-the-value-atom.md"
APPENDIX = DOCS / "appendix-making-it-fast.md"


def planted(tmp_path: Path, *changes: tuple[str, str]) -> Path:
    """A copy of the book's engine with each (old, new) replaced; old found exactly once."""
    text = BOOK_ENGINE.read_text(encoding="utf-8")
    for old, new in changes:
        assert text.count(old) == 1, f"the engine changed; update {old!r}"
        text = text.replace(old, new)
    engine = tmp_path / "micrograd.py"
    engine.write_text(text, encoding="utf-8")
    return engine


# A Neuron that keeps its activation's name, looked up when called: the book's __call__
# cannot run on it (it reads self.activation), nor the learner's on the book's objects.
BY_NAME = (
    ("        self.activation = ACTIVATIONS[activation]\n", "        self.act = activation\n"),
    ("        return z if self.activation is None else self.activation(z)\n",
     "        function = ACTIVATIONS[self.act]\n"
     "        return z if function is None else function(z)\n"),
)  # fmt: skip
RELU_ALWAYS = (
    "        return z if function is None else function(z)\n",
    "        return z if function is None else z.relu()\n",
)
DRAWN_BIAS = ("        self.b = Value(0.0)\n", "        self.b = Value(rng.uniform(-1, 1))\n")


@pytest.mark.parametrize("mistake, fix", [
    (RELU_ALWAYS, "Neuron.__call__"), (DRAWN_BIAS, "Neuron.__init__"),
], ids=["relu for every activation", "a drawn bias"])  # fmt: skip
def test_the_function_is_named_whatever_shape_the_learner_s_objects_take(tmp_path, mistake, fix):
    alone = check(planted(tmp_path, *BY_NAME), [NEURONS], jobs=1)[0]
    assert alone.failure is None, "the shape alone is no mistake"
    engine = planted(tmp_path, *BY_NAME, mistake)
    result = check(engine, [NEURONS], jobs=1)[0]
    assert result.failure is not None and result.failure.fix == fix, result.failure


def test_a_repr_of_another_shape_costs_only_the_checks_that_print_one(tmp_path):
    engine = planted(
        tmp_path,
        ('f"Value(data={self.data:.6g}, grad={self.grad:.6g})"', 'f"Value({self.data:.6g})"'),
    )
    result = check(engine, [VALUES], jobs=1)[0]
    cells = Chapter.read(VALUES).cells
    printing = {
        i
        for i in engine_checks(VALUES, engine_names())
        if cells[i].output and "Value(" in cells[i].output.code
    }
    assert printing, "chapter 2 prints no Value: pick a chapter that does"
    assert result.failure.fix == "Value.__repr__"
    assert (result.failed, result.not_run) == (len(printing), 0), result
    assert result.passed == result.checks - len(printing)


@pytest.mark.parametrize("shown", [
    'f"<Value data={self.data} grad={self.grad}>"',
    'f"<micrograd.Value {self.data!r}, {self.grad!r}>"',
])  # fmt: skip
def test_a_repr_in_angle_brackets_that_shows_data_and_grad_scores_full(tmp_path, shown):
    engine = planted(tmp_path, ('f"Value(data={self.data:.6g}, grad={self.grad:.6g})"', shown))
    result = check(engine, [VALUES], jobs=1)[0]
    assert result.failure is None and result.passed == result.checks, result
    assert result.worded, "the repr reads otherwise: said so"


def test_with_two_functions_wrong_the_one_named_is_the_one_the_evidence_shows(tmp_path):
    """A product that adds, and a push that assigns: the check fails on the product's value,
    which is what the report shows, so the product is named, not the push."""
    product = '(self.data * other.data, (self, other), (other.data, self.data), "*")'
    engine = planted(
        tmp_path,
        (product, product.replace("self.data * other.data", "self.data + other.data")),
        ("            operand.grad += local * grad\n", "            operand.grad = local * grad\n"),
    )
    result = check(engine, [VALUES], jobs=1)[0]
    assert result.failure.fix == "Value.__mul__", result.failure
    assert "(a * b).data" in str(result.failure.compared), result.failure.compared


def test_learner_mode_leaves_out_what_only_the_book_s_engine_must_do():
    code = "a = 1\nif a:  " + BOOK_ONLY + "\n    assert a == 2\n    b = 3\nc = 4\n"
    assert for_a_learner(code) == "a = 1\npass\n\n\nc = 4\n"
    assert for_a_learner("a = 1\n") == "a = 1\n"
    marked = [c for c in Chapter.read(APPENDIX).cells if BOOK_ONLY in c.fence.code]
    assert len(marked) == 1 and 'where["python"]' in marked[0].fence.code


def test_the_appendix_takes_a_topo_with_node_flag_pairs_on_its_stack(tmp_path):
    """A correct engine that allocates otherwise than the book's (a tuple per stack entry)
    passes the appendix: its exact collector counts are the book's engine's alone."""
    text = BOOK_ENGINE.read_text(encoding="utf-8")
    start = text.index("        order, visited = [], set()\n")
    end = text.index("        return order\n", start) + len("        return order\n")
    engine = planted(tmp_path, (text[start:end], PAIRS))
    result = check(engine, [APPENDIX], jobs=1)[0]
    assert result.failure is None and result.passed == result.checks > 0, result.failure


def test_with_no_function_named_hint_says_why_and_what_to_try(tmp_path, capsys):
    engine = planted(tmp_path, ("        order = self.topo()\n", ENDLESS))
    argv = ["learn", str(engine), "--chapter", "2", "--timeout", "2"]
    assert main(argv) == 1
    said = "No one function could be named; --hint says why, and what to try."
    assert capsys.readouterr().out.splitlines()[-1] == said
    assert main([*argv, "--hint"]) == 1
    out = capsys.readouterr().out
    said = out[out.index("\nNo hint about one function: ") + 1 :].splitlines()
    assert said[0].startswith("No hint about one function: no check failed: the chapter stopped")
    assert "timed out after 2 s" in said[0]
    assert said[1].startswith("Try: read the check that failed, line ")
