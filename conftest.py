"""pytest configuration: the chapters' plugin (their fences run as notebooks), and how
pytest-xdist shares the suite among its processes."""

import pytest

pytest_plugins = ["tools.chapters_plugin"]

# Under `--dist loadfile` a file goes to one process whole: a chapter's fences share one
# namespace, and a test module its module fixtures. These files' tests share neither, so
# each goes out on its own; xdist sends the largest files first, and these small units
# then even out the end of the run.
EACH_TEST_ALONE = {"tests/site/test_accessibility.py"}


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class Scheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = super()._split_scope(nodeid)
            return nodeid if path in EACH_TEST_ALONE else path

    return Scheduling(config, log)
