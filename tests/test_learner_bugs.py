"""Bugs learners make, each planted in a copy of the book's engine: the book's own checks
catch every one, and the first failure's *Read next* names the section that builds the
function to fix (and, where the book has one, a section that shows the mistake caught).

Each bug is a text replacement on the real micrograd.py, asserted to apply exactly once,
so that this test breaks loudly if the engine changes under it. Only the chapter that
builds the function is run: chapter 2 (Value, +, * and backward) or chapter 4 (the other
operations); each bug in parallel, as learner.check does.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from tools import ROOT
from tools.learn.child import check
from tools.learn.table import progress_table

BOOK_ENGINE = ROOT / "micrograd.py"
VALUE = "02-the-value-atom.md"
OPERATIONS = "04-the-other-operations.md"
PAGES = {VALUE: "(page '2. The Value atom')", OPERATIONS: "(page '4. The other operations')"}


@dataclass(frozen=True)
class Bug:
    name: str
    old: str  # a piece of the book's micrograd.py, found exactly once
    new: str  # what the learner wrote instead
    fix: str  # the function Read next names
    section: str  # the section that builds it
    shown: str = ""  # a section that shows the mistake caught, if the book has one
    chapter: str = VALUE  # the chapter of that section, the one run


BUGS = [
    Bug(
        "= instead of += in the backward push",
        "            operand.grad += local * grad\n",
        "            operand.grad = local * grad\n",
        "Value._backward",
        "The backward contract",
        "docs/03-backward.md, section 'Accumulate, never assign'",
    ),
    Bug(
        "the two local derivatives of * swapped",
        '(self, other), (other.data, self.data), "*")',
        '(self, other), (self.data, other.data), "*")',
        "Value.__mul__",
        "Addition and multiplication",
    ),
    Bug(
        "backward walks the order without reversing it",
        "        for node in reversed(order):\n",
        "        for node in order:\n",
        "Value.backward",
        "backward()",
        "docs/03-backward.md, section '2. Find the bug: a backward that forgot to reverse'",
    ),
    Bug(
        "tanh's slope as 1 - t",
        '(1.0 - t * t,), "tanh")',
        '(1.0 - t,), "tanh")',
        "Value.tanh",
        "tanh, exp, log and relu",
        "docs/04-the-other-operations.md, section '3. Find the bug'",
        OPERATIONS,
    ),
    Bug(
        "the power rule's slope as n * a**n",
        "slope = 0.0 if n == 0 else n * a ** (n - 1)\n",
        "slope = 0.0 if n == 0 else n * a**n\n",
        "Value.__pow__",
        "Constant powers",
        chapter=OPERATIONS,
    ),
    Bug(
        "numbers not wrapped on the left: 2 * x (no __rmul__)",
        "    __rmul__ = __mul__  # 2 * x is x * 2\n",
        "",
        "Value.__rmul__",
        "Addition and multiplication",
    ),
    Bug(
        "a topological sort that lists a node twice",
        "            elif node not in visited:\n",
        "            else:\n",
        "Value.topo",
        "The order of the backward pass",
    ),
    Bug(
        "log's slope as 1/out",
        '(1.0 / a,), "log")',
        '(1.0 / math.log(a),), "log")',
        "Value.log",
        "tanh, exp, log and relu",
        chapter=OPERATIONS,
    ),
    Bug(
        "ReLU's slope 1 at 0, where the book says 0",
        "(1.0 if a > 0 else 0.0,)",
        "(1.0 if a >= 0 else 0.0,)",
        "Value.relu",
        "tanh, exp, log and relu",
        chapter=OPERATIONS,
    ),
    Bug(
        "subtraction as addition",
        "Value(self.data - other.data, (self, other), (1.0, -1.0)",
        "Value(self.data + other.data, (self, other), (1.0, 1.0)",
        "Value.__sub__",
        "Negation, subtraction, division, and numbers on the left",
        chapter=OPERATIONS,
    ),
    Bug(
        "backward does not seed the root's gradient with 1",
        "        self.grad = 1.0\n",
        "",
        "Value.backward",
        "backward()",
    ),
]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Each bug's copy of the engine against its chapter: (its result, its table)."""
    book = BOOK_ENGINE.read_text(encoding="utf-8")

    def run(bug: Bug):
        assert book.count(bug.old) == 1, f"{bug.name}: the engine changed; update the bug"
        engine = tmp_path_factory.mktemp("bug") / "micrograd.py"
        engine.write_text(book.replace(bug.old, bug.new), encoding="utf-8")
        (result,) = check(engine, [ROOT / "docs" / bug.chapter], jobs=1)
        return result, progress_table([result], "my-engine/micrograd.py")

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return dict(zip((bug.name for bug in BUGS), pool.map(run, BUGS)))


def test_at_least_ten_bugs_are_planted():
    assert len(BUGS) >= 10 and len({bug.name for bug in BUGS}) == len(BUGS)


@pytest.mark.parametrize("bug", BUGS, ids=[bug.name for bug in BUGS])
def test_the_book_catches_the_bug_and_names_the_section_to_read(bug, runs):
    result, table = runs[bug.name]
    assert result.failure is not None, f"{bug.name}: no check of {bug.chapter} caught it\n{table}"
    assert result.failure.fix == bug.fix, table
    read_next = table[table.index("Read next: ") :].splitlines()
    assert read_next[0] == (
        f"Read next: docs/{bug.chapter}, section '{bug.section}' {PAGES[bug.chapter]}, "
        f"which builds {bug.fix}, the function to fix."
    ), table
    if bug.shown:
        assert read_next[1].startswith(f"Mistakes in {bug.fix}, shown and caught: "), table
        assert bug.shown in read_next[1], table
