"""The pytest plugin for the chapters: thin, over tools/notebook.py (registered by conftest.py).

pytest-markdown-docs collects every python fence of docs/*.md as a test; this plugin runs
each chapter as one Notebook (tools/notebook.py over tools/page/run.py, the runner the
page's Run buttons use too), with no keyword in the Markdown, through the runner API that
pytest-markdown-docs keeps private (pinned in pyproject.toml; tests/test_notebook.py fails
loudly if it moves). The first fence that fails stops the chapter; the fences after it are
skipped with a pointer to it. A chapter's fences stay in one process under pytest-xdist
(--dist loadfile). Test ids are ``Cell.name``s, so an edit elsewhere in a chapter leaves
them alone. ``--update-outputs`` rewrites output blocks, in the chapter as it is at the
end of the run (tools/notebook.py's write_outputs), and names each file in the terminal;
``--engine=PATH`` runs the chapters against a learner's micrograd.py (tools/learner.py).
"""

import os
from pathlib import Path
from typing import ClassVar, NoReturn

import pytest
from pytest_markdown_docs._runners import DefaultRunner, register_runner
from pytest_markdown_docs.plugin import MarkdownDocstringCodeModule

from tools import relative
from tools.chapter import Chapter, is_python, markdown_parser
from tools.notebook import ChangedError, Notebook, OutputMismatchError, write_outputs

RUNNER = "chapter"
ENGINE_VARIABLE = "MICROGRAD_ENGINE"  # the default of --engine: a learner's micrograd.py


def pytest_markdown_docs_markdown_it():
    """The book's CommonMark parser, plus a rule that routes python fences to our runner."""

    def route_python_fences(state):
        for token in state.tokens:
            if token.type == "fence" and is_python(token.info):
                token.info = f"{token.info} runner:{RUNNER}"

    parser = markdown_parser()
    parser.core.ruler.push("route_python_fences", route_python_fences)
    return parser


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    """Name a chapter's fence tests as tools/chapter.py names its cells: the plugin's items,
    made again under those names (so pytest computes their ids as for any test). The text
    read here is the one the chapter then runs from, however it is edited meanwhile."""
    report = yield
    if isinstance(collector, pytest.File) and collector.path.suffix == ".md" and report.result:
        collected = chapter.collected[collector.path] = Chapter.read(collector.path)
        cells = {cell.opening: cell for cell in collected.cells}
        named = []
        for item in report.result:
            cell = cells.get(getattr(item, "start_line", None))  # its opening backticks
            if cell is not None:
                item = type(item).from_parent(
                    collector, name=cell.name, test_definition=item.test_definition
                )
            named.append(item)
        report.result = named
    return report


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path):
    """The book's fences are in docs/*.md alone: leave out pytest-markdown-docs' search of
    every .py file's docstrings for fences (it imports each and parses every docstring)."""
    found = yield
    return [node for node in found if not isinstance(node, MarkdownDocstringCodeModule)]


def pytest_addoption(parser):
    parser.addoption(
        "--update-outputs",
        action="store_true",
        help="rewrite each chapter's ```output blocks with what its fences print now",
    )
    parser.addoption(
        "--engine",
        default=os.environ.get(ENGINE_VARIABLE) or None,
        metavar="PATH",
        help=f"run the chapters against this micrograd.py (or tensor.py), not the book's fences "
        f"(default: ${ENGINE_VARIABLE})",
    )


def pytest_configure(config):
    chapter.check_outputs = not config.getoption("--update-outputs", default=False)
    engine = config.getoption("--engine", default=None)
    chapter.engine_file = None
    if engine is None:
        return
    path = Path(engine).resolve()
    if not path.is_file():
        raise pytest.UsageError(f"--engine / {ENGINE_VARIABLE}: {engine}: no such file")
    if config.getoption("--update-outputs", default=False):
        raise pytest.UsageError(
            "--update-outputs with --engine would write what your engine prints into the "
            "book's chapters: run one or the other"
        )
    chapter.engine_file = path


def pytest_report_header(config):
    if chapter.engine_file is not None:
        return f"chapters run against {chapter.engine_file} (learner mode), not the book's engine"


# --update-outputs: what each process ran of each chapter, for the one that writes them.
RAN = pytest.StashKey[list]()  # (path, the text the run read, [(cell index, printed)])
SAID = pytest.StashKey[list]()  # what the rewriting did, one line a chapter, for the terminal
WORKER_OUTPUT = "chapters_printed"  # the key of what an xdist worker sends its controller


def pytest_sessionfinish(session):
    """Under --update-outputs, write what the fences printed into the chapters. An xdist
    worker sends it to the controller, which writes: it alone prints to the terminal."""
    if chapter.check_outputs:
        return
    config = session.config
    ran = [
        (str(path), book.as_read.text, sorted(book.printed.items()))
        for path, book in chapter.notebooks.items()
    ]
    if hasattr(config, "workerinput"):  # an xdist worker
        config.workeroutput[WORKER_OUTPUT] = ran
        return
    said = config.stash[SAID] = []
    for path, read, printed in merged([*config.stash.get(RAN, []), *ran]):
        try:
            if read is None:
                raise ChangedError(f"{relative(path)} was edited while the tests ran")
            if write_outputs(path, read, printed):
                said.append(f"rewrote the ```output blocks of {relative(path)}")
        except ChangedError as error:
            said.append(
                f"{error}, so nothing was written to it: run "
                f"`python3 tools/dev.py test --update-outputs {relative(path)}` again"
            )
            session.exitstatus = session.exitstatus or pytest.ExitCode.TESTS_FAILED


def merged(ran: list) -> list[tuple[Path, str | None, dict[int, str]]]:
    """One entry a chapter, from what one or more processes ran of it (xdist's --dist load
    can split a chapter): what they printed, together; the text None if they read two."""
    chapters: dict[Path, tuple[str | None, dict[int, str]]] = {}
    for path, read, printed in ran:
        text, together = chapters.setdefault(Path(path), (read, {}))
        if read != text:
            chapters[Path(path)] = (None, together)
        together.update(dict(printed))
    return [(path, read, printed) for path, (read, printed) in chapters.items()]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """An xdist worker finished: keep what it ran of the chapters (pytest_sessionfinish)."""
    ran = getattr(node, "workeroutput", {}).get(WORKER_OUTPUT, [])
    node.config.stash.setdefault(RAN, []).extend(ran)


def pytest_terminal_summary(terminalreporter, config):
    said = config.stash.get(SAID, None)
    if said is None:
        return
    terminalreporter.write_sep("-", "--update-outputs")
    for line in said or ["every ```output block already shows what its fence printed"]:
        terminalreporter.write_line(line)


def skip(reason: str, cell) -> NoReturn:
    """Skip this fence's test, reported at the chapter's line of ``cell``'s opening backticks
    (not at this file's): so the fences a chapter skips for one reason are said once, at
    the fence the reason is about (pytest_runtest_makereport puts it there)."""
    skipped = pytest.skip.Exception(reason)
    skipped.chapter_line = cell.opening
    raise skipped


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    line = getattr(call.excinfo.value, "chapter_line", None) if call.excinfo else None
    if line is not None and report.skipped and isinstance(report.longrepr, tuple):
        report.longrepr = (str(item.path), line, report.longrepr[2])
    return report


@register_runner()
class chapter(DefaultRunner):  # noqa: N801 (the runner's name is the class name)
    notebooks: ClassVar[dict[Path, Notebook]] = {}
    collected: ClassVar[dict[Path, Chapter]] = {}  # each chapter as pytest collected it
    check_outputs: ClassVar[bool] = True  # False under --update-outputs
    engine_file: ClassVar[Path | None] = None  # set by --engine (learner mode)

    def runtest(self, test, args, **_):
        path = Path(test.source_path)
        book = self.notebooks.get(path)
        line = test.start_line + 1
        if book is not None and book.index_of(line) < book.next:
            if book.failure and book.index_of(line) == book.next - 1:
                raise book.error  # the plugin calls again after a TypeError: no rerun
            book = None  # a fence run again: start the chapter afresh
        if book is None:
            book = self.notebooks[path] = Notebook(
                path,
                engine=self.engine_file,
                check_outputs=self.check_outputs,
                text=getattr(self.collected.get(path), "text", None),
            )
        target = book.index_of(line)
        book.run_until(target)
        if book.failure:  # one failure, one message: the later fences are not run
            failed = book.cells[book.first_failure or 0]  # no index: the engine did not import
            skip(f"not run: an earlier fence failed first, at {book.failure}", failed)
        book.run_next()
        cell = book.cells[target]
        if cell.blocked:  # said at the first fence the reason stops
            first = next(c for c in book.cells if c.blocked == cell.blocked)
            skip(f"not run: {cell.blocked}", first)
        if self.engine_file is not None and cell.engine:  # said at the first engine fence
            first = next(c for c in book.cells if c.engine)
            skip(f"engine fence: {self.engine_file} is used instead", first)

    def repr_failure(self, test, excinfo, style=None):
        if isinstance(excinfo.value, OutputMismatchError):
            return str(excinfo.value)
        return super().repr_failure(test, excinfo, style)
