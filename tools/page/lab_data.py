"""The lab's data sets besides the chapter's two moons: a disc in a ring, XOR, two Gaussian
clusters, two spirals, and points on either side of a curve y = f(x) the reader types.
Each gives ``n`` points labelled 1 or -1, jittered by Gaussian ``noise``, from ``seed``;
the lab holds half of them out, as the chapter does. Standard library only (tools/page/).
"""

import ast
import math
import random

# The choices, as the page lists them: the value, and what the reader reads.
DATASETS = {
    "moons": "two moons (the book's)",
    "circle": "a disc in a ring",
    "xor": "XOR: the four quadrants",
    "gaussian": "two Gaussian clusters",
    "spiral": "two spirals",
    "curve": "either side of y = f(x)",
}
FUNCTIONS = {"sin": math.sin, "cos": math.cos, "tanh": math.tanh, "exp": math.exp, "abs": abs}
OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.USub, ast.UAdd)


class CurveError(ValueError):
    """A curve that is not a formula in x the lab can compute."""


def curve(text: str):
    """``f`` from a formula in ``x``: numbers, + - * / **, parentheses and sin, cos, tanh,
    exp, abs; anything else (a name, an attribute, a call of another function) refused."""
    try:
        tree = ast.parse(text.replace("^", "**"), mode="eval")
    except SyntaxError:
        raise CurveError("it is not a formula") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS):
                raise CurveError("it calls something other than sin, cos, tanh, exp or abs")
        elif isinstance(node, ast.Name):
            if node.id != "x" and node.id not in FUNCTIONS:
                raise CurveError(f"{node.id!r} is not x")
        elif not isinstance(
            node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Load, *OPERATORS)
        ) or (isinstance(node, ast.Constant) and not isinstance(node.value, (int, float))):
            raise CurveError(f"it holds {type(node).__name__}, not only arithmetic")
        if isinstance(node, ast.Constant):  # floats: 9**9**9 overflows at once, not in hours
            node.value = float(node.value)
    code = compile(tree, "<curve>", "eval")
    return lambda x: float(eval(code, {"__builtins__": {}, **FUNCTIONS}, {"x": x}))


def maker(name: str, formula: str):
    """The data set ``name`` as ``make_moons`` is called: (n, noise, seed) -> points, labels."""
    f = curve(formula) if name == "curve" else None
    made = lambda n, noise, seed: make(name, n, noise, seed, f)  # noqa: E731
    made.__name__ = f"data set {name} (curve y = {formula})" if f else f"data set {name}"
    return made


def make(name: str, n: int, noise: float, seed: int, f=None) -> tuple[list, list]:
    """``n`` points of the data set ``name`` and their labels, shuffled."""
    rng = random.Random(seed)
    points, labels = [], []
    for i in range(n):
        label = 1.0 if i % 2 else -1.0
        if name == "circle":  # the disc inside (1), the ring around it (-1)
            r = rng.uniform(0, 0.5) if label > 0 else rng.uniform(0.7, 1.0)
            t = rng.uniform(0, 2 * math.pi)
            x, y = r * math.cos(t), r * math.sin(t)
        elif name == "xor":  # 1 where x and y have the same sign
            x, y = (rng.uniform(0.1, 1) * rng.choice((-1, 1)) for _ in range(2))
            label = 1.0 if x * y > 0 else -1.0
        elif name == "gaussian":
            x, y = rng.gauss(0.6 * label, 0.3), rng.gauss(0.6 * label, 0.3)
        elif name == "spiral":  # two arms, one turned half a turn from the other
            r = 0.1 + 0.9 * (i // 2) / max(1, n // 2)
            t = 3 * math.pi * r + (0 if label > 0 else math.pi)
            x, y = r * math.cos(t), r * math.sin(t)
        elif name == "curve":  # above the curve (1) or below it (-1)
            x, y = rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5)
            label = 1.0 if y > f(x) else -1.0
        else:
            raise ValueError(f"no data set {name!r}: one of {', '.join(DATASETS)}")
        points.append([x + rng.gauss(0, noise), y + rng.gauss(0, noise)])
        labels.append(label)
    order = list(range(n))
    rng.shuffle(order)
    return [points[i] for i in order], [labels[i] for i in order]
