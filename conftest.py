"""pytest configuration: the chapters' plugin (their fences run as notebooks), and how
pytest-xdist shares the suite among its processes."""

import pytest

pytest_plugins = ["tools.chapters_plugin"]

# Under `--dist loadfile` a file goes to one process whole: a chapter's fences share one
# namespace, and a test module its module fixtures. This file's tests share one visit of a
# page, and nothing across pages, so each page's tests go out together on their own; xdist
# sends the largest files first, and these small units then even out the end of the run.
EACH_PAGE_ALONE = {"tests/site/test_every_page.py"}


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class Scheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = super()._split_scope(nodeid)
            if path in EACH_PAGE_ALONE and nodeid.endswith("]"):
                return path + nodeid[nodeid.rindex("[") :]  # the page, as the test's id ends
            return path

    return Scheduling(config, log)
