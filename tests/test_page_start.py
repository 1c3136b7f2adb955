"""How the page's Python starts, decided in Python (tools/site/runtime.py): the words of each
phase, the classic-script copies a page opened from disk loads, the key a kept start (a
memory snapshot) is kept under, and a restored Python seeded afresh (tools/page/bridge.py).
The browser's side: tests/site/test_python_start.py and test_from_disk.py.
"""

import base64
import json
import random
import re

from tools import DOCS, ROOT
from tools.page.bridge import after_restore
from tools.site import runtime

WORKER = ROOT / "docs" / runtime.WORKER_JS
PYTHON_JS = ROOT / "docs" / "assets" / "notebook" / "python.js"  # the page's side of the start


def test_every_phase_the_worker_names_has_its_words_and_no_other():
    named = set(re.findall(r'loading\("(\w+)"\)', WORKER.read_text(encoding="utf-8")))
    named |= set(re.findall(r'counted\([^;]*?"(\w+)",\s*\)', WORKER.read_text(encoding="utf-8")))
    named |= set(re.findall(r'phase\("(\w+)"', PYTHON_JS.read_text(encoding="utf-8")))
    named |= set(re.findall(r'this\.show\("(\w+)"\)', PYTHON_JS.read_text(encoding="utf-8")))
    assert named == set(runtime.START_PHASES), named ^ set(runtime.START_PHASES)


def test_a_disk_copy_holds_the_files_bytes_as_a_classic_script(tmp_path):
    data = bytes(range(256)) * 3
    script = runtime.disk_copy("assets/notebook/page.zip", data)
    found = re.fullmatch(
        r'\(self\.bookDisk = self\.bookDisk \|\| \{\}\)\[(".*")\] = "(.*)";\n', script
    )
    assert found is not None, script[:80]
    assert json.loads(found[1]) == "assets/notebook/page.zip"
    assert base64.b64decode(found[2]) == data


def test_disk_copies_are_written_for_what_the_site_has(tmp_path):
    for path in [*runtime.DISK_FILES, runtime.PROTOCOL_JS]:
        if path != runtime.LEARNER_BUNDLE:
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path).write_bytes(path.encode())
    worker = f"// the worker\n{runtime.PROTOCOL_IMPORT} // its messages\nstart();\n"
    (tmp_path / runtime.WORKER_JS).write_text(worker, encoding="utf-8")
    written = runtime.install_disk_copies(tmp_path)
    copy = (tmp_path / runtime.disk_script(runtime.WORKER_JS)).read_text(encoding="ascii")
    inlined = base64.b64decode(copy.split('"')[-2]).decode("utf-8")
    assert inlined == f"// the worker\n{runtime.PROTOCOL_JS} // its messages\nstart();\n"
    listed = runtime.start_data(learner=False, key="k")["disk"]
    assert written == listed  # what the page loads is what the build wrote
    assert all((tmp_path / file["script"]).exists() for file in written)
    assert runtime.LEARNER_BUNDLE not in {file["path"] for file in written}
    with_learner = runtime.start_data(learner=True, key="k")["disk"]
    assert runtime.LEARNER_BUNDLE in {file["path"] for file in with_learner}


def test_the_key_of_a_kept_start_changes_with_what_the_start_imports(monkeypatch):
    key = runtime.start_key(DOCS)
    assert key.startswith(runtime.PYODIDE + "-") and key == runtime.start_key(DOCS)
    engine = runtime.engine_json(DOCS)
    monkeypatch.setattr(runtime, "engine_json", lambda docs: engine.replace("def ", "def  ", 1))
    assert runtime.start_key(DOCS) != key, "another engine, the same key"
    monkeypatch.undo()
    monkeypatch.setattr(runtime, "page_zip", lambda: b"another page.zip")
    assert runtime.start_key(DOCS) != key, "another page.zip, the same key"


def test_a_restored_python_draws_other_numbers_than_the_start_it_was_made_from():
    state = random.getstate()
    try:
        random.seed(0)  # as a snapshot holds the generator of the start it was made from
        made = random.random()
        random.seed(0)
        after_restore()
        assert random.random() != made
    finally:
        random.setstate(state)
