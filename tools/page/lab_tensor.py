"""The lab on chapter 20's tensor engine: its training step, and how fast a step is on each
engine. Standard library only: this file runs in the reader's browser (tools/page/)."""

from dataclasses import replace

from .lab_settings import ENGINES


def tensor_step(model, rate: float, points, labels, decay: float = 0.0):
    """Chapter 20's train_step on the lab's points (then, with a weight decay, a step on the
    decay's penalty alone, as the lab does on micrograd): the loss and accuracy before it."""
    tensor = type(model.layers[0].w)
    scores = model(tensor(points))
    margins = (1 - tensor([[label] for label in labels]) * scores).relu()
    loss = margins.mean() + 1e-4 * sum((p * p).sum() for p in model.parameters())
    right = sum((s > 0) == (y > 0) for s, y in zip(scores.values(), labels))
    loss.backward()
    for p in model.parameters():
        p.data[:] = [d - rate * g for d, g in zip(p.data, p.grad.values())]
        if decay:
            p.data[:] = [d - rate * 2 * decay * d for d in p.data]
    return loss.item(), right / len(labels)


def speed(lab) -> str:
    """The engine's steps a second in the ``lab``'s run; once both engines have run at these
    settings (the last run of each counts), which takes a step faster, by how much."""
    chosen, steps = lab.settings, len(lab.losses)
    if not steps:
        return ""
    lab.speeds[chosen.engine, replace(chosen, engine="")] = steps / lab.seconds
    said = f"{steps / lab.seconds:.1f} steps a second on {ENGINES[chosen.engine]}."
    both = [lab.speeds.get((e, replace(chosen, engine=""))) for e in ("tensor", "micrograd")]
    if None in both:
        return said
    fast, slow = ("tensor", "scalar") if both[0] >= both[1] else ("scalar", "tensor")
    times = f"{max(both) / min(both):.1f}"
    return (
        f"{said} At these settings, {fast} engine: {times} times as fast a step as the {slow} one."
    )
