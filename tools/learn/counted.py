"""Which of a chapter's checks are checks of the learner's engine, the ones the score counts:
the engine's names followed statement by statement through the chapter (``engine_checks``).
"""

import ast
import functools
import textwrap
from pathlib import Path

from tools import DOCS, ENGINE, engine_for
from tools.chapter import Chapter, Names, chapter_number, chapters
from tools.learn.places import one_at_a_time
from tools.notebook import blockers, optional_needs
from tools.tangle import TangleError, defined, tangle_book


@one_at_a_time
@functools.lru_cache(maxsize=8)
def engine_names(docs: Path = DOCS, engine: str = ENGINE) -> frozenset[str]:
    """The names the engine file ``engine`` defines at its top level: classes, functions
    and constants (``Value``, ``MLP``, ``USED_GRAPH``), not the modules it imports."""
    try:
        text = tangle_book(docs, root=docs.resolve().parent, engine=engine).text
    except TangleError:  # no fences of it (a chapter alone): only imports bind its names
        return frozenset()
    return frozenset(name for name, _ in defined(text) if "." not in name)


@one_at_a_time
def engine_checks(chapter: Path, engine: frozenset[str], file: str = ENGINE) -> frozenset[int]:
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
    not under-count: the book's own engine passes every check, counted or not. (``file``:
    the engine file counted; of tensor.py, its fences and what imports from ``tensor``.)
    """
    cells = Chapter.read(chapter).cells
    refers = set(engine) if any(cell.fence.engine == file for cell in cells) else set()
    counted, modules = set(), set()
    for index, cell in enumerate(cells):
        if cell.fence.is_engine:
            continue
        runs = not cell.fence.steps  # does not parse
        for step in cell.fence.steps:
            changed = _changed(step, modules)
            if step.defines:  # binds a function or class; its body runs when called
                (refers.add if step.free & refers else refers.discard)(step.defines)
                continue
            if step.free & refers:
                runs = True
                refers |= step.bound | changed
            else:
                refers -= step.bound
            if file.removesuffix(".py") in step.imports:
                refers |= step.bound
        if runs:
            counted.add(index)
    return frozenset(counted)


@one_at_a_time
@functools.lru_cache(maxsize=64)
def needs_optional(chapter: Path, file: str = ENGINE) -> bool:
    """Whether a check the score counts needs an OPTIONAL module (torch), itself or through
    a name only a fence that imports one binds. If none does, learner mode runs the chapter
    without them: those fences check the book, not the engine, and importing torch costs a
    chapter's process more than running the rest of most chapters."""
    fences = [cell.fence for cell in Chapter.read(chapter).cells]
    without = blockers(fences, optional_needs(everything=False))
    return any(without[i] for i in engine_checks(chapter, engine_names(engine=file), file))


def _changed(step: Names, modules: set[str]) -> frozenset[str]:
    """The names ``step`` may change (``Names.changed``), but the modules imported so far,
    to which ``modules`` adds the step's own: ``math.isclose(x.grad, 1)`` changes no
    ``math``."""
    modules |= step.modules
    return step.changed - modules


@one_at_a_time
@functools.lru_cache(maxsize=64)
def names_used(chapter: Path) -> tuple[dict[str, int], ...]:
    """For each cell of the chapter (``Chapter.cells``), the names it reads before binding
    them (a ``def``'s body included; ``x = x + 1`` reads x), each with the cell above it
    that last bound it or may have changed the object it holds (``Names.bound``,
    ``Names.changed``): where the value it reads was made. A check that failed leaves
    what it made from its failing statement on unsure, so the checks that read those
    names, directly or through others, wait on it (``run_chapter``); every other check
    runs. A cell that does not parse reads nothing, and fails alone."""
    last: dict[str, int] = {}  # name -> the latest cell that bound or changed it
    found, modules = [], set()
    for index, cell in enumerate(Chapter.read(chapter).cells):
        used, made = {}, set()
        for step in cell.fence.steps:
            reads = step.free if step.defines else step.loaded
            used.update({name: last[name] for name in reads - made if name in last})
            made |= step.bound
        found.append(used)
        if cell.fence.is_engine:  # the engine's names are there from the start
            continue
        for step in cell.fence.steps:  # a def binds its name alone, not what its body does
            binds = {step.defines} if step.defines else step.bound
            last.update(dict.fromkeys(binds | _changed(step, modules), index))
    return tuple(found)


def made_from(code: str, line: int) -> frozenset[str]:
    """The names a cell's ``code`` binds or changes from the top-level statement holding its
    ``line`` (1-based, in ``code``) on: what a failure at that line leaves unsure. All of
    them if the line is in no statement (or the code does not parse)."""
    try:
        tree = ast.parse(textwrap.dedent(code))
    except SyntaxError:
        return frozenset()
    statements = [s for s in tree.body if s.end_lineno >= line] or tree.body
    made = set()
    for statement in statements:
        names = Names.of(ast.unparse(statement))
        made |= names.bound | names.changed
    return frozenset(made)


def nothing_to_check(selected: list[Path], engine: Path, docs: Path = DOCS) -> str | None:
    """Why running ``selected`` would check nothing of the learner's engine, and where to
    start instead; None if one of them has checks of it."""
    file = engine_for(engine)
    names = engine_names(docs, file)
    if any(engine_checks(c, names, file) for c in selected):
        return None
    some = [c for c in chapters(docs) if c.name != "index.md" and engine_checks(c, names, file)]
    start = some[0]
    said = " and ".join(
        f"chapter {chapter_number(c)}" if chapter_number(c) else c.name for c in selected
    )
    first = chapter_number(start) or start.stem
    return (
        f"{said} {'has' if len(selected) == 1 else 'have'} no checks of your engine (what "
        f"{'it runs' if len(selected) == 1 else 'they run'} is the book's own code). Start with "
        f"chapter {first}, the first whose checks run your engine: "
        f"python3 tools/dev.py learn {engine.as_posix()} --chapter {first}"
    )
