"""Which of a chapter's checks are checks of the learner's engine, the ones the score counts:
the engine's names followed statement by statement through the chapter (``engine_checks``).
"""

from __future__ import annotations

import functools
from pathlib import Path

from tools import DOCS
from tools.chapter import Chapter
from tools.learn.places import one_at_a_time
from tools.tangle import defined, tangle_book


@one_at_a_time
@functools.lru_cache(maxsize=8)
def engine_names(docs: Path = DOCS) -> frozenset[str]:
    """The names the engine defines at its top level: classes, functions and constants
    (``Value``, ``MLP``, ``USED_GRAPH``), not the modules it imports."""
    text = tangle_book(docs, root=docs.resolve().parent).text
    return frozenset(name for name, _ in defined(text) if "." not in name)


@one_at_a_time
def engine_checks(chapter: Path, engine: frozenset[str]) -> frozenset[int]:
    """The indices (in ``Chapter.cells``) of the chapter's checks that exercise the engine:
    the checks the learner's score counts. The others are about the book, not the engine.

    The rule follows names, statement by statement (``Fence.steps``), through the chapter
    in the order it runs. A name *refers to the engine* if it is one ``engine`` defines,
    in a chapter with engine fences (the engine's names are in its namespace from the
    start); if an import from ``micrograd`` binds it; or if a statement that runs the
    engine binds it, or may change the object it holds (``x.append(...)``,
    ``x[k] = ...``: ``Names.changed``). A statement *runs the engine* if it reads a name
    that refers to the engine (its ``free`` names: a loop variable it binds first does
    not count). A ``def`` or ``class`` runs nothing: it binds a name that refers to the
    engine if its body reads one, so a later call of it runs the engine. A statement
    that runs no engine code and binds a name makes the name the book's again (a
    chapter's own ``Value`` class). A check counts if one of its statements runs the
    engine; one that does not parse counts too (it fails whatever the engine).

    It cannot flatter: against the skeleton, where every function raises, every counted
    check fails and every other one passes (tests/test_learner.py runs them all). It does
    not under-count: the book's own engine passes every check, counted or not.
    """
    cells = Chapter.read(chapter).cells
    refers = set(engine) if any(cell.fence.is_engine for cell in cells) else set()
    counted = set()
    for index, cell in enumerate(cells):
        if cell.fence.is_engine:
            continue
        runs = not cell.fence.steps  # does not parse
        for step in cell.fence.steps:
            if step.defines:  # binds a function or class; its body runs when called
                (refers.add if step.free & refers else refers.discard)(step.defines)
                continue
            if step.free & refers:
                runs = True
                refers |= step.bound | step.changed
            else:
                refers -= step.bound
            if "micrograd" in step.imports:
                refers |= step.bound
        if runs:
            counted.add(index)
    return frozenset(counted)
