"""The function to fix: which function of the learner's engine made a check fail, found by
running the check again with a profiler, then with one function at a time the book's.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
import types
from pathlib import Path

from tools.learn.places import Definition, book_definitions
from tools.notebook import Notebook

DIAGNOSIS_BUDGET = 30.0  # seconds a chapter may spend finding the function to fix


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


def _passes_up_to(chapter: Path, engine: Path, index: int, patch=None) -> bool:
    book = Notebook(chapter, engine=engine, patch=patch)
    book.run_until(index + 1)
    return book.failure is None


def to_fix(chapter: Path, engine: Path, index: int, error: BaseException) -> str | None:
    """The function of the learner's engine that made check ``index`` fail, by qualified
    name; None if no one function can be named.

    A stub's NotImplementedError names itself. Otherwise the answer is found by
    experiment: the check runs again from the chapter's start, once with a profiler that
    notes which of the engine's functions it calls, then once for each of those (and each
    function of the book's engine that the learner's lacks), with that one function
    replaced by the book's own code. The first whose replacement makes the check pass is
    the one to fix. The innermost engine frame of the error is the answer when none does
    (two bugs at once), or after DIAGNOSIS_BUDGET seconds.
    """
    book_defs = book_definitions()
    book = Notebook(chapter, engine=engine)
    book.run_until(index)
    module = book.engine_module
    if book.failure is not None:
        return None
    functions = _engine_functions(module)
    frames = [f for f, _ in traceback.walk_tb(error.__traceback__)]
    raised = [functions.get(f.f_code, [None])[0] for f in frames if f.f_code in functions]
    raiser = raised[-1] if raised else None
    if isinstance(error, NotImplementedError) and raiser:
        return raiser
    called: dict[str, None] = {}

    def profile(frame, event, _):
        if event == "call" and frame.f_code in functions:
            called.update(dict.fromkeys(functions[frame.f_code]))

    sys.setprofile(profile)
    try:
        book.run_next()
    except Exception:
        pass
    finally:
        sys.setprofile(None)
    missing = [name for name in book_defs if not _defined(module, name)]
    started = time.monotonic()
    for name in dict.fromkeys([*missing, *([raiser] if raiser else []), *called]):
        if time.monotonic() - started > DIAGNOSIS_BUDGET:
            break
        if name in book_defs and _passes_up_to(
            chapter, engine, index, _with_the_books(book_defs[name])
        ):
            return name
    return raiser


def _defined(module: types.ModuleType, name: str) -> bool:
    owner, _, attribute = name.rpartition(".")
    holder = vars(module).get(owner) if owner else module
    return holder is not None and attribute in vars(holder)


def diagnosis(chapter: Path, engine: Path, index: int) -> str | None:
    """Run one chapter up to its failing check ``index`` again, and name the function to
    blame for the failure (``to_fix``), if one can be named."""
    book = Notebook(chapter, engine=engine)
    book.run_until(index)
    try:
        book.run_next()
    except Exception as error:
        return to_fix(chapter, engine, index, error)
    return None


def diagnose_here(chapter: str, engine: str, report: str, index: str) -> None:
    """``diagnosis`` in a child process, writing {"fix": name} to ``report`` if it names one."""
    fix = diagnosis(Path(chapter), Path(engine), int(index))
    if fix:
        with open(report, "a", encoding="utf-8") as out:
            out.write(json.dumps({"fix": fix}) + "\n")


DIAGNOSE = (
    "import sys; from tools.learn.diagnose import diagnose_here; diagnose_here(*sys.argv[1:])"
)
