"""Wording told apart from behaviour: a check of a learner's engine whose only difference from
the book is the text of an error message or of an object's ``repr`` says nothing wrong about
what the engine computes, and is reported as such (``worded_otherwise``): printed lines that
differ only there (``wording_only``: an error's message after its type's name, the numbers
inside a repr to the book's 6 digits), ``pytest.raises(match=...)`` that caught the right
type, and ``assert <text> == "<the book's words>"``. The rest of such a check still runs.
"""

import ast
import itertools
import math
import re

from tools.learn.compare import statement_at
from tools.notebook import Notebook, OutputMismatchError
from tools.page.kernel import Printed
from tools.page.run import mismatch, shown

# An exception's name and what follows it on its line: "TypeError: Value holds a real ...".
_RAISED = re.compile(r"\b([A-Z]\w*(?:Error|Exception|Warning))\b(?::.*)?$")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf|nan")
# pytest.raises(match=...) that saw the right exception with other words (pytest's message,
# and tools/page/pytest.py's, which says the same).
REGEX_MISMATCH = "Regex pattern did not match"


def _reprs(line: str, classes: frozenset[str]) -> list[tuple[int, int]]:
    """Spans of ``Name(...)`` or ``<Name ...>`` (``<module.Name ...>`` too) in ``line`` for
    each name in ``classes``, brackets balanced: any repr that shows the numbers."""
    spans, at = [], 0
    names = "|".join(map(re.escape, sorted(classes)))
    pattern = re.compile(rf"<(?:\w+\.)*(?:{names})\b|\b(?:{names})\(")
    while classes and (found := pattern.search(line, at)):
        start = found.start() if found[0][0] == "<" else found.end() - 1
        pair = {"<": 1, ">": -1} if found[0][0] == "<" else {"(": 1, ")": -1}
        depths = itertools.accumulate(pair.get(char, 0) for char in line[start:])
        end = next((start + k + 1 for k, depth in enumerate(depths) if depth == 0), None)
        if end is None:  # never closed
            break
        spans.append((found.start(), end))
        at = end
    return spans


def _parts(line: str, classes: frozenset[str]) -> list:
    """``line`` cut into what must read the same (text), what must be the same numbers (a
    repr: its numbers), and what may be worded freely (an error's message: its type only)."""
    raised = _RAISED.search(line)
    tail = []
    if raised:
        line, tail = line[: raised.start()], [("raised", raised[1])]
    parts, at = [], 0
    for start, end in _reprs(line, classes):
        numbers = tuple(_NUMBER.findall(line[start:end]))
        parts += [("text", line[at:start]), ("repr", numbers)]
        at = end
    return [*parts, ("text", line[at:]), *tail]


def _agrees(book: str, printed: str) -> bool:
    """Does the number ``printed`` say what the book's ``book`` says, to the digits the book
    prints (at most 6 significant: ``:g``)? 0.42496089 says 0.424961; 0.424962 does not."""
    x, y = float(book), float(printed)
    if x == y or (x != x and y != y):  # x != x: nan, the same in both
        return True
    if not (math.isfinite(x) and math.isfinite(y)):
        return False
    half = 0.5 * 10 ** (math.floor(math.log10(abs(x))) - 5) if x else 1e-12
    if "." in book and "e" not in book.lower():  # fewer digits printed: that many count
        half = min(half, 0.5 * 10.0 ** -len(book.split(".")[1]))
    return abs(x - y) <= half * (1 + 1e-9)


def _same(a, b) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] != "repr":
        return a[1] == b[1]
    return len(a[1]) == len(b[1]) and all(map(_agrees, a[1], b[1]))


def wording_only(book: str, printed: str, classes: frozenset[str]) -> bool:
    """Does ``printed`` say what ``book`` (an ```output block) says, in other words? Line by
    line, the same text outside the errors and reprs; each error of the same type, its
    message free; each repr of one of the engine's ``classes`` holding the same numbers
    (to the 6 digits the book prints). Different only: equal texts are not "wording"."""
    return book != printed and _lines_agree(book, printed, classes, _same)


def _lines_agree(book: str, printed: str, classes: frozenset[str], same) -> bool:
    """Do ``book`` and ``printed`` have as many lines, each of as many parts (``_parts``),
    and does ``same`` hold for each pair of parts?"""
    book_lines, printed_lines = book.rstrip("\n").split("\n"), printed.rstrip("\n").split("\n")
    if len(book_lines) != len(printed_lines):
        return False
    for ours, theirs in zip(book_lines, printed_lines):
        a, b = _parts(ours, classes), _parts(theirs, classes)
        if len(a) != len(b) or not all(map(same, a, b)):
            return False
    return True


def reprs_only(book: Notebook, index: int, classes: frozenset[str]) -> bool:
    """Did check ``index`` print what the book shows but for the reprs of the engine's
    ``classes``, whatever their shape (``Value(3)`` for ``Value(data=3, grad=0)``)? Then
    the check read the repr and fails, but what it made is not in doubt: a check after it
    that reads the same objects does not wait on it (tools/learn/child.py)."""
    runner = book.runner
    expected, outcome = runner.cells[index].output, runner.outcomes.get(index)
    if expected is None or outcome is None:
        return False
    same_shape = lambda x, y: x[0] == y[0] and (x[0] == "repr" or x == y)  # noqa: E731
    return _lines_agree(expected, shown(outcome.printed), classes, same_shape)


def _wording_error(error: BaseException, code: str, line: int) -> bool:
    """Is ``error``, raised at ``line`` of a check's ``code``, about words alone: a
    ``pytest.raises(..., match=...)`` that caught the right exception with other words,
    or ``assert <text> == "<the book's words>"``?"""
    if not isinstance(error, AssertionError):
        return False
    if str(error).startswith(REGEX_MISMATCH):
        return True
    statement = statement_at(code, line)
    if not isinstance(statement, ast.Assert) or not isinstance(statement.test, ast.Compare):
        return False
    test = statement.test
    sides = [test.left, *test.comparators]
    words = [s for s in sides if isinstance(s, ast.Constant) and isinstance(s.value, str)]
    return len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) and len(words) == 1


def worded_otherwise(
    book: Notebook, index: int, error: BaseException, classes: frozenset[str]
) -> BaseException | None:
    """None if check ``index`` failed only for words: an error message or a repr that
    reads otherwise than the book's (``wording_only``, ``_wording_error``). Then the rest
    of the check runs, statement by statement, as if that one had passed, and its output
    is compared with the book's, wording apart. Else the error that stands."""
    cell, runner = book.cells[index], book.runner
    if index not in runner.outcomes:  # it never started: the engine does not import
        return error
    printed = runner.outcomes[index].printed
    while not isinstance(error, OutputMismatchError):
        place = runner.kernel.where(error)
        line = place[1] - cell.line + 1 if place and place[0] == runner.chapter else 0
        if not _wording_error(error, cell.code, line):
            return error
        statement = statement_at(cell.code, line)
        rest = cell.code.split("\n")[statement.end_lineno :]
        more = Printed()
        try:
            runner.kernel.run("\n".join(rest), cell.line + statement.end_lineno, False, more)
        except KeyboardInterrupt:
            raise
        except BaseException as later:
            error = later
        else:
            error = OutputMismatchError("")  # the whole check ran: its output decides
        finally:
            printed += more.getvalue()
    expected = runner.cells[index].output
    if expected is None and not printed:
        return None
    if shown(printed) == expected or wording_only(expected or "", shown(printed), classes):
        return None
    if error.args == ("",):  # ran to the end, after a wording error: its output differs
        why = mismatch(runner.chapter, runner.cells[index], printed, runner.remedy)
        error = OutputMismatchError(why)
    return error
