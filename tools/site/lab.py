"""The two-moons lab on the site: the chapter's placeholder paragraph becomes the lab's
controls (training, the network, the data) and panels (the chart, the plane, the network
with a weight to read and set, each hidden unit's map, one step taken apart), folded
under them the paragraph itself. docs/assets/lab/lab.js makes them work; tools/page/lab.py,
in the page's Python, decides what they show. Static readers keep the paragraph.
"""

import html
import json
from pathlib import Path

from tools.page import lab
from tools.page.lab_data import DATASETS
from tools.page.lab_settings import BOOK, ENGINES, MAX_LAYERS, MAX_UNITS, REDRAW, hint
from tools.site.page_data import element as data_element
from tools.site.page_data import page_fences, replace_paragraph
from tools.site.runtime import engine_json

# The placeholder: the paragraph of a chapter that starts with these words.
PLACEHOLDER = "On the book's site, this paragraph is a lab"
LEARNER_KEY = "literate-micrograd:learner:engine"  # where learner.js keeps the learner's engine


def _field(name: str, label: str, hint: str) -> str:
    mode = ' inputmode="decimal"' if name in ("rate", "decay", "noise") else ""
    mode = mode or (' inputmode="numeric"' if name != "hidden" else "")
    return (
        f'<span class="lab-pair"><label class="lab-field">{label} <input class="lab-{name}" '
        f'name="{name}" type="text"{mode} value="{html.escape(BOOK[name])}" '
        f'aria-describedby="lab-{name}-hint" size="{8 if name in ("hidden", "curve") else 6}">'
        f'</label><span class="lab-hint" id="lab-{name}-hint">{hint}</span></span>'
    )


def _select(name: str, label: str, options: list[tuple[str, str]], hint: str = "") -> str:
    chosen = BOOK.get(name)
    listed = "".join(
        f'<option value="{value}"{" selected" if value == chosen else ""}>{text}</option>'
        for value, text in options
    )
    described = f' aria-describedby="lab-{name}-hint"' if hint else ""
    return (
        f'<span class="lab-pair"><label class="lab-field">{label} <select class="lab-{name}" '
        f'name="{name}"{described}>{listed}</select></label>'
        + (f'<span class="lab-hint" id="lab-{name}-hint">{hint}</span>' if hint else "")
        + "</span>"
    )


def first_frame(chapter: Path, docs: Path) -> dict | None:
    """The lab's frame before its first step, made while the site is built (the book's data
    and untrained network, drawn until the page's Python draws its own); None if the
    chapter's fences do not give the lab what it trains with (the lab then says why)."""
    request = {"action": "open", "settings": BOOK, "page": json.dumps(page_fences(chapter))}
    return json.loads(lab.answer(json.dumps(request), engine_json(docs))).get("frame")


def lab_html(content: str, learner_href: str, assets: str, first: dict | None = None):
    """The page's HTML with the placeholder paragraph replaced by the lab, and whether the
    placeholder was found. ``learner_href``: learner mode's page from this one ("": the
    site has none). ``assets``: the site's assets/ folder from the page. ``first``: the
    frame drawn before the page's Python starts (``first_frame``)."""
    first = first or {"curves": "", "boundary": ""}
    data = {"learner": learner_href, "learnerKey": LEARNER_KEY, "fields": list(BOOK)}
    data["redraw"] = REDRAW  # the fields whose change draws the lab again at once
    fields = (
        _field("rate", "First learning rate", "the book's is 1.0; try 0.1 and 3.0")
        + _field("steps", "Steps", hint("steps"))
        + _field("decay", "Weight decay", hint("decay"))
        + _field("seed", "Seed", hint("seed"))
    )
    network = _field(
        "hidden",
        "Hidden layers",
        f"0 to {MAX_LAYERS} sizes of 1 to {MAX_UNITS}, or none; the book's 16, 16",
    ) + _select("activation", "Activation", [("relu", "relu"), ("tanh", "tanh")], "the book's relu")
    network += _select("engine", "Engine", list(ENGINES.items()), "the book's micrograd")
    data_fields = (
        _select("dataset", "Data", list(DATASETS.items()), "the book's two moons")
        + _field(
            "curve",
            "Curve y =",
            "for either side of y = f(x): x, numbers, + - * / ** and sin cos tanh exp abs",
        )
        + _field("noise", "Noise", hint("noise"))
        + _field("points", "Points", hint("points"))
        + _select("label", "Add points of the", [("1", "inner moon"), ("-1", "outer moon")])
        + '<button type="button" class="notebook-button lab-clear" '
        'title="Take away the points you added">Clear added points</button>'
    )
    buttons = "".join(
        f'<button type="button" class="notebook-button lab-{name}" title="{title}">{label}</button>'
        for name, label, title in (
            ("train", "▶ Train", "Train to the last step, a slice at a time"),
            ("pause", "❚❚ Pause", "Stop training after this slice"),
            ("step", "→ Step", "One step of training"),
            ("reset", "↺ Reset", "A fresh network from the seed, with the fences as they are now"),
        )
    )
    return replace_paragraph(
        content,
        PLACEHOLDER,
        lambda paragraph: (
            '<section class="lab" aria-label="The two-moons lab">'
            f"{data_element(data, class_='lab-data')}"
            f'<div class="lab-controls" role="group" aria-label="Training">{fields}</div>'
            f'<div class="lab-controls" role="group" aria-label="The network">{network}</div>'
            f'<div class="lab-controls" role="group" aria-label="The data">{data_fields}</div>'
            '<div class="lab-controls">'
            '<label class="lab-field lab-source-choice" hidden>Whose micrograd '
            '<select class="lab-source">'
            "<option value=\"page\">the page's (the book's, with your edits)</option>"
            '<option value="learner">yours, from learner mode</option></select></label>'
            '<label class="lab-field"><input type="checkbox" class="lab-gradients"> '
            "show the gradients, not the weights</label></div>"
            f'<div class="lab-buttons" role="toolbar" aria-label="Training">{buttons}</div>'
            '<p class="lab-now">The lab has not started: Train, Step or Reset starts it.</p>'
            '<p class="lab-speed"></p>'
            '<p class="lab-status visually-hidden" role="status" aria-live="polite"></p>'
            '<p class="lab-problem" role="alert" hidden></p>'
            '<p class="lab-note" hidden></p>'
            '<div class="lab-panels">'
            '<figure class="lab-panel"><div class="lab-curves-here" tabindex="0" role="slider" '
            'aria-label="Step shown on the chart: the left and right arrow keys move it" '
            'aria-valuemin="0" aria-valuemax="0" aria-valuenow="0" aria-valuetext="no steps yet">'
            f'{first["curves"]}</div><p class="lab-readout" aria-hidden="true"></p><figcaption>'
            '<span class="lab-key lab-key-loss">loss (log scale)</span> '
            '<span class="lab-key lab-key-held">held-out loss</span>; '
            '<span class="lab-key lab-key-train">training accuracy</span> '
            '<span class="lab-key lab-key-held">held-out accuracy</span>; point at a step, or '
            "focus the chart and use the arrow keys, to read it</figcaption></figure>"
            '<figure class="lab-panel"><div class="lab-boundary-here" tabindex="0" '
            'role="application" aria-roledescription="plane" aria-label="The plane: the arrow '
            "keys move a cross, Enter adds a training point there, of the moon chosen under "
            f'Add points of the">{first["boundary"]}</div><figcaption>'
            '<span class="lab-key lab-key-outer">outer moon</span> '
            '<span class="lab-key lab-key-inner">inner moon</span>: training points filled, '
            "held-out points hollow, over the side the network gives each place. Click (or "
            "focus it, move with the arrow keys and press Enter) to add a training point."
            "</figcaption></figure>"
            '<figure class="lab-panel"><div class="lab-network-here"></div><figcaption>'
            '<span class="lab-key lab-key-plus">positive</span> '
            '<span class="lab-key lab-key-minus">negative</span>: the network\'s '
            '<span class="lab-what">weights</span>, wider the larger; inputs left, output right'
            "</figcaption>"
            '<div class="lab-weights"><label class="lab-field">Weight <input class="lab-which" '
            'type="text" size="8" aria-describedby="lab-which-hint" value="1, 1, 1"></label>'
            '<span class="lab-hint" id="lab-which-hint">layer, unit, input, from 1 (b: the '
            "bias); or click a line</span>"
            '<p class="lab-weight-now" role="status" aria-live="polite"></p>'
            '<label class="lab-field">Set it to <input class="lab-value" type="text" size="8" '
            'inputmode="decimal"></label> <button type="button" class="notebook-button lab-set" '
            'title="Give the weight this value; training goes on from there">Set</button></div>'
            "</figure></div>"
            '<figure class="lab-units"><figcaption>What each hidden unit computes: its output '
            "over the plane drawn above (orange positive, blue negative, blank 0); a crossed-out "
            "unit is dead, 0 at every training point.</figcaption>"
            '<div class="lab-units-here"></div></figure>'
            '<details class="lab-apart"><summary>One step, taken apart</summary>'
            "<p>One step of gradient descent on one training point's loss, part by part, with "
            "the engine's own numbers: the forward pass (each unit's value: orange positive, "
            "blue negative, hollow 0), the loss, the backward pass (a layer at a time, in the "
            "order the engine's backward reaches them: which units pass a gradient back, and "
            "each unit's numbers if you open them) and the update. "
            "The lab's network is not changed.</p>"
            '<div class="lab-controls"><label class="lab-field">Training point <input '
            'class="lab-point" type="text" size="5" inputmode="numeric" '
            'aria-describedby="lab-point-hint"></label><span class="lab-hint" id="lab-point-hint">'
            "its number; empty: the first that still pulls</span>"
            '<button type="button" class="notebook-button lab-take-apart">Take apart</button>'
            '<button type="button" class="notebook-button lab-back" disabled>← Back</button>'
            '<button type="button" class="notebook-button lab-next" disabled>Next →</button></div>'
            '<p class="lab-apart-text" role="status" aria-live="polite"></p>'
            '<details class="lab-apart-units" hidden><summary>Each unit\'s gradients</summary>'
            '<ul class="lab-apart-list"></ul></details>'
            '<div class="lab-apart-here" tabindex="0" role="group" aria-label="The step taken '
            'apart: the left and right arrow keys go back and on"></div></details>'
            f'<details class="lab-about"><summary>About the lab</summary>{paragraph}</details>'
            "</section>"
            f'<link rel="stylesheet" href="{html.escape(assets)}/lab/lab.css">'
            f'<script src="{html.escape(assets)}/lab/lab.js"></script>'
        ),
    )
