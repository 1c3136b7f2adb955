"""Imported by learner mode's fork server (tools/learn/child.py) before it forks a chapter's
process: learner mode, and the book parsed (kept by each chapter's text: a changed one is new)."""

from tools import DOCS
from tools.chapter import Chapter, chapters
from tools.learn import child  # noqa: F401

PARSED = [Chapter.read(path).tokens for path in chapters(DOCS)]
