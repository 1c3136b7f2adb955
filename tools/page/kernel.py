"""One chapter's namespace, and the engines as they stand at the chapter's place in the book.

Each engine file is a module (``micrograd.py`` the module ``micrograd``, ``tensor.py``
``tensor``), joined from its chunks as the tangler joins them (the chapters' before this
one, then this chapter's that have run, in book order), its functions moved to the chapter
and line they are written at, so tracebacks point into the book. Standard library only:
this file also runs in the reader's browser (tools/page/).
"""

import bisect
import contextlib
import io
import linecache
import os
import sys
import traceback
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass

ENGINE = "micrograd"  # the first engine's module, the one a learner's file stands in for


@dataclass(frozen=True)
class Chunk:
    """An engine fence: the chapter it is written in, the line its code starts on, its code,
    and the engine file it is a chunk of."""

    chapter: str
    line: int
    code: str
    file: str = f"{ENGINE}.py"  # imported as its stem: tensor.py as tensor


class Printed(io.StringIO):
    """What a fence prints: kept, and handed to ``echo`` as it is printed, if given."""

    def __init__(self, echo: Callable[[str], object] | None = None):
        super().__init__()
        self.echo = echo

    def write(self, text: str) -> int:
        if self.echo is not None:
            self.echo(text)
        return super().write(text)


def remember(chapter: str, line: int, code: str) -> None:
    """Let tracebacks quote ``code`` as lines of ``chapter`` from ``line`` on (the chapter
    need not be a file: in the page it is not)."""
    old = linecache.cache.get(chapter)
    lines = list(old[2]) if old and old[1] is None else []
    new = code.splitlines(keepends=True)
    lines += ["\n"] * (line - 1 + len(new) - len(lines))
    lines[line - 1 : line - 1 + len(new)] = [
        text if text.endswith("\n") else text + "\n" for text in new
    ]
    linecache.cache[chapter] = (sum(map(len, lines)), None, lines, chapter)


class Join:
    """Engine chunks joined as the tangler joins them, and where each line came from."""

    def __init__(self, chunks: Iterable[Chunk], name: str, file=f"{ENGINE}.py", module=ENGINE):
        self.chunks = list(chunks)
        self.name = name  # the file name of code that spans chunks
        self.file = file  # the module's __file__: where the engine is tangled to
        self.module_name = module  # what imports it: micrograd, tensor
        self.starts, text = [], ""  # the join's line where each chunk starts
        for chunk in self.chunks:
            self.starts.append(text.count("\n") + 1)
            text += chunk.code if chunk.code.endswith("\n") else chunk.code + "\n"
        self.text = text

    def place(self, line: int) -> tuple[Chunk, int] | None:
        """The chunk that line ``line`` of the join is in, and that line's number in its chapter."""
        k = bisect.bisect_right(self.starts, line) - 1
        if k < 0:
            return None
        return self.chunks[k], self.chunks[k].line + line - self.starts[k]

    def retarget(self, code: types.CodeType) -> types.CodeType:
        """``code`` with every code object inside it that lies in one chunk renamed to that
        chunk's chapter and moved to its lines there."""
        consts = tuple(
            self.retarget(c) if isinstance(c, types.CodeType) else c for c in code.co_consts
        )
        code = code.replace(co_consts=consts)
        lines = [n for *_, n in code.co_lines() if n is not None] or [code.co_firstlineno]
        first, last = self.place(min(lines)), self.place(max(lines))
        if code.co_name == "<module>" or first is None or last is None or first[0] is not last[0]:
            return code
        chunk, line = self.place(code.co_firstlineno) or first
        return code.replace(co_filename=chunk.chapter, co_firstlineno=line)

    def module(self) -> types.ModuleType:
        """The join, compiled and run as a fresh module (``micrograd``, ``tensor``)."""
        try:
            compiled = compile(self.text, self.name, "exec", dont_inherit=True)
        except SyntaxError as error:
            raise self.moved(error) from None
        module = types.ModuleType(self.module_name)
        module.__file__ = self.file
        linecache.cache[self.name] = (len(self.text), None, self.text.splitlines(True), self.name)
        with installed(module):
            exec(self.retarget(compiled), module.__dict__)
        return module

    def moved(self, error: SyntaxError) -> SyntaxError:
        """A syntax error of the join, told at its chapter and line."""
        found = self.place(error.lineno or 0)
        if found is None:
            return error
        chunk, line = found
        moved = SyntaxError(error.msg, (chunk.chapter, line, error.offset, error.text))
        remember(chunk.chapter, chunk.line, chunk.code)
        return moved


def engine_module(text: str, name: str, file=f"{ENGINE}.py", module=ENGINE) -> types.ModuleType:
    """A whole ``micrograd.py`` (``text``), run as a fresh ``module`` whose tracebacks name
    ``name``: the one way a saved or a learner's engine becomes a module (or tensor.py's)."""
    return Join([Chunk(name, 1, text)], name, file, module).module()


@contextlib.contextmanager
def installed(*modules: types.ModuleType | None):
    """``import micrograd`` (``import tensor``) gives each of ``modules`` until the block
    ends, by its name (a None is no change)."""
    given = {module.__name__: module for module in modules if module is not None}
    before = {name: sys.modules.get(name) for name in given}
    sys.modules.update(given)
    try:
        yield
    finally:
        for name, old in before.items():
            if old is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = old


def public(module: types.ModuleType) -> dict:
    """What a module defines, as a chapter's namespace takes it: every name but dunders."""
    return {k: v for k, v in vars(module).items() if not (k.startswith("__") and k.endswith("__"))}


class Kernel:
    """One chapter's namespace, and the engines as they stand at the chapter's place.

    ``before``: the engine chunks of the chapters before this one, in book order.
    ``file``: the first engine's ``__file__``, the file it is tangled to (the others beside).
    ``engine``: a module to use as the engine of its name instead (a learner's
    ``micrograd`` or ``tensor``, in learner mode): the chapter's chunks of that engine file
    then do not run, and the module's names are in the namespace of a chapter that has
    engine fences of it from the start (``chapter_has_engine``).
    """

    def __init__(
        self,
        chapter: str,
        before: Iterable[Chunk] = (),
        engine: types.ModuleType | None = None,
        chapter_has_engine: bool = False,
        file: str = f"{ENGINE}.py",
    ):
        self.file = file
        self.chapter = chapter  # the file name that tracebacks show
        self.namespace = types.ModuleType("fence").__dict__
        self.before = list(before)
        self.own: dict[int, Chunk] = {}  # this chapter's engine chunks that ran, by line
        self.failed: Join | None = None  # the last join whose build failed
        self.fixed = engine.__name__ if engine is not None else ""  # its module's name
        self.joins = self._joins(self.before)  # by module name
        for chunk in self.before:
            remember(chunk.chapter, chunk.line, chunk.code)
        self.engines = {self.fixed: engine} if self.fixed else {}  # each built on first need
        if self.fixed and chapter_has_engine:
            self.namespace.update({k: v for k, v in public(engine).items() if k[0] != "_"})

    def _joins(self, chunks: list[Chunk]) -> dict[str, Join]:
        """``chunks`` joined engine by engine, by module name: micrograd first, always."""
        files = dict.fromkeys([f"{ENGINE}.py", *(chunk.file for chunk in chunks)])
        return {
            (stem := os.path.splitext(name)[0]): Join(
                [chunk for chunk in chunks if chunk.file == name],
                f"{name} (as built up to {self.chapter})",
                os.path.join(os.path.dirname(self.file), name),
                stem,
            )
            for name in files
        }

    @property
    def module(self) -> types.ModuleType:
        """The first engine, micrograd, as it stands now."""
        return self.modules[ENGINE]

    @property
    def modules(self) -> dict[str, types.ModuleType]:
        """Every engine as it stands now, by module name (micrograd always)."""
        for name in self.joins.keys() - self.engines.keys():
            self.engines[name] = self._build(self.joins[name])
        return self.engines

    def _build(self, join: Join) -> types.ModuleType:
        """``join`` run as a module; on failure, the join that ``where`` maps lines with."""
        try:
            return join.module()
        except BaseException:
            self.failed = join  # code that spans chunks runs only while a join is built
            raise

    def run(self, code: str, line: int, engine: bool | str, printed: io.TextIOBase) -> None:
        """Run one fence (its code starts on chapter line ``line``; ``engine``: the engine
        file it is a chunk of, True for the first), its printing going to ``printed``;
        raise whatever it raises."""
        remember(self.chapter, line, code)
        if engine:
            file = f"{ENGINE}.py" if engine is True else engine
            if file != f"{self.fixed}.py":
                self._grow(Chunk(self.chapter, line, code, file))
            return
        compiled = compile("\n" * (line - 1) + code, self.chapter, "exec", dont_inherit=True)
        with installed(*self.modules.values()), contextlib.redirect_stdout(printed):
            try:
                exec(compiled, self.namespace)
            except ImportError as error:  # says the file lacks it; the book is not there yet
                fixed = error.name == self.fixed  # a learner's file: it does lack it
                if fixed or error.name not in self.joins or "cannot import name" not in str(error):
                    raise
                said = f"{str(error).split(' (')[0]}: not yet defined at this place in the book"
                raise ImportError(said, name=error.name).with_traceback(
                    error.__traceback__
                ) from None

    def _grow(self, chunk: Chunk) -> None:
        """Put ``chunk`` in its place among the chapter's engine chunks and build its engine
        again; on failure the engines stay as they were."""
        own, name = {**self.own, chunk.line: chunk}, os.path.splitext(chunk.file)[0]
        joins = self._joins(self.before + [own[k] for k in sorted(own)])
        with installed(*(m for other, m in self.engines.items() if other != name)):
            module = self._build(joins[name])  # it may import the engines before it
        self.own, self.joins = own, joins
        self.engines[name] = module
        self.namespace.update(public(module))

    def where(self, error: BaseException) -> tuple[str, int] | None:
        """The innermost chapter line in ``error``'s traceback (any chapter), if any."""
        found = None
        joins = {join.name: join for join in [*self.joins.values(), self.failed] if join}
        for frame in traceback.extract_tb(error.__traceback__):
            if frame.filename in joins:
                place = joins[frame.filename].place(frame.lineno or 0)
                found = (place[0].chapter, place[1]) if place else found
            elif frame.filename.endswith(".md") and frame.lineno:
                found = (frame.filename, frame.lineno)
        if isinstance(error, SyntaxError) and (error.filename or "").endswith(".md"):
            found = (error.filename, error.lineno or 0)
        return found

    def report(self, error: BaseException) -> str:
        """``chapter:line: Type: message`` for the innermost chapter line, then the traceback
        without this file's frames."""
        here = os.path.dirname(__file__)  # the runner's own frames are not the reader's
        stack = traceback.extract_tb(error.__traceback__)
        frames = [f for f in stack if os.path.dirname(f.filename) != here]
        message = error.msg if isinstance(error, SyntaxError) else describe(error, bare=True)
        headline = type(error).__name__ + (f": {message}" if message else "")
        where = self.where(error)
        if where:
            headline = f"{where[0]}:{where[1]}: {headline}"
        shown = traceback.format_list(frames) + traceback.format_exception_only(type(error), error)
        return headline.split("\n")[0] + "\n\nTraceback (most recent call last):\n" + "".join(shown)


def describe(error: BaseException, bare: bool = False) -> str:
    """``Type: message`` (``bare``: the message alone), even when the message cannot be
    formatted (a Value whose __repr__ raises, in an assertion's message)."""
    try:
        message = str(error)
    except Exception as broken:
        message = f"(message not shown: formatting it raised {type(broken).__name__})"
    if bare:
        return message
    return f"{type(error).__name__}: {message}" if message else type(error).__name__
