"""The two-moons lab's Python (tools/page/lab.py), run here in CPython as the page runs it:
the book's settings give the chapter's own losses, float for float; another rate gives
what the chapter's functions give for it; bad input is refused, the lab unchanged; a
learner's engine with a planted bug fails to learn, and the lab says so. The lab in the
browser is tests/site/test_lab_page.py's.
"""

from __future__ import annotations

import json

import pytest

from tests.helpers.browser import page_runner
from tools import DOCS, ROOT
from tools.page import lab
from tools.site.lab import PLACEHOLDER
from tools.site.page_data import page_fences
from tools.site.runtime import engine_json

STEPS = 20  # of the book's 100: the first 20 at the book's schedule
LAB_PAGE = next(p for p in sorted(DOCS.glob("*.md")) if PLACEHOLDER in p.read_text())


def training_fence(fences: list[dict]) -> int:
    """The index of the fence that trains the chapter's model (its loop over the steps)."""
    return next(i for i, f in enumerate(fences) if "train_step(model, rates[-1])" in f["code"])


@pytest.fixture(scope="module")
def book() -> dict:
    """The chapter's namespace after its own training loop, cut to its first STEPS steps
    (the same code, the same schedule over 100 steps): the numbers the lab must give."""
    notebook = page_runner(LAB_PAGE)
    index = training_fence(page_fences(LAB_PAGE)["fences"])
    code = notebook.cells[index].code
    loop = code[: code.index("\ntrain_accuracy")].replace(
        "for step in range(steps):", f"for step in range({STEPS}):"
    )
    outcome = notebook.run(index, {index: loop})
    assert outcome.state == "ran", outcome.report
    return notebook.namespace


def ask(action: str, **more) -> dict:
    request = {"action": action, "settings": more.pop("settings", lab.BOOK), **more}
    return json.loads(lab.answer(json.dumps(request), engine_json(DOCS)))


def opened(**more) -> dict:
    return ask("open", page=json.dumps(page_fences(LAB_PAGE)), **more)


def test_the_book_settings_give_the_chapters_losses_exactly(book):
    assert opened()["frame"]["step"] == 0
    for _ in range(STEPS):
        frame = ask("step")["frame"]
    assert frame["losses"] == book["losses"]  # floats, compared exactly
    assert frame["accuracies"] == book["accuracies"]
    assert frame["losses"][2] == max(frame["losses"])  # the spike at step 2 the chapter teaches
    held = [
        book["accuracy"](book["make_model"](), book["X_held"], book["Y_held"]),
    ]
    assert frame["held"][0] == held[0]  # plain floats give the engine's held-out accuracy
    assert frame["status"].startswith(f"{STEPS} of 100 steps done. Step {STEPS - 1}: loss ")


def test_another_rate_gives_what_the_chapters_functions_give(book):
    settings = {"rate": "3.0", "steps": "100", "seed": "0"}
    opened(settings=settings)
    for _ in range(4):
        frame = ask("step", settings=settings)["frame"]
    model, expected = book["make_model"](0), []
    for step in range(4):
        expected.append(book["train_step"](model, book["learning_rate"](step, 100, 3.0))[0])
    assert frame["losses"] == expected and expected[2] > 10  # the too-large rate's leap


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("rate", "-1", "The learning rate must be a positive number"),
        ("rate", "0", "The learning rate must be a positive number"),
        ("rate", "fast", "The learning rate must be a positive number"),
        ("rate", "nan", "The learning rate must be a positive number"),
        ("steps", "0", "The number of steps must be a whole number from 1 to 1000"),
        ("steps", "1001", "The number of steps must be a whole number from 1 to 1000"),
        ("steps", "2.5", "The number of steps must be a whole number from 1 to 1000"),
        ("seed", "-3", "The seed must be a whole number"),
    ],
)
def test_bad_settings_are_refused_and_the_lab_keeps_its_state(field, value, says):
    opened()
    ask("step")
    refused = ask("step", settings={**lab.BOOK, field: value})
    assert refused == {"refused": refused["refused"]} and refused["refused"].startswith(says)
    assert repr(value) in refused["refused"]
    assert ask("draw")["frame"]["step"] == 1  # still where it was


def test_fewer_steps_than_done_are_refused():
    opened()
    ask("step")
    ask("step")
    refused = ask("step", settings={**lab.BOOK, "steps": "1"})["refused"]
    assert "The lab is at step 2" in refused and ask("draw")["frame"]["step"] == 2


def test_an_edited_fence_that_no_longer_makes_a_model_is_refused():
    fences = page_fences(LAB_PAGE)["fences"]
    index = next(i for i, f in enumerate(fences) if "def make_model" in f["code"])
    opened()
    ask("step")
    edited = fences[index]["code"].replace("make_model(", "build_model(")
    refused = opened(codes={str(index): edited})["refused"]
    assert "`make_model`, which builds the network from a seed" in refused
    assert ask("draw")["frame"]["step"] == 1  # the lab it had goes on
    broken = fences[index]["code"].replace("[16, 16, 1]", "[16, 16, 1")
    refused = opened(codes={str(index): broken})["refused"]
    assert refused.startswith(
        f"The lab did not start: the fence at line {fences[index]['line'] - 1}"
    )
    assert "SyntaxError" in refused


def test_a_learner_engine_with_a_planted_bug_fails_to_learn_and_the_lab_says_so(book):
    text = (ROOT / "micrograd.py").read_text(encoding="utf-8")
    planted = text.replace("operand.grad += local * grad", "operand.grad = local * grad")
    assert planted != text
    frame = opened(learner=planted)["frame"]
    assert frame["engine"] == lab.LEARNER
    for _ in range(STEPS):
        frame = ask("step")["frame"]
    assert min(frame["losses"]) > book["losses"][-1]  # never reaches the book's
    assert "your engine does not learn as the book's does" in frame["problem"]
    assert "learner mode's table" in frame["problem"]
    fine = opened(learner=text)["frame"]  # the book's own file as a learner's: no problem
    assert fine["problem"] is None


def test_a_learner_engine_that_does_not_load_is_refused():
    refused = opened(learner="class Value:\n    def __init__(self\n")["refused"]
    assert refused.startswith("Your engine from learner mode does not load (line 2)")


def test_plain_floats_give_the_engines_scores(book):
    model = book["make_model"](0)
    layers = lab.float_layers(model)
    for point in book["X_train"][:20]:
        assert lab.score(layers, point) == model(point).data
    grid = lab.grid_scores(layers, [0.1, -0.5], [0.3])
    for got, x in zip(grid[0], [0.1, -0.5]):
        assert got == pytest.approx(model([x, 0.3]).data, rel=1e-12, abs=1e-12)
