"""pytest configuration: the chapters' plugin, by which their fences run as notebooks."""

pytest_plugins = ["tools.chapters_plugin"]
