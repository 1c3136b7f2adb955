"""Data a page's scripts read (fences, steps, nudges, learner mode), as hidden elements.

The data rides in a hidden ``<span class="page-data">`` (a span, since it may sit in a
paragraph, after a figure) whose ``data-json`` attribute holds the JSON, not in a
``<script type="application/json">``: with Material's instant navigation, every script
in a page's content is made again when the page is swapped in, without its attributes, so
JSON in a script would run as JavaScript and be lost. An attribute is also not text, so
search does not index it. The page's scripts read it with
``bookPage.data(element)`` (docs/assets/page/page.js); tests and tools with ``read``.
"""

from __future__ import annotations

import html
import json
import re


def element(data, **attributes: str) -> str:
    """``data`` as a hidden element with ``attributes`` (``data_steps="x"`` becomes
    ``data-steps="x"``; ``class_="x"`` adds to its class); the same bytes on every build."""
    text = html.escape(json.dumps(data, sort_keys=True, ensure_ascii=True), quote=True)
    classes = " ".join(["page-data", attributes.pop("class_", "")]).strip()
    said = "".join(
        f' {name.replace("_", "-")}="{html.escape(value, quote=True)}"'
        for name, value in attributes.items()
    )
    return f'<span class="{classes}" hidden{said} data-json="{text}"></span>'


def read(page: str, marker: str) -> list:
    """The data of every element of ``page`` (HTML) made by ``element`` whose attributes
    include ``marker`` (such as ``id="notebook-fences"`` or ``data-steps="fig-3"``)."""
    pattern = r'<span class="page-data[^"]*" hidden([^>]*) data-json="([^"]*)"></span>'
    found = re.finditer(pattern, page)
    return [json.loads(html.unescape(m[2])) for m in found if marker in m[1]]
