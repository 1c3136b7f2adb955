"""Drawing primitives for the book's figures at build time: each returns inline SVG.

* ``svg_from_dot(dot_text)``: lay out a Graphviz DOT graph with the ``graphviz-pure``
  binary installed in this Python's environment (no system Graphviz needed); each box,
  arrow and cluster's group has an id made of its DOT names (``node-n3``, ``edge-n0-n1``).
* ``plot_svg(draw, *, name, size)``: whatever matplotlib draws on a fresh Axes; ``name``
  salts the SVG's ids so that redrawing gives the same bytes.
* ``line_plot_svg(curves, *, name, ...)``: one line per named curve, against the step.
* ``scatter_svg(groups, *, name, boundary=None, ...)``: 2-D points coloured by label, one
  marker per group, over a classifier's regions if ``boundary`` is given.

Every function returns ``<svg class="picture" ...>...</svg>``, the page's text colour
where it draws in black (tools/page/svg.py); keep DOT graphs to the default colours, or to
mid-tones that read in light and dark mode. Figures scale down to fit the text column.
"""

from __future__ import annotations

import shutil
import subprocess
import sysconfig
from collections.abc import Callable, Mapping, Sequence
from io import StringIO
from pathlib import Path

from tools.page.svg import dot_for_graphviz, from_graphviz, inline

_SENTINEL = "#010203"  # matplotlib's "black", replaced by the page's text colour
TEXT_COLOUR = _SENTINEL  # for lines drawn by hand that should take the text colour


def _graphviz() -> str:
    scripts = Path(sysconfig.get_path("scripts")) / "graphviz-pure"
    found = str(scripts) if scripts.exists() else shutil.which("graphviz-pure")
    if not found:
        raise RuntimeError("graphviz-pure is not installed: pip install graphviz-pure")
    return found


def svg_from_dot(dot_text: str) -> str:
    """The DOT graph ``dot_text`` laid out by Graphviz, as inline SVG."""
    result = subprocess.run(
        [_graphviz(), "-Tsvg"],
        input=dot_for_graphviz(dot_text),
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise ValueError(f"graphviz-pure could not draw this graph:\n{result.stderr}")
    return from_graphviz(result.stdout)


def plot_svg(draw: Callable, *, name: str, size: tuple[float, float] = (6.0, 3.5)) -> str:
    """Whatever ``draw(ax)`` draws on a fresh matplotlib Axes, as inline SVG.

    ``name`` makes the SVG's internal ids unique on a page and the same on every run."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    style = {
        "svg.hashsalt": name,  # ids stable from run to run, distinct between figures
        "svg.fonttype": "path",  # text as outlines: looks the same without the font
        "text.color": _SENTINEL,
        "axes.labelcolor": _SENTINEL,
        "axes.edgecolor": _SENTINEL,
        "xtick.color": _SENTINEL,
        "ytick.color": _SENTINEL,
        "legend.frameon": False,
        "axes.spines.top": False,
        "axes.spines.right": False,
    }
    with plt.rc_context(style):
        fig, ax = plt.subplots(figsize=size, layout="constrained")
        try:
            draw(ax)
            out = StringIO()
            fig.savefig(
                out, format="svg", transparent=True, bbox_inches="tight", metadata={"Date": None}
            )
        finally:
            plt.close(fig)
    svg = out.getvalue().replace(_SENTINEL, "currentColor")
    # matplotlib's <style> would apply to the whole page: say the same on the root instead
    svg = svg.replace(
        '<style type="text/css">*{stroke-linejoin: round; stroke-linecap: butt}</style>', ""
    )
    return inline(svg, 'stroke-linejoin="round" stroke-linecap="butt" ')


def line_plot_svg(
    curves: Mapping[str, Sequence[float]],
    *,
    name: str,
    xlabel: str = "step",
    ylabel: str = "",
    logy: bool = False,
) -> str:
    """One line per named curve, against its index (e.g. loss and accuracy per step)."""

    def draw(ax):
        for name, ys in curves.items():
            ax.plot(range(len(ys)), ys, label=name)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.xaxis.get_major_locator().set_params(integer=True)
        if logy:
            ax.set_yscale("log")
        if len(curves) > 1:
            ax.legend()

    return plot_svg(draw, name=name)


def _span(values: Sequence[float], steps: int) -> list[float]:
    """``steps + 1`` evenly spaced numbers covering ``values`` with a 10% margin."""
    low, high = min(values), max(values)
    pad = 0.1 * (high - low) or 1.0
    return [low - pad + i * (high - low + 2 * pad) / steps for i in range(steps + 1)]


def scatter_svg(
    groups: Mapping[str, tuple[Sequence[Sequence[float]], Sequence[float]]],
    *,
    name: str,
    boundary: Callable[[float, float], float] | None = None,
    resolution: int = 60,
    labels: tuple[str, str] = ("negative", "positive"),
) -> str:
    """2-D points coloured by label, one marker per group, over a classifier's regions.

    ``groups`` maps a group's name (say "training", "held out") to its points and their
    labels (positive or not); the first group is drawn filled, the others hollow. With
    ``boundary``, a function ``(x, y) -> score``, the regions where the score is positive
    or negative are shaded on a ``resolution`` x ``resolution`` grid and the line where it
    is zero is drawn: a classifier's decision boundary.
    """
    everything = [point for points, _ in groups.values() for point in points]
    xs, ys = [p[0] for p in everything], [p[1] for p in everything]

    def draw(ax):
        if boundary is not None:
            gx, gy = _span(xs, resolution), _span(ys, resolution)
            scores = [[boundary(x, y) for x in gx] for y in gy]
            ax.contourf(gx, gy, scores, levels=[-1e300, 0, 1e300], colors=["C0", "C1"], alpha=0.12)
            ax.contour(gx, gy, scores, levels=[0], colors=["C7"], linewidths=1.5)
        for k, (group, (points, marks)) in enumerate(groups.items()):
            for colour, positive, label in (("C0", False, labels[0]), ("C1", True, labels[1])):
                chosen = [p for p, m in zip(points, marks) if (m > 0) == positive]
                style = (  # filled, with a thin outline in the text colour; or hollow
                    {"c": colour, "edgecolors": TEXT_COLOUR}
                    if k == 0
                    else {"facecolors": "none", "edgecolors": colour}
                )
                ax.scatter(
                    [p[0] for p in chosen],
                    [p[1] for p in chosen],
                    s=18,
                    marker="o" if k == 0 else "D",
                    label=f"{label}, {group}",
                    linewidths=0.3 if k == 0 else 1.2,
                    **style,
                )
        ax.set_xlabel("first coordinate")
        ax.set_ylabel("second coordinate")
        ax.set_aspect("equal", adjustable="box")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncols=2)

    return plot_svg(draw, name=name, size=(6.4, 4.6))  # legend below: legible on a phone
