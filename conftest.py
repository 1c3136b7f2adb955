"""pytest configuration for the chapters: their fences run as notebooks (tools/notebook.py)."""

from tools.notebook import pytest_markdown_docs_markdown_it  # noqa: F401 (a plugin hook)
