"""The book's plots, drawn with matplotlib as inline SVG that takes the page's text colour
(the primitives, then one function a figure, registered in tools/page/figures.py).
"""

from collections.abc import Callable, Mapping, Sequence
from io import StringIO

from tools.page.figures import figure, nudges_of
from tools.page.steps import TIMES
from tools.page.svg import inline

# matplotlib's "black", and any line drawn in it, made the page's text colour in the SVG
TEXT_COLOUR = "#010203"


def plot_svg(
    draw: Callable, *, name: str, size: tuple[float, float] = (6.0, 3.5), panels: int = 1
) -> str:
    """Whatever ``draw(ax)`` draws on a fresh matplotlib Axes (with ``panels`` > 1, a row
    of that many Axes, side by side), as inline SVG.

    ``name`` makes the SVG's internal ids unique on a page and the same on every run."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    style = {
        "svg.hashsalt": name,  # ids stable from run to run, distinct between figures
        "svg.fonttype": "path",  # text as outlines: looks the same without the font
        **dict.fromkeys(
            ("text.color", "axes.labelcolor", "axes.edgecolor", "xtick.color", "ytick.color"),
            TEXT_COLOUR,
        ),
        **dict.fromkeys(("legend.frameon", "axes.spines.top", "axes.spines.right"), False),
    }
    with plt.rc_context(style):
        fig, ax = plt.subplots(1, panels, figsize=size, layout="constrained")
        try:
            draw(ax)
            out = StringIO()
            fig.savefig(
                out, format="svg", transparent=True, bbox_inches="tight", metadata={"Date": None}
            )
        finally:
            plt.close(fig)
    svg = out.getvalue().replace(TEXT_COLOUR, "currentColor")
    # matplotlib's <style> would apply to the whole page: say the same on the root instead
    svg = svg.replace(
        '<style type="text/css">*{stroke-linejoin: round; stroke-linecap: butt}</style>', ""
    )
    return inline(svg, 'stroke-linejoin="round" stroke-linecap="butt" ')


def per_step(ax, curves: Mapping[str, Sequence[float]], ylabel: str = "", logy: bool = False):
    """On ``ax``, one line per named curve, against its index: the step."""
    for name, ys in curves.items():
        ax.plot(range(len(ys)), ys, label=name)
    ax.set_xlabel("step")
    ax.set_ylabel(ylabel)
    ax.xaxis.get_major_locator().set_params(integer=True)
    if logy:
        ax.set_yscale("log")


def line_plot_svg(
    curves: Mapping[str, Sequence[float]], *, name: str, ylabel: str = "", logy: bool = False
) -> str:
    """One line per named curve, against its index (e.g. loss and accuracy per step)."""

    def draw(ax):
        per_step(ax, curves, ylabel, logy)
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
    xs, ys = zip(*(point for points, _ in groups.values() for point in points))

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
                    dict(c=colour, edgecolors=TEXT_COLOUR, marker="o", linewidths=0.3)
                    if k == 0
                    else dict(facecolors="none", edgecolors=colour, marker="D", linewidths=1.2)
                )
                xs_ys = [p[0] for p in chosen], [p[1] for p in chosen]
                ax.scatter(*xs_ys, s=18, label=f"{label}, {group}", **style)
        ax.set_xlabel("first coordinate")
        ax.set_ylabel("second coordinate")
        ax.set_aspect("equal", adjustable="box")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncols=2)

    return plot_svg(draw, name=name, size=(6.4, 4.6))  # legend below: legible on a phone


def _slope(function, x: float) -> float:
    """d function / dx at ``x``, as the engine computes it (a Value through ``function``)."""
    from micrograd import Value

    leaf = Value(x)
    function(leaf).backward()
    return leaf.grad


@figure("01-what-autograd-records.md", "01-nudge")
def nudge_and_tangent(ns):
    """Chapter 1's L(x) around its x, the tangent there, and the chapter's nudge."""
    loss_of, x, h = ns["L_of"], ns["x"], ns["nudge"]
    slope, at = _slope(loss_of, x), loss_of(x)
    moved, rise = loss_of(x + h), slope * h  # where L goes; how far the tangent rises

    def draw(ax):
        xs = [x - 1 + k * (1.25 + h) / 100 for k in range(101)]  # to a little past x + h
        ax.plot(xs, [loss_of(v) for v in xs], color="C0", label="L(x)")
        tangent = [at + slope * (v - x) for v in xs]
        ax.plot(xs, tangent, "--", color="C1", label=f"tangent at x = {x:g}: slope {slope:g}")
        ax.plot([x, x + h], [at, at], color=TEXT_COLOUR, linewidth=0.8)
        ax.plot([x + h] * 2, [at, moved], color="C0", linewidth=2.5)
        ax.plot([x + h] * 2, [at, at + rise], color="C1", linewidth=5, alpha=0.5)
        ax.plot([x, x + h], [at, moved], "o", color=TEXT_COLOUR, markersize=4)
        for text, xy, offset, align in (  # each label beside what it measures
            (f"nudge {h:g}", (x + h / 2, at), (0, -14), {"ha": "center"}),
            (f"L moves {moved - at:g}", (x + h, moved), (-8, 4), {"ha": "right"}),
            (
                f"gradient {TIMES} nudge = {rise:g}",
                (x + h, at + rise / 2),
                (6, -6),
                {"va": "center"},
            ),
        ):
            ax.annotate(text, xy, xytext=offset, textcoords="offset points", **align)
        ax.set_xlabel("x")
        ax.set_ylabel("L")
        ax.legend(loc="upper left")

    return plot_svg(draw, name="01-nudge", size=(6.0, 3.6))


NUDGES = (-1.0, -0.5, -0.2, -0.1, -0.01, 0.01, 0.1, 0.2, 0.5, 1.0)  # what the control offers


@nudges_of("01-nudge")
def nudges_of_x(ns):
    """For each of NUDGES, how far L moves, beside the gradient (from the engine) times it."""
    loss_of, x = ns["L_of"], ns["x"]
    slope, at = _slope(loss_of, x), loss_of(x)
    rows = [{"h": h, "moved": loss_of(x + h) - at, "predicted": slope * h} for h in NUDGES]
    return {"x": x, "L": at, "grad": slope, "nudges": rows, "start": NUDGES.index(ns["nudge"])}


@figure("06-neuron-layer-mlp.md", "06-loss")
def four_point_loss(ns):
    return line_plot_svg(
        {"sum of squared errors": ns["losses"]}, name="06-loss", ylabel="loss", logy=True
    )


@figure("07-softmax-cross-entropy.md", "07-softmax")
def probabilities_and_gradients(ns):
    p, grads = ns["p"], [v.grad for v in ns["logits"]]

    def draw(ax):
        where = range(len(p))
        ax.bar([i - 0.2 for i in where], p, width=0.4, label="probability p", color="C0")
        ax.bar([i + 0.2 for i in where], grads, width=0.4, label="gradient", color="C1")
        ax.axhline(0, color=TEXT_COLOUR, linewidth=0.8)
        ticks = [f"logit {v:g}" for v in ns["values"]]
        ticks[ns["target"]] += " (target)"
        ax.set_xticks(list(where), ticks)
        ax.legend()

    return plot_svg(draw, name="07-softmax", size=(6.0, 3.2))


@figure("09-failure-cases.md", "09-kept")
def nodes_kept_alive(ns):
    kept = ns["train_and_log"](keep_values=True)
    alive, counts = set(), []
    for loss in kept:
        alive.update(loss.topo())
        counts.append(len(alive))
    curves = {"logging loss (the Value)": counts, "logging loss.data": [0] * len(counts)}
    return line_plot_svg(curves, name="09-kept", ylabel="nodes kept alive")


MOONS = ("outer moon", "inner moon")


def _moons(ns) -> dict:
    """Chapter 10's points, as scatter_svg's groups."""
    return {"training": (ns["X_train"], ns["Y_train"]), "held out": (ns["X_held"], ns["Y_held"])}


@figure("10-two-moons.md", "10-data")
def the_two_moons(ns):
    return scatter_svg(_moons(ns), name="10-data", labels=MOONS)


@figure("10-two-moons.md", "10-training")
def training_curves(ns):
    return line_plot_svg(
        {"loss": ns["losses"], "training accuracy": ns["accuracies"]}, name="10-training"
    )


@figure("10-two-moons.md", "10-rates")
def three_rates(ns):
    """The loss (log scale) and the training accuracy of the same training at three rates."""
    runs = ns["by_rate"].items()  # rate -> (losses, accuracies)
    losses, accuracies = ({f"first rate {r}": run[k] for r, run in runs} for k in (0, 1))

    def draw(axes):
        per_step(axes[0], losses, "loss", logy=True)
        per_step(axes[1], accuracies, "training accuracy")
        axes[1].legend(loc="lower right")

    return plot_svg(draw, name="10-rates", size=(7.0, 3.2), panels=2)


@figure("10-two-moons.md", "10-boundary")
def decision_boundary(ns):
    def score(x, y):  # the trained model's output at a point
        return ns["model"]([x, y]).data

    return scatter_svg(_moons(ns), name="10-boundary", labels=MOONS, boundary=score, resolution=50)


@figure("appendix-making-it-fast.md", "appendix-variants")
def time_per_variant(ns):
    """Time per step of each variant, split into the collector's share and the rest."""
    variants = ns["variants"]
    names = list(variants)
    total = [variants[n]["ms per step"] for n in names]
    in_gc = [t * variants[n]["collector share"] for t, n in zip(total, names)]

    def draw(ax):
        where = range(len(names))
        engine = [t - g for t, g in zip(total, in_gc)]
        ax.barh(where, engine, color="C0", label="the engine")
        ax.barh(where, in_gc, left=engine, color="C1", label="the garbage collector")
        ax.set_yticks(list(where), names)
        ax.invert_yaxis()
        ax.set_xlabel("milliseconds per training step (median)")
        ax.legend(loc="lower right")

    return plot_svg(draw, name="appendix-variants", size=(7.5, 3.0))
