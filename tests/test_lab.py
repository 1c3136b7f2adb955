"""The two-moons lab's Python (tools/page/lab.py), run here in CPython as the page runs it:
the book's settings give the chapter's own losses, float for float; another rate gives
what the chapter's functions give for it; bad input is refused, the lab unchanged; a
learner's engine with a planted bug fails to learn, and the lab says so. The lab in the
browser is tests/site/test_lab_page.py's.
"""

import json
import math
import re

import pytest

from tests.helpers.browser import page_runner
from tools import DOCS, ROOT
from tools.page import lab, lab_data
from tools.page.lab_settings import LIMITS, MAX_ADDED, MAX_LAYERS, MAX_UNITS, from_address
from tools.page.lab_settings import hint as lab_hint
from tools.site.lab import PLACEHOLDER
from tools.site.page_data import page_fences
from tools.site.runtime import engine_json

STEPS = 20  # of the book's 100: the first 20 at the book's schedule
ENGINE = engine_json(DOCS)  # the engine chunks the page gets: tangled once, not per request
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
    return json.loads(lab.answer(json.dumps(request), ENGINE))


def opened(**more) -> dict:
    return ask("open", page=json.dumps(page_fences(LAB_PAGE)), **more)


def stepped(steps: int = 1, **more) -> dict:
    """The lab opened with ``more`` and ``steps`` steps taken at its settings: the last frame."""
    opened(**more)
    for _ in range(steps):
        frame = ask("step", settings=more.get("settings", lab.BOOK))["frame"]
    return frame


def test_the_book_settings_give_the_chapters_losses_exactly(book):
    assert opened()["frame"]["step"] == 0
    for _ in range(STEPS):
        frame = ask("step")["frame"]
    assert frame["losses"] == book["losses"]  # floats, compared exactly
    assert frame["accuracies"] == book["accuracies"]
    assert frame["losses"][2] == max(frame["losses"])  # the spike at step 2 the chapter teaches
    held = [book["accuracy"](book["make_model"](), book["X_held"], book["Y_held"])]
    assert frame["held"][0] == held[0]  # plain floats give the engine's held-out accuracy
    assert frame["status"].startswith(f"{STEPS} of 100 steps done. Step {STEPS - 1}: loss ")


def test_the_tensor_engine_gives_the_same_losses_and_says_which_engine_is_faster(book):
    tensor = {**lab.BOOK, "engine": "tensor"}
    last = stepped(STEPS, settings=tensor)
    losses = last["losses"]
    assert all(abs(a - b) <= 1e-9 * b for a, b in zip(losses, book["losses"], strict=True))
    assert last["accuracies"] == book["accuracies"] and last["address"] == "?engine=tensor"
    assert re.fullmatch(
        r"\d+\.\d steps a second on the tensor engine \(tensor\.py\)\.", last["speed"]
    )
    assert "scalar engine" in ask("weight", settings=tensor, which="1, 1, 1")["refused"]
    assert ask("draw")["frame"]["note"].endswith("at step 0, on the scalar engine (micrograd.py).")
    scalar = [ask("step")["frame"] for _ in range(2)][-1]["speed"]  # both engines have run
    said = r"\d+\.\d steps a second on the scalar engine \(micrograd\.py\)\. At these settings, "
    faster = r"(tensor|scalar) engine: \d+\.\d times as fast a step as the (scalar|tensor) one\."
    assert re.fullmatch(said + faster, scalar), scalar


def test_another_rate_gives_what_the_chapters_functions_give(book):
    settings = {"rate": "3.0", "steps": "100", "seed": "0"}
    frame = stepped(4, settings=settings)
    model, expected = book["make_model"](0), []
    for step in range(4):
        expected.append(book["train_step"](model, book["learning_rate"](step, 100, 3.0))[0])
    assert frame["losses"] == expected and expected[2] > 10  # the too-large rate's leap


@pytest.mark.parametrize(("field", "value", "says"), [
    *(("rate", value, "The learning rate must be a positive number")
      for value in ("-1", "0", "fast", "nan")),
    *(("steps", value, "The number of steps must be a whole number from 1 to 1000")
      for value in ("0", "1001", "2.5")),
    ("seed", "-3", "The seed must be a whole number"),
])  # fmt: skip
def test_bad_settings_are_refused_and_the_lab_keeps_its_state(field, value, says):
    stepped()
    refused = ask("step", settings={**lab.BOOK, field: value})
    assert refused == {"refused": refused["refused"]} and refused["refused"].startswith(says)
    assert repr(value) in refused["refused"]
    assert ask("draw")["frame"]["step"] == 1  # still where it was


def test_fewer_steps_than_done_are_refused():
    stepped(2)
    refused = ask("step", settings={**lab.BOOK, "steps": "1"})["refused"]
    assert "The lab is at step 2" in refused and ask("draw")["frame"]["step"] == 2
    at = ask("step", settings={**lab.BOOK, "steps": "2"})["frame"]  # as many as are done
    assert at["step"] == 2 and at["done"] and at["settings"]["steps"] == "2"


def past(limit, value: float, way: int) -> str:
    """The next number the field's kind allows past ``value``, as typed."""
    if limit.whole:
        return str(int(value) + way)
    return repr(math.nextafter(value, way * math.inf))


@pytest.mark.parametrize("name", sorted(LIMITS))
def test_each_stated_limit_is_allowed_and_one_past_it_refused(name):
    """What the hint beside a field states is what the lab takes: both ends, and not one
    step (1, or the next float) beyond either."""
    limit = LIMITS[name]
    hint = lab_hint(name)
    assert hint.startswith(limit.range), hint
    for end in (limit.low, limit.high):
        assert getattr(lab.settings({name: limit.text(end)}), name) == end
    for end, way in ((limit.low, -1), (limit.high, 1)):
        with pytest.raises(lab.LabError, match=f"from {limit.range}"):
            lab.settings({name: past(limit, end, way)})


def test_the_hidden_layers_and_the_added_points_are_taken_to_their_limit_and_not_past_it():
    most = ", ".join([str(MAX_UNITS)] * MAX_LAYERS)
    assert lab.settings({"hidden": most}).hidden == (MAX_UNITS,) * MAX_LAYERS
    with pytest.raises(lab.LabError, match=f"must be 0 to {MAX_LAYERS} sizes"):
        lab.settings({"hidden": most + ", 1"})
    assert len(lab.added_points("0,0,1;" * MAX_ADDED)) == MAX_ADDED
    with pytest.raises(lab.LabError, match=f"At most {MAX_ADDED} points can be added"):
        lab.added_points("0,0,1;" * (MAX_ADDED + 1))


def test_a_tanh_unit_is_active_where_its_output_is_negative_too():
    layers = [([[1.0, 0.0], [0.0, -1.0]], [0.0, 0.0], "tanh"), ([[1.0, 1.0]], [0.0], None)]
    points = [(1.0, 1.0), (-1.0, 2.0), (0.0, 0.0)]  # the last: both units' output is 0
    assert lab.active_counts(layers, points) == [[2, 2]]


def test_an_edited_fence_that_no_longer_makes_a_model_is_refused():
    fences = page_fences(LAB_PAGE)["fences"]
    index = next(i for i, f in enumerate(fences) if "def make_model" in f["code"])
    stepped()
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


@pytest.mark.heavy  # trains a learner's engine: `test`, not `check`
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


# --- changing it while it learns (tools/page/lab.py's Lab.change) ------------------------


def run_with(book, schedule, *, hidden=None, decay=0.0):
    """The chapter's own training in CPython, the first rate of step k ``schedule(k)``."""
    if hidden is None:
        model = book["make_model"](0)
    else:
        model = book["MLP"](2, [*hidden, 1], seed=0, activation="relu", output_activation="linear")
    losses = []
    for k in range(len(schedule)):
        rate = book["learning_rate"](k, 100, schedule[k])
        losses.append(book["train_step"](model, rate)[0])
        for p in model.parameters():
            p.data -= rate * 2 * decay * p.data
    return losses, model


def test_a_rate_changed_mid_run_gives_the_trajectory_of_that_schedule(book):
    stepped(4)
    for _ in range(4):
        frame = ask("step", settings={**lab.BOOK, "rate": "0.5"})["frame"]
    expected, _ = run_with(book, [1.0] * 4 + [0.5] * 4)
    assert frame["losses"] == expected and frame["step"] == 8
    assert frame["rates"][3:5] == [book["learning_rate"](3, 100, 1.0), 0.5 * (1 - 0.9 * 4 / 100)]


def test_weight_decay_multiplies_every_parameter_by_exercise_2s_factor(book):
    """Exercise 2: a step on decay * sum(p * p) alone multiplies each parameter by
    1 - 2 * decay * rate. With the decay, the lab's step is the chapter's step, then that."""
    stepped()
    plain = [p.data for p in lab._lab.model.parameters()]
    decayed = {**lab.BOOK, "decay": "0.01"}
    frame = stepped(settings=decayed)
    rate = frame["rates"][0]
    for before, after in zip(plain, (p.data for p in lab._lab.model.parameters())):
        assert math.isclose(after, before * (1 - 2 * 0.01 * rate), rel_tol=1e-12, abs_tol=1e-300)
    for _ in range(2):
        frame = ask("step", settings=decayed)["frame"]
    assert frame["losses"] == run_with(book, [1.0] * 3, decay=0.01)[0]
    assert frame["losses"][1:] != book["losses"][1:3]  # the decay changed the run


def test_another_network_starts_again_from_the_seed_and_says_so(book):
    stepped()
    frame = ask("draw", settings={**lab.BOOK, "hidden": "8"})["frame"]  # a field changed
    assert frame["step"] == 0 and frame["losses"] == []
    assert frame["note"].startswith("A new network: hidden layers 8, relu, from seed 0.")
    for _ in range(3):
        frame = ask("step", settings={**lab.BOOK, "hidden": "8"})["frame"]
    assert frame["losses"] == run_with(book, [1.0] * 3, hidden=[8])[0]
    assert len(frame["units"]) == 1 and len(frame["units"][0]["units"]) == 8
    back = ask("step", settings=lab.BOOK)["frame"]  # the book's network again, a step taken
    assert back["losses"] == book["losses"][:1]


def test_at_rate_3_the_unit_maps_tell_the_chapters_story_of_dead_units():
    """After the step that throws the loss to 94.5, 8 of the second layer's 16 units are
    still active; accuracy climbs back to 84 % at step 9; at step 11 the layer dies."""
    fast = {**lab.BOOK, "rate": "3.0"}
    opened(settings=fast)
    frames = [ask("step", settings=fast)["frame"] for _ in range(12)]
    assert round(frames[2]["losses"][2], 1) == 94.5
    assert frames[1]["units"][1]["summary"].startswith("Hidden layer 2: 8 of 16 units active")
    assert frames[9]["accuracies"][9] == 0.84
    assert frames[10]["units"][1]["summary"].startswith("Hidden layer 2: 3 of 16")
    assert frames[11]["units"][1]["summary"].startswith("Hidden layer 2: 0 of 16 units active")
    dead = frames[11]["units"][1]["units"]
    assert all(
        u["dead"] and u["text"].endswith("dead, 0 at every one of the 100 training points")
        for u in dead
    )


@pytest.mark.parametrize("dataset", [d for d in lab_data.DATASETS if d != "moons"])
def test_each_other_data_set_is_drawn_trained_on_and_kept_in_the_address(dataset):
    stepped()
    chosen = {**lab.BOOK, "dataset": dataset, "points": "120"}
    frame = ask("step", settings=chosen)["frame"]
    said = lab_data.DATASETS[dataset]
    assert frame["step"] == 2 and frame["note"].startswith(f"New data: {said}, 120 points")
    xs, ys = lab_data.make(dataset, 120, 0.1, lab.DATA_SEED, lab_data.curve("sin(3*x)"))
    assert lab._lab.ns["X_train"] == xs[:60] and lab._lab.ns["Y_train"] == ys[:60]
    assert 0.2 < ys.count(1.0) / len(ys) < 0.8  # both classes, in good number
    assert math.isfinite(frame["losses"][-1]) and "<svg" in frame["boundary"]
    fields, _ = from_address(frame["address"])
    assert fields["dataset"] == dataset and fields["points"] == "120"
    assert ("curve=" in frame["address"]) is False  # the lab's own curve: not in the address


def test_a_curve_is_a_formula_in_x_and_nothing_else():
    f = lab_data.curve("x^2 - 2*sin(x) + abs(-x)/2")
    assert f(1.5) == 1.5**2 - 2 * math.sin(1.5) + 0.75
    for text, why in [
        ("__import__('os').system('true')", "calls something other than"),
        ("x.real", "not only arithmetic"),
        ("y + 1", "'y' is not x"),
        ("'a' * 3", "not only arithmetic"),
        ("lambda: 1", "not only arithmetic"),
        ("sin(", "not a formula"),
    ]:
        with pytest.raises(lab.LabError, match=re.escape(why)):
            lab.settings({"dataset": "curve", "curve": text})
    opened()
    huge = {**lab.BOOK, "dataset": "curve", "curve": "9**9**9 + x"}  # floats: fails at once
    refused = ask("draw", settings=huge)["refused"]
    assert refused.startswith("`the data set curve (curve y = 9**9**9 + x)` failed: OverflowError")
    assert ask("draw")["frame"]["settings"]["dataset"] == "moons"  # the lab as it was
    curved = ask("draw", settings={**lab.BOOK, "dataset": "curve", "curve": "x*x"})["frame"]
    assert "curve=x%2Ax" in curved["address"]


def test_new_data_goes_on_with_the_network_and_added_points_are_trained_on(book):
    stepped()
    noisy = {**lab.BOOK, "noise": "0.2"}
    frame = ask("step", settings=noisy)["frame"]
    assert frame["step"] == 2 and frame["note"].startswith(
        "New data: two moons (the book's), 200 points, noise 0.2."
    )
    assert lab._lab.ns["X_train"] == book["make_moons"](200, 0.2, 0)[0][:100]
    frame = ask("add", settings=noisy, point=[0.5, 0.25], label=1)["frame"]
    assert lab._lab.ns["X_train"][-1] == [0.5, 0.25] and lab._lab.ns["Y_train"][-1] == 1.0
    assert frame["added"] == "0.500,0.250,1" and "added=0.500%2C0.250%2C1" in frame["address"]
    assert ask("clear", settings=noisy)["frame"]["added"] == ""
    assert len(lab._lab.ns["X_train"]) == 100


def test_an_address_reproduces_the_run():
    chosen = {**lab.BOOK, "rate": "0.7", "hidden": "6, 4", "activation": "tanh", "noise": "0.15"}
    chosen |= {"points": "120", "decay": "0.001", "seed": "3"}
    opened(settings=chosen)
    for point, label in (([0.1, 0.2], 1), ([1.5, -0.2], -1)):
        ask("add", settings=chosen, point=point, label=label)
    for _ in range(5):
        first = ask("step", settings=chosen)["frame"]
    fields, added = from_address(first["address"])
    assert fields == chosen and added == first["added"]
    again = stepped(5, settings=fields, added=added)
    assert again["losses"] == first["losses"] and again["accuracies"] == first["accuracies"]
    assert lab.address(lab.settings(lab.BOOK), []) == ""  # the book's settings: a bare page


@pytest.mark.parametrize(("field", "value", "says"), [
    *(("decay", v, "The weight decay must be a number from 0 to 0.1") for v in ("-0.1", "1")),
    *(("hidden", value, "The hidden layers must be 0 to 3 sizes from 1 to 16")
      for value in ("17", "4, 4, 4, 4", "4; x")),
    ("activation", "sigmoid", "The activation must be relu (the book's) or tanh"),
    ("engine", "numpy", "The engine must be micrograd (the book's, a node per number) or"),
    ("noise", "inf", "The noise must be a number from 0 to 1"),
    *(("points", value, "The number of points must be a whole number from 8 to 1000")
      for value in ("7", "many")),
])  # fmt: skip
def test_bad_values_of_the_new_controls_are_refused_and_the_lab_keeps_its_state(field, value, says):
    stepped()
    refused = ask("draw", settings={**lab.BOOK, field: value})
    assert set(refused) == {"refused"} and refused["refused"].startswith(says)
    assert repr(value) in refused["refused"]
    frame = ask("draw")["frame"]
    assert frame["step"] == 1 and frame["settings"] == lab.BOOK | {"rate": "1.0"}


@pytest.mark.parametrize(("point", "label", "says"), [
    ([9.0, 0.0], 1, "The point (9.0, 0.0) is outside the plane drawn"),
    ([0.1, "x"], 1, "A point is added with two numbers and a label 1 or -1"),
    ([0.1, 0.1], 0, "A point is added with two numbers and a label 1 or -1"),
])  # fmt: skip
def test_bad_points_are_refused_and_the_data_kept(point, label, says):
    stepped()
    refused = ask("add", point=point, label=label)["refused"]
    assert refused.startswith(says)
    assert len(lab._lab.ns["X_train"]) == 100 and ask("draw")["frame"]["added"] == ""


def test_a_bad_added_point_in_the_address_is_refused():
    refused = opened(added="0.1,0.2,1;0.3,oops,-1")["refused"]
    assert refused.startswith("An added point must be x,y,label") and "'0.3,oops,-1'" in refused


# --- read like a chart ----------------------------------------------------------------------


@pytest.mark.parametrize(("value", "shown"), [
    (1e9, "1.0e9"), (2.3585139093566622e25, "2.4e25"), (1.5e-5, "1.5e-5"), (0.9675, "0.9675"),
    (94.519, "94.52"), (1234.5, "1234"), (0.0, "0"), (math.inf, "infinite"),
    (math.nan, "not a number"),
])  # fmt: skip
def test_numbers_are_formatted_for_people(value, shown):
    assert lab.human(value) == shown


def test_a_diverged_run_says_so_in_words_and_stops():
    wild = {**lab.BOOK, "rate": "1e9"}
    frame = stepped(5, settings=wild)
    assert frame["done"] and frame["step"] == 2  # stopped at the step the loss leapt
    assert frame["problem"].startswith("Training diverged: the loss is 2.4e25 at step 1")
    assert frame["status"].endswith("Training stopped.")
    assert all(len(text) < 160 for text in [frame["status"], *frame["readouts"]])
    assert ">1e26<" in frame["curves"]  # the axis reaches it, labelled


def test_the_chart_has_axes_ticks_and_a_sentence_for_every_step(book):
    frame = stepped(3)
    curves = frame["curves"]
    for tick in (">0<", ">20<", ">80<", ">0 %<", ">100 %<", ">1<", ">10<", "loss (log scale)"):
        assert tick in curves, tick
    held = book["hinge_loss"](book["make_model"](0), book["X_held"], book["Y_held"])[0].data
    assert math.isclose(frame["held_losses"][0], held, rel_tol=1e-12)  # the chapter's loss
    assert len(frame["held_losses"]) == 3 and 'class="lab-held-loss-line"' in curves
    assert frame["readouts"][0].startswith(
        f"Step 0: loss 0.9675 (held out {lab.human(held)}), training accuracy 45 %"
    )
    assert len(frame["readouts"]) == 3 and frame["chart"]["last"] == 99


# --- a weight, read and set ------------------------------------------------------------------


def test_a_weight_is_read_and_set_and_training_goes_on_from_there(book):
    stepped()
    read = ask("weight", which="2, 3, 4")["frame"]
    p = lab._lab.model.layers[1].neurons[2].w[3]
    assert read["weight"] == f"Weight 2, 3, 4: {lab.human(p.data)}, gradient {lab.human(p.grad)}."
    assert "weight 2, 3, 4: " in read["network"]  # a line names it, for a pointer
    frame = ask("set", which="2, 3, b", value="0.5")["frame"]
    assert lab._lab.model.layers[1].neurons[2].b.data == 0.5 and frame["step"] == 1
    assert frame["note"] == "Weight 2, 3, b set to 0.5000: training goes on from here."
    model = book["make_model"](0)
    book["train_step"](model, book["learning_rate"](0, 100, 1.0))
    model.layers[1].neurons[2].b.data = 0.5
    expected = book["train_step"](model, book["learning_rate"](1, 100, 1.0))[0]
    assert ask("step")["frame"]["losses"][1] == expected


@pytest.mark.parametrize(("which", "value", "says"), [
    *((which, "0", "A weight is named by its layer, its unit and its input")
      for which in ("4, 1, 1", "1, 17, 1", "1, 1, 3", "1, 0, 1", "1 1")),
    *(("1, 1, 1", value, f"A weight is set to a number, such as 0.5; '{value}' is not.")
      for value in ("big", "inf")),
])  # fmt: skip
def test_a_bad_weight_or_value_is_refused_and_the_network_kept(which, value, says):
    stepped()
    before = [p.data for p in lab._lab.model.parameters()]
    refused = ask("set", which=which, value=value)["refused"]
    assert refused.startswith(says)
    assert [p.data for p in lab._lab.model.parameters()] == before


# --- one step, taken apart (tools/page/lab_apart.py) ---------------------------------------


def test_the_step_taken_apart_gives_backwards_gradients_for_that_point_layer_by_layer(book):
    stepped(3)
    first = ask("apart", point="")["apart"]
    rec = lab._lab.apart
    assert first["index"] == 0 and first["count"] == 1 + 3 + 1 + 3 + 1 <= 12
    assert first["text"].startswith(f"Forward: training point {rec.index + 1}, at (")
    # The same network, in CPython: its gradients for that point's hinge term.
    model = book["make_model"](0)
    for k in range(3):
        book["train_step"](model, book["learning_rate"](k, 100, 1.0))
    x, y = book["X_train"][rec.index], book["Y_train"][rec.index]
    assert y * model(x).data < 1  # the first point that pulls, as the lab chose
    assert all(
        y2 * model(x2).data >= 1 for x2, y2 in zip(book["X_train"][: rec.index], book["Y_train"])
    )
    for p in model.parameters():
        p.grad = 0.0
    loss = (1 - y * model(x)).relu()
    loss.backward()
    expected = [
        [[w.grad for w in n.w] + [n.b.grad] for n in layer.neurons] for layer in model.layers
    ]
    assert rec.grads == expected and rec.loss == loss.data
    assert rec.backward == [2, 1, 0]  # the output first, layer 1 last: the engine's order
    # Each backward part is a layer: how many of its units pass nothing back, and why, in a
    # sentence; each unit's numbers in its details.
    for done, k in enumerate(rec.backward):
        part = ask("apart-stage", stage=1 + 3 + 1 + done)["apart"]
        units = model.layers[k].neurons
        off = [
            j
            for j, n in enumerate(units)
            if k < 2 and n(x if k == 0 else hidden(model, x, k)).data == 0
        ]
        silent = [j for j in range(len(units)) if not any(expected[k][j])]
        assert part["text"].startswith(f"Backward ({done + 1} of 3): ")
        if silent:
            assert f" {len(silent)} of {len(units)} unit" in part["text"]
            assert ("their ReLU was off" in part["text"]) == bool(off)
        else:
            assert "nothing back" not in part["text"]
        assert len(part["details"]) == len(units)
        for j, said in enumerate(part["details"]):
            if j in silent:
                assert (
                    said == f"Unit {j + 1}: nothing (its ReLU was off)."
                    if j in off
                    else (said == f"Unit {j + 1}: nothing (no gradient reached it).")
                )
            else:
                assert said.endswith(f"; bias {lab.human(expected[k][j][-1])}.")
    assert sum(not any(u) for u in expected[1]) > 0  # the layer the sentence is for
    last = ask("apart-stage", stage=first["count"] - 1)["apart"]
    assert last["text"].startswith(f"Update: each weight moves by the rate ({lab.human(rec.rate)})")
    assert last["details"] == []
    assert [p.grad for p in lab._lab.model.parameters()] != [0.0] * 337  # the lab's kept
    assert ask("step")["frame"]["losses"] == book["losses"][:4]  # and its run unchanged


def hidden(model, x, k: int) -> list:
    """The inputs of layer ``k``: the outputs of the layers before it."""
    for layer in model.layers[:k]:
        x = layer(x)
    return x


def test_a_bad_point_to_take_apart_is_refused():
    opened()
    for which in ("0", "101", "first"):
        refused = ask("apart", point=which)["refused"]
        assert refused.startswith("The point to take a step apart on is a training point's number")


def test_a_refused_point_with_a_new_network_asked_for_keeps_the_run():
    stepped(2)
    refused = ask("add", settings={**lab.BOOK, "hidden": "4"}, point=[9.0, 0.0], label=1)
    assert refused["refused"].startswith("The point (9.0, 0.0) is outside the plane drawn")
    frame = ask("draw")["frame"]
    assert frame["step"] == 2 and len(frame["units"][0]["units"]) == 16  # the run it had


def test_a_seed_typed_mid_run_is_said_to_wait_for_reset_once():
    stepped()
    other = {**lab.BOOK, "seed": "5"}
    frame = ask("step", settings=other)["frame"]
    assert frame["note"] == (
        "The seed makes the starting network: 5 is used at Reset; until then the run goes "
        "on from seed 0."
    )
    assert frame["step"] == 2 and ask("step", settings=other)["frame"]["note"] == ""
    assert ask("reset", settings=other)["frame"]["settings"]["seed"] == "5"
