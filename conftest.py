"""pytest configuration: the chapters' plugin (their fences run as notebooks)."""

pytest_plugins = ["tools.chapters_plugin"]
