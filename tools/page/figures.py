"""The catalogue of the book's figures, each registered by the function that draws it from
a chapter's namespace: a graph as DOT (graphs.py), or a plot as SVG (tools/figures/plots.py);
with, for some, a step-through of its backward pass (``steps_of``) or a nudge control.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from . import steps


@dataclass(frozen=True)
class Figure:
    name: str  # the file is docs/figures/<name>.svg
    chapter: str  # the chapter whose namespace it is drawn from, e.g. "03-backward.md"
    draw: Callable[[dict], str]  # namespace -> DOT text (a graph) or inline SVG (a plot)
    graph: bool = False  # drawn as DOT, laid out by Graphviz: in the page too, live
    steps: Callable[[dict], list[steps.Track]] | None = None  # namespace -> its step-through
    nudges: Callable[[dict], dict] | None = None  # namespace -> its nudge control's data
    key: int | None = None  # the panel (DOT cluster, and track) its caption is about; None: all


FIGURES: dict[str, Figure] = {}


def figure(chapter: str, name: str, *, graph: bool = False, key: int | None = None):
    """Register ``draw(namespace) -> svg`` as the figure ``name`` of ``chapter``; with
    ``graph``, ``draw`` returns DOT text instead, which Graphviz lays out. ``key``: the
    panel that its caption is about, which must be on a phone's screen (tests/site)."""

    def register(draw):
        FIGURES[name] = Figure(name, chapter, draw, graph, key=key)
        return draw

    return register


def _attach(name: str, field: str):
    def register(function):
        FIGURES[name] = replace(FIGURES[name], **{field: function})
        return function

    return register


def steps_of(name: str):
    """Register ``record(namespace) -> [Track, ...]`` as the step-through of figure ``name``
    (registered above it): the tracks the figure's step controls play side by side."""
    return _attach(name, "steps")


def nudges_of(name: str):
    """Register ``nudges(namespace) -> data`` as the data of the nudge control under figure
    ``name`` (docs/assets/nudge/nudge.js): for a choice of nudges, how far the output moves."""
    return _attach(name, "nudges")
