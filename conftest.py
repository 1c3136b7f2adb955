"""pytest configuration for the chapters: their fences run as notebooks (tools/notebook.py)."""

from tools.notebook import (  # noqa: F401 (plugin hooks)
    pytest_addoption,
    pytest_configure,
    pytest_markdown_docs_markdown_it,
    pytest_report_header,
    pytest_sessionfinish,
)
