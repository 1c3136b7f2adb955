"""Learner mode for Part II: a file named tensor.py stands for the book's (tools.engine_for).
Its skeleton fails every check chapters 17 to 20 count and passes every other one; the book's
tensor.py, copied, passes them all; pytest's --engine and `learn` take it too."""

import shutil

import pytest

from tests.test_learner import blocked_here, functions, outcomes, pytest_on
from tools import DOCS, ROOT
from tools.chapter import Chapter
from tools.learn.child import check
from tools.learn.counted import engine_checks, engine_names
from tools.learn.places import book_definitions
from tools.learn.skeleton import write_skeleton
from tools.learn.table import progress_table
from tools.learner import main
from tools.notebook import import_engine

PART_II = sorted(DOCS.glob("1[7-9]-*.md")) + sorted(DOCS.glob("20-*.md"))


@pytest.mark.heavy  # chapters 17 to 20 three times through learner mode: about 11 s of CPU
def test_the_tensor_skeleton_fails_exactly_the_counted_checks_and_the_book_s_passes(tmp_path):
    skeleton = tmp_path / "my-engine" / "tensor.py"
    count = write_skeleton(skeleton)
    text = skeleton.read_text(encoding="utf-8")
    assert text.startswith("# tensor.py: your own engine") and "class Value" not in text
    assert count == len(functions(text)) == len(book_definitions(engine="tensor.py")) - 2
    assert import_engine(skeleton).__name__ == "tensor"  # __radd__, __rmul__: aliases, no stub
    names = engine_names(engine="tensor.py")
    assert {"Tensor", "ShapeError", "cross_entropy", "MLP"} <= names and "Value" not in names
    disagree = []
    for chapter in PART_II:  # every check, none stopping the chapter (as Part I's heavy test)
        run, counted = outcomes(chapter, skeleton), engine_checks(chapter, names, "tensor.py")
        cells, blocked = Chapter.read(chapter).cells, blocked_here(chapter)
        assert counted and sorted(run) == [
            i for i, c in enumerate(cells) if not c.fence.is_engine and i not in blocked
        ]
        disagree += [f"{chapter.name}:{cells[i].opening}" for i in run if run[i] == (i in counted)]
    assert not disagree, f"counted but passing, or failing but not counted: {disagree}"
    results = check(skeleton, PART_II)
    assert sum(r.checks for r in results) > 0 == sum(r.passed for r in results)
    assert results[0].failure.fix == "Tensor.__init__", progress_table(results, "tensor.py")
    shutil.copyfile(ROOT / "tensor.py", copy := tmp_path / "tensor.py")
    results = check(copy, PART_II)
    assert all(r.failure is None and r.passed == r.checks > 0 for r in results), results


def test_pytest_and_learn_run_part_ii_alone_against_the_tensor_py_given(tmp_path, capsys):
    write_skeleton(tmp_path / "tensor.py")
    done = pytest_on(PART_II[0], "--engine", str(tmp_path / "tensor.py"))
    assert done.returncode == 1, done.stdout
    assert "NotImplementedError: Tensor.__init__ is yours to write" in done.stdout
    assert main(["learn", str(tmp_path / "tensor.py"), "--chapter", "2"]) == 2
    said = capsys.readouterr().err
    assert "chapter 2 has no checks of your engine" in said and "--chapter 17" in said, said
