"""The built site driven from outside: by the browser tests, and by benchmarks/page.py.

``serve`` serves a folder on a free port of 127.0.0.1; ``bar`` and ``code`` find a chapter
page's Run bar and code editor of the fence whose code starts on a given line.
"""

import contextlib
import functools
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def end_headers(self):  # a browser may keep a file, but asks each time if it is still so
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # A page closed or left while a file was still on its way (the Pyodide runtime is
        # 13 MB) resets the connection: nothing wrong with the site, so no traceback.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextlib.contextmanager
def serve(folder: Path):
    """Serve ``folder`` on a free port of 127.0.0.1; yields its URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = _QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def bar(tab, line: int):
    """The Run bar of the fence whose code starts on chapter line ``line``."""
    return tab.locator(f'.notebook-bar[data-line="{line}"]')


def code(tab, line: int):
    """The code editor of that fence (opening the <details> around it, if any, and reaching
    for it with the pointer, as a reader would: the page makes its editors then): its
    ``fill(text)`` replaces the code as a paste would (CodeMirror 6's .cm-content)."""
    block = bar(tab, line).locator("xpath=preceding-sibling::div[1]")
    block.evaluate("b => { const d = b.closest('details'); if (d) d.open = true; }")
    bar(tab, line).hover()
    editor = block.locator(".cm-content")
    editor.wait_for()  # the editor bundle loads on that first reach
    return editor
