"""The function to fix: which function of the learner's engine made a check fail, found by
running the check again with a profiler, then with one function at a time the book's.
"""

import copy
import json
import sys
import traceback
import types
from itertools import zip_longest
from pathlib import Path

from tools import engine_for
from tools.learn.compare import compared
from tools.learn.counted import names_used
from tools.learn.mistakes import book_engine, seen
from tools.learn.places import Definition, book_definitions
from tools.learn.wording import worded_otherwise
from tools.notebook import Notebook, OutputMismatchError
from tools.page.kernel import describe


def _engine_functions(module: types.ModuleType) -> dict[object, list[str]]:
    """Each code object of the learner's module -> the qualified names that call it
    (``Value.__add__`` and ``Value.__radd__``, when one is the other)."""
    found: dict[object, list[str]] = {}

    def note(value: object, name: str) -> None:
        code = getattr(getattr(value, "__func__", value), "__code__", None)
        if code is not None and code.co_filename == module.__file__:
            found.setdefault(code, []).append(name)

    for name, value in vars(module).items():
        if isinstance(value, type) and value.__module__ == module.__name__:
            for attribute, member in vars(value).items():
                note(member, f"{name}.{attribute}")
        else:
            note(value, name)
    return found


def _with_the_books(definition: Definition):
    """A patch for a learner's module: ``definition``, the book's own code, put in place
    of the learner's (compiled in the learner's module, so it uses the learner's Value)."""
    owner, _, name = definition.name.rpartition(".")
    code = compile(definition.source, f"<the book's {definition.name}>", "exec")

    def patch(module: types.ModuleType) -> None:
        if not owner:
            exec(code, module.__dict__)
            return
        cls = vars(module).get(owner)
        if isinstance(cls, type):
            space = dict(vars(cls))
            exec(code, module.__dict__, space)
            setattr(cls, name, space[name])

    return patch


def needed(chapter: Path, *indices: int) -> list[int]:
    """The cells the checks ``indices`` read from, directly or through others
    (``names_used``), and those checks: all a rerun of them needs, in order."""
    reads, wanted, todo = names_used(chapter), set(indices), list(indices)
    while todo:
        for cell in reads[todo.pop()].values():
            if cell not in wanted:
                wanted.add(cell)
                todo.append(cell)
    return sorted(wanted)


class _Replay:
    """Cells of a chapter run again against an engine, and what became of the last one."""

    def __init__(self, chapter: Path, engine: Path, cells: list[int], patch=None, watch=None):
        """``watch(module)``, if given, is the profiler for the last cell (sys.setprofile)."""
        self.book = Notebook(chapter, engine=engine, patch=patch)
        self.cells = cells
        module = self.book.engine_module
        classes = frozenset(n for n, v in vars(module).items() if isinstance(v, type))
        self.error: BaseException | None = None  # the last cell's, wording apart
        self.complete = True  # False: a cell before the last failed
        self.watched = True  # False: the profiler was turned off (by a RecursionError)
        self.place = None  # the chapter line the last cell's error was raised at, if known
        for cell in cells:
            self.book.next = cell
            profile = watch(module) if watch is not None and cell == cells[-1] else None
            sys.setprofile(profile)
            try:
                self.book.run_next()
            except KeyboardInterrupt:
                raise
            except BaseException as error:
                error = worded_otherwise(self.book, cell, error, classes)
                if error is not None and cell != cells[-1]:
                    self.complete = False
                    return
                self.error = error
            finally:
                self.watched = sys.getprofile() is profile
                sys.setprofile(None)
        self.place = self.book.runner.kernel.where(self.error) if self.error else None

    def fails(self, said: str = "", place=None) -> bool:
        """Did it run up to the last cell, and that one fail (saying ``said`` first, if
        given; at the chapter line ``place``, if given: the evidence the report shows)?"""
        if not self.complete or self.error is None or place not in (None, self.place):
            return False
        return not said or describe(self.error).split("\n")[0] == said


def to_fix(chapter: Path, engine: Path, index: int, said: str = ""):
    """The function of the learner's engine that made check ``index`` fail, by qualified
    name; None if no one function can be named.

    A stub's NotImplementedError names itself. Otherwise the answer is found by
    experiment, on the cells the check reads from (``needed``; the whole chapter above
    it if the failure does not show on those alone, as ``said``, the first line of its
    message, if given): the check runs again once with a
    profiler that notes which of the engine's functions it calls, then once for each of
    those (and each function of the book's engine that the learner's lacks), with that
    one function replaced by the book's own code, in a fixed order: the missing ones, the
    one that raised, then the ones called, first called first (then all the others, if
    a recursion too deep turned the profiler off). The first whose
    replacement makes the check pass is the one to fix; the innermost engine function of
    the error when none does (two bugs at once). The work is bounded by the count of the
    engine's functions, not by time: the name does not depend on how busy the machine is.

    Returns (the name or None, why none could be named or "", the first rerun, with the
    learner's engine as it is: its module, its namespace as the failure left it).
    """
    book_defs = book_definitions(engine=engine_for(engine))
    called: dict[str, None] = {}  # the engine's functions the check called, in that order
    built: dict[str, tuple | None] = {}  # a constructor -> its first call's arguments, copied

    def watch(module: types.ModuleType):
        functions = _engine_functions(module)

        def profile(frame, event, _):
            if event == "call" and frame.f_code in functions:
                names = functions[frame.f_code]
                called.update(dict.fromkeys(names))
                if names[0].endswith(".__init__") and names[0] not in built:
                    built[names[0]] = _arguments(frame)

        return profile

    cells = needed(chapter, index)
    replay = _Replay(chapter, engine, cells, watch=watch)
    if not replay.fails(said):  # something the names do not show: the chapter above it
        called.clear()
        cells = [i for i in range(index + 1) if not replay.book.cells[i].engine]
        replay = _Replay(chapter, engine, cells, watch=watch)
        if not replay.fails():
            return None, NOT_AGAIN, replay
    module = replay.book.engine_module
    functions = _engine_functions(module)
    frames = [f for f, _ in traceback.walk_tb(replay.error.__traceback__)]
    raised = [functions.get(f.f_code, [None])[0] for f in frames if f.f_code in functions]
    raiser = raised[-1] if raised else None
    if isinstance(replay.error, NotImplementedError) and raiser:
        return raiser, "", replay
    missing = [name for name in book_defs if not _defined(module, name)]
    if not replay.watched:  # a recursion too deep for the profiler: then every function
        called.update(dict.fromkeys(book_defs))
    for name in dict.fromkeys([*missing, *([raiser] if raiser else []), *called]):
        if name in book_defs:
            patched = _Replay(chapter, engine, cells, _with_the_books(book_defs[name]))
            if patched.complete and patched.error is None:
                return name, "", replay
    if raiser is None:
        said = describe(replay.error).split("\n")[0]
        name = _in_a_class(chapter, engine, cells, [*called], (said, replay.place), built, module)
        if name is not None:
            return name, "", replay
    return raiser, "" if raiser else NO_ONE, replay


def _in_a_class(chapter, engine, cells, called, failed, built, module) -> str | None:
    """The function to fix when no one function, replaced by the book's, makes the check
    pass, because the learner's objects hold their state in another shape than the book's
    (a ``Neuron`` that keeps its activation's name): the book's method then reads a field
    the learner's object lacks. A class whose methods, all replaced at once by the book's,
    make the check pass holds the mistake; in it, each of the learner's methods is put back
    alone among the book's: one that passes is not to blame, one that fails as the check
    did is; else, of those that fail otherwise (their fields do not fit the book's), a
    constructor if the objects it builds answer otherwise than the book's (``_builds_
    otherwise``: by calling them, not by reading their fields), else the one the check
    called last. ``failed``: the first line of the check's message, and where it failed."""
    book_defs = book_definitions(engine=engine_for(engine))
    owners = [name.rpartition(".")[0] for name in called if "." in name]
    owners += [name.rpartition(".")[0] for name in book_defs if "." in name]
    for owner in dict.fromkeys(owners):
        members = [name for name in book_defs if name.rpartition(".")[0] == owner]
        whole = _Replay(chapter, engine, cells, _all(book_defs[name] for name in members))
        if not (whole.complete and whole.error is None):
            continue
        order = {name: at for at, name in enumerate(called)}
        suspects = []
        for name in sorted(members, key=lambda n: order.get(n, -1)):
            others = _all(book_defs[other] for other in members if other != name)
            alone = _Replay(chapter, engine, cells, others)
            if alone.complete and alone.error is None:
                continue
            if alone.fails(*failed):
                return name
            suspects.append(name)
        for name in suspects:
            if name.endswith(".__init__") and _builds_otherwise(name, built.get(name), module):
                return name
        plain = [name for name in suspects if not name.endswith(".__init__")]
        return (plain or suspects or members)[-1]
    return None


def _arguments(frame) -> tuple | None:
    """The arguments of a constructor's call (``self`` left out), copied as they were when
    it was called (a random generator before it drew); None if they cannot be copied."""
    code = frame.f_code
    names = code.co_varnames[1 : code.co_argcount + code.co_kwonlyargcount]
    try:
        return copy.deepcopy(tuple(frame.f_locals[name] for name in names))
    except Exception:
        return None


def _builds_otherwise(init: str, arguments: tuple | None, module: types.ModuleType) -> bool:
    """Do objects built by the learner's constructor ``init`` (``Neuron.__init__``) answer
    otherwise than the book's, built from the same ``arguments``? Asked by calling what
    both answer without arguments (``parameters()``), comparing the numbers they give."""
    owner = init.rpartition(".")[0]
    file = f"{module.__name__}.py"  # the engine file the learner's stands for
    theirs, ours = getattr(module, owner, None), getattr(book_engine(engine=file), owner, None)
    if arguments is None or theirs is None or ours is None:
        return False
    if any(type(a).__module__ == module.__name__ for a in arguments):
        return False  # the learner's own objects: the book's constructor cannot take them
    try:
        learners, books = theirs(*copy.deepcopy(arguments)), ours(*copy.deepcopy(arguments))
    except Exception:
        return True
    defined = book_definitions(engine=file)
    asked = [name.rpartition(".")[2] for name in defined if name.startswith(owner)]
    for method in asked:
        function = getattr(ours, method, None)
        if method.startswith("_") or not callable(function) or function.__code__.co_argcount != 1:
            continue
        if _answer(learners, method) != _answer(books, method):
            return True
    return False


def _answer(thing, method: str):
    """What ``thing.method()`` gives, as numbers: a Value as its data, lists element-wise."""
    try:
        return _numbers(getattr(thing, method)())
    except Exception as error:
        return ("raises", type(error).__name__)


def _numbers(value):
    if isinstance(value, list | tuple):
        return [_numbers(v) for v in value]
    data = getattr(value, "data", value)
    return float(data) if isinstance(data, int | float) else type(value).__name__


def _all(definitions):
    """One patch putting in place each of ``definitions``, the book's code."""
    patches = [_with_the_books(definition) for definition in definitions]

    def patch(module: types.ModuleType) -> None:
        for one in patches:
            one(module)

    return patch


def _defined(module: types.ModuleType, name: str) -> bool:
    owner, _, attribute = name.rpartition(".")
    holder = vars(module).get(owner) if owner else module
    return holder is not None and attribute in vars(holder)


NOT_AGAIN = (
    "the check passes when it is run again alone, on the cells it reads from and then on "
    "the whole chapter above it: what made it fail is not in what it reads (state left "
    "by another check, or a time limit)"
)
NO_ONE = (
    "no one function, replaced by the book's own, makes the check pass, and the error was "
    "not raised inside your engine: two mistakes at once, or objects of another shape "
    "than the book's that the check reads"
)


def diagnosis(chapter: Path, engine: Path, index: int, said: str = "") -> dict:
    """Why check ``index`` failed, as JSON: {"fix": the function to blame (``to_fix``) or
    "", "why": why no function could be named (or ""), "seen": the mistake made in it, if
    one of tools/learn/mistakes.py shows, with its worked example}; ``said``: the first line
    of the failure's message, as the chapter's run reported it."""
    fix, why, replay = to_fix(chapter, engine, index, said)
    found = {"fix": fix or "", "why": why}
    if fix:
        example = seen(fix, replay.book.engine_module)
        if example is not None:
            found["seen"] = example
    place, cells = replay.place, replay.cells
    if place is not None and place[0] == replay.book.runner.chapter:
        rows = compared(chapter, cells, cells[-1], place[1], replay.book.namespace, replay.error)
        if rows:
            found["compared"] = rows
    elif isinstance(replay.error, OutputMismatchError):  # the lines that differ are the example
        diff = describe(replay.error).splitlines()
        book, yours = ([d[1:] for d in diff if d[:1] == c and d[:3] != c * 3] for c in "-+")
        found["compared"] = [
            ["", f"prints {y}", b] for b, y in zip_longest(book, yours, fillvalue="")
        ]
    return found


def diagnose_here(chapter: Path, engine: Path, report: Path, index: int, said="") -> None:
    """``diagnosis`` in a child process, writing it to ``report`` as one JSON line."""
    found = diagnosis(chapter, engine, index, said)
    with open(report, "a", encoding="utf-8") as out:
        out.write(json.dumps(found) + "\n")
