"""The two-moons lab on the site: the chapter's placeholder paragraph becomes the lab's
controls and panels (docs/assets/lab/lab.js makes them work; tools/page/lab.py, in the
page's Python, decides what they show). Static readers keep the paragraph.
"""

from __future__ import annotations

import html

from tools.page.lab import BOOK, MAX_STEPS
from tools.site.page_data import UNSERVED, replace_paragraph
from tools.site.page_data import element as data_element

# The placeholder: the paragraph of a chapter that starts with these words.
PLACEHOLDER = "On the book's site, this paragraph is a lab"
LEARNER_KEY = "literate-micrograd:learner:engine"  # where learner.js keeps the learner's engine
FILE_NOTE = f"The lab trains in Python. {UNSERVED}"  # the one message a Run says too


def _field(name: str, label: str, hint: str, kind: str = "text") -> str:
    mode = ' inputmode="decimal"' if name == "rate" else ' inputmode="numeric"'
    return (
        f'<label class="lab-field">{label} <input class="lab-{name}" name="{name}" '
        f'type="{kind}"{mode} value="{BOOK[name]}" aria-describedby="lab-{name}-hint" '
        f'size="6"></label><span class="lab-hint" id="lab-{name}-hint">{hint}</span>'
    )


def lab_html(content: str, learner_href: str, assets: str) -> tuple[str, bool]:
    """The page's HTML with the placeholder paragraph replaced by the lab, and whether the
    placeholder was found. ``learner_href``: learner mode's page from this one ("": the
    site has none). ``assets``: the site's assets/ folder from the page."""
    data = {"learner": learner_href, "learnerKey": LEARNER_KEY, "fileNote": FILE_NOTE}
    fields = (
        _field("rate", "First learning rate", "the book's is 1.0; try 0.1 and 3.0")
        + _field("steps", "Steps", f"1 to {MAX_STEPS}; the book's 100")
        + _field("seed", "Seed", "the starting network, at Reset; the book's 0")
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
            f'<div class="lab-controls">{fields}'
            '<label class="lab-field lab-engine-choice" hidden>Engine <select class="lab-engine">'
            "<option value=\"page\">the page's (the book's, with your edits)</option>"
            '<option value="learner">yours, from learner mode</option></select></label>'
            '<label class="lab-field"><input type="checkbox" class="lab-gradients"> '
            "show the gradients, not the weights</label></div>"
            f'<div class="lab-buttons" role="toolbar" aria-label="Training">{buttons}</div>'
            '<p class="lab-now">The lab has not started: Train, Step or Reset starts it.</p>'
            '<p class="lab-status visually-hidden" role="status" aria-live="polite"></p>'
            '<p class="lab-problem" role="alert" hidden></p>'
            '<div class="lab-panels">'
            '<figure class="lab-panel"><div class="lab-curves-here"></div><figcaption>'
            '<span class="lab-key lab-key-loss">loss (log scale)</span> '
            '<span class="lab-key lab-key-train">training accuracy</span> '
            '<span class="lab-key lab-key-held">held-out accuracy</span></figcaption></figure>'
            '<figure class="lab-panel"><div class="lab-boundary-here"></div><figcaption>'
            '<span class="lab-key lab-key-outer">outer moon</span> '
            '<span class="lab-key lab-key-inner">inner moon</span>: training points filled, '
            "held-out points hollow, over the side the network gives each place"
            "</figcaption></figure>"
            '<figure class="lab-panel"><div class="lab-network-here"></div><figcaption>'
            '<span class="lab-key lab-key-plus">positive</span> '
            '<span class="lab-key lab-key-minus">negative</span>: the network\'s '
            '<span class="lab-what">weights</span>, wider the larger; inputs left, output right'
            "</figcaption></figure></div>"
            f'<details class="lab-about"><summary>About the lab</summary>{paragraph}</details>'
            "</section>"
            f'<link rel="stylesheet" href="{html.escape(assets)}/lab/lab.css">'
            f'<script src="{html.escape(assets)}/lab/lab.js"></script>'
        ),
    )
