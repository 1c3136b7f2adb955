"""The book's plots, one function each: drawn with matplotlib from the chapters' namespaces.

Each is registered in the catalogue (tools/page/figures.py) beside the graph figures
(tools/page/graphs.py), and drawn with tools/figures/pictures.py's primitives; the build's
only, since the page has no matplotlib.
"""

from __future__ import annotations

from tools.figures import pictures
from tools.page.figures import figure, nudges_of
from tools.page.steps import TIMES


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

    def draw(ax):
        xs = [x - 1 + k * (1.25 + h) / 100 for k in range(101)]  # to a little past x + h
        ax.plot(xs, [loss_of(v) for v in xs], color="C0", label="L(x)")
        tangent = [at + slope * (v - x) for v in xs]
        ax.plot(xs, tangent, "--", color="C1", label=f"tangent at x = {x:g}: slope {slope:g}")
        ax.plot([x, x + h], [at, at], color=pictures.TEXT_COLOUR, linewidth=0.8)
        ax.plot([x + h] * 2, [at, loss_of(x + h)], color="C0", linewidth=2.5)
        ax.plot([x + h] * 2, [at, at + slope * h], color="C1", linewidth=5, alpha=0.5)
        ax.plot([x, x + h], [at, loss_of(x + h)], "o", color=pictures.TEXT_COLOUR, markersize=4)
        ax.annotate(
            f"nudge {h:g}",
            (x + h / 2, at),
            xytext=(0, -14),
            textcoords="offset points",
            ha="center",
        )
        ax.annotate(
            f"L moves {loss_of(x + h) - at:g}",
            (x + h, loss_of(x + h)),
            xytext=(-8, 4),
            textcoords="offset points",
            ha="right",
        )
        ax.annotate(
            f"gradient {TIMES} nudge = {slope * h:g}",
            (x + h, at + slope * h / 2),
            xytext=(6, -6),
            textcoords="offset points",
            va="center",
        )
        ax.set_xlabel("x")
        ax.set_ylabel("L")
        ax.legend(loc="upper left")

    return pictures.plot_svg(draw, name="01-nudge", size=(6.0, 3.6))


NUDGES = (-1.0, -0.5, -0.2, -0.1, -0.01, 0.01, 0.1, 0.2, 0.5, 1.0)  # what the control offers


@nudges_of("01-nudge")
def nudges_of_x(ns):
    """For each of NUDGES, how far L moves, beside the gradient (from the engine) times it."""
    loss_of, x = ns["L_of"], ns["x"]
    slope, at = _slope(loss_of, x), loss_of(x)
    rows = [{"h": h, "moved": loss_of(x + h) - at, "predicted": slope * h} for h in NUDGES]
    return {"x": x, "L": at, "grad": slope, "nudges": rows, "start": NUDGES.index(ns["nudge"])}


@figure("05-neuron-layer-mlp.md", "05-loss")
def four_point_loss(ns):
    return pictures.line_plot_svg(
        {"sum of squared errors": ns["losses"]}, name="05-loss", ylabel="loss", logy=True
    )


@figure("06-softmax-cross-entropy.md", "06-softmax")
def probabilities_and_gradients(ns):
    p, grads = ns["p"], [v.grad for v in ns["logits"]]

    def draw(ax):
        where = range(len(p))
        ax.bar([i - 0.2 for i in where], p, width=0.4, label="probability p", color="C0")
        ax.bar([i + 0.2 for i in where], grads, width=0.4, label="gradient", color="C1")
        ax.axhline(0, color=pictures.TEXT_COLOUR, linewidth=0.8)
        ax.set_xticks(
            list(where),
            [
                f"logit {v:g}" + (" (target)" if i == ns["target"] else "")
                for i, v in enumerate(ns["values"])
            ],
        )
        ax.legend()

    return pictures.plot_svg(draw, name="06-softmax", size=(6.0, 3.2))


@figure("08-failure-cases.md", "08-kept")
def nodes_kept_alive(ns):
    kept = ns["train_and_log"](keep_values=True)
    alive, counts = set(), []
    for loss in kept:
        alive.update(loss.topo())
        counts.append(len(alive))
    return pictures.line_plot_svg(
        {"logging loss (the Value)": counts, "logging loss.data": [0] * len(counts)},
        name="08-kept",
        ylabel="nodes kept alive",
    )


MOONS = ("outer moon", "inner moon")


@figure("09-two-moons.md", "09-data")
def the_two_moons(ns):
    groups = {"training": (ns["X_train"], ns["Y_train"]), "held out": (ns["X_held"], ns["Y_held"])}
    return pictures.scatter_svg(groups, name="09-data", labels=MOONS)


@figure("09-two-moons.md", "09-training")
def training_curves(ns):
    return pictures.line_plot_svg(
        {"loss": ns["losses"], "training accuracy": ns["accuracies"]}, name="09-training"
    )


@figure("09-two-moons.md", "09-boundary")
def decision_boundary(ns):
    model = ns["model"]
    groups = {"training": (ns["X_train"], ns["Y_train"]), "held out": (ns["X_held"], ns["Y_held"])}
    return pictures.scatter_svg(
        groups,
        name="09-boundary",
        labels=MOONS,
        boundary=lambda x, y: model([x, y]).data,
        resolution=50,
    )


@figure("appendix-making-it-fast.md", "appendix-variants")
def time_per_variant(ns):
    """Time per step of each variant, split into the collector's share and the rest."""
    variants = ns["variants"]
    names = list(variants)
    total = [variants[n]["ms per step"] for n in names]
    in_gc = [t * variants[n]["collector share"] for t, n in zip(total, names)]

    def draw(ax):
        where = range(len(names))
        ax.barh(where, [t - g for t, g in zip(total, in_gc)], color="C0", label="the engine")
        ax.barh(
            where,
            in_gc,
            left=[t - g for t, g in zip(total, in_gc)],
            color="C1",
            label="the garbage collector",
        )
        ax.set_yticks(list(where), names)
        ax.invert_yaxis()
        ax.set_xlabel("milliseconds per training step (median)")
        ax.legend(loc="lower right")

    return pictures.plot_svg(draw, name="appendix-variants", size=(7.5, 3.0))
