"""What the learner's engine computed and what the book's computes, at the statement of a
check that failed: the values that statement reads (``x.grad`` in ``assert x.grad == 30.0``),
taken in the learner's run as it stood when the statement failed, and in a run of the same
cells with the book's own engine, up to the same statement. The expressions are evaluated
again, calls included: the check has just evaluated them once with the learner's engine, in
a run of the diagnosis's own that nothing reads afterwards.
"""

import ast
import math
import textwrap
from pathlib import Path

from tools.notebook import Notebook
from tools.page.kernel import Printed, describe

SHOWN = 3  # expressions shown at most
WIDTH = 80  # characters of a value shown at most


def _pure(node: ast.AST) -> bool:
    """Can ``node`` be evaluated again without binding a name?"""
    return not any(isinstance(child, ast.NamedExpr | ast.Await) for child in ast.walk(node))


def _asked(statement: ast.stmt) -> list[ast.expr]:
    """The expressions a failing statement's result turned on: an assertion's compared
    sides (or its tested call's arguments), those not written as constants."""
    if not isinstance(statement, ast.Assert):
        return []
    test = statement.test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if isinstance(test, ast.Compare):
        sides = [test.left, *test.comparators]
    elif isinstance(test, ast.Call):
        sides = list(test.args)
    elif isinstance(test, ast.BoolOp):
        return [e for v in test.values for e in _asked(ast.Assert(test=v))][:SHOWN]
    else:
        sides = [test]
    wanted = [s for s in sides if not isinstance(s, ast.Constant) and _pure(s)]
    return wanted[:SHOWN]


def shown(value: object) -> str:
    """A value as the report shows it: a node by its data and gradient, read as the checks
    read them; numbers with 6 significant digits; cut at WIDTH characters."""
    text = _shown(value)
    return text if len(text) <= WIDTH else text[: WIDTH - 3] + "..."


def _shown(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, float):
        return f"{value:.6g}" if math.isfinite(value) else repr(value)
    if isinstance(value, list | tuple):
        inner = ", ".join(_shown(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' * (len(value) == 1)})"
    data, grad = getattr(value, "data", None), getattr(value, "grad", None)
    if isinstance(data, int | float) and isinstance(grad, int | float):
        return f"{type(value).__name__} with data {data:.6g}, grad {grad:.6g}"
    return repr(value)


def _value(expression: str, space: dict) -> str:
    try:
        return shown(eval(expression, space))
    except Exception as error:
        return f"(raises {describe(error).splitlines()[0]})"


def statement_at(code: str, line: int) -> ast.stmt | None:
    """The top-level statement of ``code`` holding its ``line`` (1-based)."""
    try:
        tree = ast.parse(textwrap.dedent(code))
    except SyntaxError:
        return None
    return next((s for s in tree.body if s.lineno <= line <= s.end_lineno), None)


def compared(
    chapter: Path, cells: list[int], index: int, line: int, learners: dict, error=None
) -> list[list[str]]:
    """[what, the learner's, the book's] for the failing statement at chapter ``line`` of
    check ``index``: for an assertion, each expression it reads (``_asked``) and its
    value; for another statement, which raised ``error`` with the learner's engine, the
    statement and what it does with the book's engine (an error, or the names it binds).
    ``learners``: the namespace of the learner's run as the statement left it; ``cells``:
    the cells the check reads from, itself last. Empty if there is nothing worth showing,
    or the book's run does not reach the statement."""
    book = Notebook(chapter)  # the book's engine, as it stands at the chapter
    code, first = book.cells[index].code, book.cells[index].line
    statement = statement_at(code, line - first + 1)
    if statement is None:
        return []
    asked = _asked(statement)
    if not asked and (error is None or isinstance(statement, ast.Assert)):
        return []
    engines = [i for i, cell in enumerate(book.cells[:index]) if cell.engine]
    try:
        for cell in sorted({*engines, *cells[:-1]}):
            book.next = cell
            book.run_next()
        before = "\n".join(code.split("\n")[: statement.lineno - 1])
        book.runner.kernel.run(before, first, False, Printed())
    except Exception:
        return []
    books = book.namespace
    if not asked:  # it raised with the learner's engine: what does it do with the book's?
        yours = f"raises {describe(error).splitlines()[0]}"
        if describe(error).startswith("Failed: DID NOT RAISE"):
            yours = "raises nothing"
        return [["", yours, _runs(statement, books, book)]]
    rows = [[t, _value(t, learners), _value(t, books)] for t in map(ast.unparse, asked)]
    return [row for row in rows if row[1] != row[2]]  # what is the same says nothing


def _runs(statement: ast.stmt, space: dict, book: Notebook) -> str:
    """What ``statement`` does in the book's run: the error it raises, or the names it
    binds, or that it runs."""
    raises = isinstance(statement, ast.With) and any(
        isinstance(item.context_expr, ast.Call)
        and ast.unparse(item.context_expr.func).endswith("raises")
        for item in statement.items
    )
    text = "\n".join(map(ast.unparse, statement.body)) if raises else ast.unparse(statement)
    try:
        book.runner.kernel.run(text, 1, False, Printed())
    except BaseException as error:
        return f"raises {describe(error).splitlines()[0]}"
    targets = [t for t in getattr(statement, "targets", []) if isinstance(t, ast.Name)]
    if targets:
        return ", ".join(f"{t.id} = {_value(t.id, space)}" for t in targets)
    return "runs without an error"


def compared_lines(rows) -> list[str]:
    """The rows of ``compared`` as the report shows them (a row without an expression is
    the failing line itself)."""
    if not rows:
        return []
    width = max(len(text) for text, _, _ in rows)
    out = ["What it gives with your engine, and with the book's:"]
    for text, yours, ours in rows:
        if text:
            out.append(f"  {text:<{width}}  yours: {yours};  the book's: {ours}")
        else:
            out += [f"  yours: {yours}", f"  the book's: {ours}"]
    return out
