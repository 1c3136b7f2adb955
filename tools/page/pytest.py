"""``pytest.raises`` for the site's Run buttons: the one part of pytest the chapters use.

The page's Python has no pytest, so the site gives it this file as ``pytest.py``; it
behaves as pytest's ``raises`` does, down to the messages (tests/test_page.py runs both),
and anything else from pytest is an AttributeError that says where to run the chapter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


class Failed(BaseException):  # pytest's own derives from BaseException too
    """A ``raises`` block that raised nothing."""


@dataclass
class ExceptionInfo:
    """What ``with raises(...) as info`` gives: the exception caught, once it is."""

    value: BaseException | None = None
    type: type[BaseException] | None = None


class raises:  # noqa: N801 (named as pytest names it)
    """Expect the block to raise ``expected`` (a class or tuple), with ``match`` in its text."""

    def __init__(self, expected, *, match: str | None = None):
        self.expected = expected
        self.match = match
        self.info = ExceptionInfo()

    def __enter__(self) -> ExceptionInfo:
        return self.info

    def __exit__(self, kind, value, _traceback) -> bool:
        if kind is None:
            if isinstance(self.expected, tuple):
                names = ", ".join(e.__name__ for e in self.expected)
                raise Failed(f"DID NOT RAISE any of ({names})")
            raise Failed(f"DID NOT RAISE {self.expected.__name__}")
        if not issubclass(kind, self.expected):
            return False  # not what was expected: let it through
        if self.match is not None and not re.search(self.match, str(value)):
            raise AssertionError(
                "Regex pattern did not match.\n"
                f"  Expected regex: {self.match!r}\n  Actual message: {str(value)!r}"
            )
        self.info.value, self.info.type = value, kind
        return True


def __getattr__(name: str):
    raise AttributeError(
        f"pytest.{name}: the page's Python has only pytest.raises; run the chapter with "
        "`python3 tools/dev.py test docs/<chapter>.md` for the rest of pytest"
    )
