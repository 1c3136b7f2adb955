"""Every bad input named in the book gets a typed error whose message names the problem."""

import math
import random

import pytest

from micrograd import MLP, Layer, Neuron, Value, dot, graph_dot, softmax_ce


def spent_graph():
    x = Value(2.0)
    y = x * x
    y.backward()
    return y


# fmt: off
BAD_INPUTS = [
    ("Value of a string", lambda: Value("3"), TypeError, "real number, not str"),
    ("Value of a Value", lambda: Value(Value(1.0)), TypeError, "real number, not Value"),
    ("adding a string", lambda: Value(1.0) + "2", TypeError, "real number, not str"),
    ("Value exponent", lambda: Value(2.0) ** Value(2.0), TypeError, "constant int or float"),
    ("string exponent", lambda: Value(2.0) ** "2", TypeError, "constant int or float"),
    ("negative base, fractional power", lambda: Value(-8.0) ** 0.5, ValueError, "negative base"),
    ("zero to a negative power", lambda: Value(0.0) ** -2, ValueError, "undefined"),
    ("zero to a power below one", lambda: Value(0.0) ** 0.25, ValueError, "infinite"),
    ("log of zero", lambda: Value(0.0).log(), ValueError, "positive input"),
    ("log of a negative", lambda: Value(-3.0).log(), ValueError, "positive input"),
    ("exp overflow", lambda: Value(710.0).exp(), OverflowError, "too large"),
    ("power overflow", lambda: Value(10.0) ** 400, OverflowError, "too large for a float"),
    ("slope overflow", lambda: Value(1e-200) ** -1.5, OverflowError, "slope is too large for"),
    # the power is a float (1e300, about 9.8e303), only its slope overflows: named so
    ("power's slope alone", lambda: Value(1e-100) ** -3, OverflowError, r"-3: its slope is too"),
    ("slope times n", lambda: Value(1.0001) ** 7_000_000, OverflowError, "its slope is too large"),
    ("exponent nan", lambda: Value(2.0) ** math.nan, ValueError, "exponent must be a finite"),
    ("exponent inf", lambda: Value(2.0) ** math.inf, ValueError, "finite number, not inf"),
    ("exponent -inf", lambda: Value(2.0) ** -math.inf, ValueError, "finite number, not -inf"),
    ("1 to the nan", lambda: Value(1.0) ** math.nan, ValueError, "finite number, not nan"),
    ("1 to the inf", lambda: Value(1.0) ** math.inf, ValueError, "finite number, not inf"),
    ("a half to the inf", lambda: Value(0.5) ** math.inf, ValueError, "finite number, not inf"),
    ("division by zero", lambda: Value(1.0) / 0.0, ZeroDivisionError, "division by zero"),
    ("reflected division by zero", lambda: 1.0 / Value(0.0), ZeroDivisionError, "by zero"),
    ("division slope overflow", lambda: 1 / Value(1e-200), OverflowError, "slope is too large"),
    ("divisor squared to 0", lambda: 1 / Value(1e-300), OverflowError, "slope is too large"),
    ("numerator slope overflow", lambda: Value(1e-300) / 1e-310, OverflowError, "slope is too"),
    ("backward twice", lambda: spent_graph().backward(), RuntimeError, "forward computation"),
    ("_backward on a spent node", lambda: spent_graph()._backward(), RuntimeError, "again"),
    ("neuron width", lambda: Neuron(3, random.Random(0))([1.0]), ValueError, "expected 3 inputs"),
    ("MLP width", lambda: MLP(2, [3, 1])([1.0, 2.0, 3.0]), ValueError, "expected 2 inputs, got 3"),
    ("MLP without layers", lambda: MLP(2, []), ValueError, r"at least one layer size \("),
    ("MLP sizes not a list", lambda: MLP(2, 3), TypeError, "nouts must be a list of layer"),
    ("MLP zero width", lambda: MLP(2, [0, 1]), ValueError, "in nouts must be a positive int"),
    ("MLP float width", lambda: MLP(2.0, [1]), TypeError, "nin must be a positive int, not f"),
    ("MLP bool width", lambda: MLP(2, [True]), TypeError, "positive int, not bool"),
    ("Neuron given a seed", lambda: Neuron(2, 0), TypeError, "rng must be a random generator"),
    ("Neuron of -1 inputs", lambda: Neuron(-1, random.Random(0)), ValueError, "nin must be"),
    ("Layer of 0 neurons", lambda: Layer(2, 0, random.Random(0)), ValueError, "nout must be"),
    ("Value of nan", lambda: Value(float("nan")), ValueError, "finite number, not nan"),
    ("Value of inf", lambda: Value(float("inf")), ValueError, "finite number, not inf"),
    ("Value of -inf", lambda: Value(-math.inf), ValueError, "finite number, not -inf"),
    ("constant nan", lambda: Value(1.0) * math.nan, ValueError, "finite number, not nan"),
    ("product overflow", lambda: Value(1e308) * 10, OverflowError, r"result of \* is too large"),
    ("sum overflow", lambda: Value(1e308) + 1e308, OverflowError, r"result of \+ is too large"),
    ("dot overflow", lambda: dot([Value(1e308)], [10.0], Value(0.0)),
     OverflowError, "result of dot is too large"),
    ("unknown activation", lambda: Layer(2, 2, random.Random(0), activation="sigmoid"),
     ValueError, "activation must be one of"),
    ("dot widths", lambda: dot([Value(1.0)], [1.0, 2.0], Value(0.0)),
     ValueError, "expected 1 inputs"),
    ("dot input", lambda: dot([Value(1.0)], [None], Value(0.0)), TypeError, "not NoneType"),
    ("Value of a bool", lambda: Value(True), TypeError, "real number, not bool"),
    ("log of a subnormal", lambda: Value(1e-320).log(), OverflowError, "slope 1/"),
    ("graph_dot of a number", lambda: graph_dot(3), TypeError, "under a Value, not int"),
    ("dot weight a number", lambda: dot([1.0], [1.0], Value(0.0)), TypeError, "weights must"),
    ("dot input nan", lambda: dot([Value(1.0)], [math.nan], 0.0), ValueError, "finite numbers"),
    ("neuron fed inf", lambda: Neuron(2, random.Random(0))([math.inf, 1.0]),
     ValueError, "inputs must be finite numbers, not inf"),
    ("one-layer MLP, unknown activation", lambda: MLP(2, [1], activation="sigmoid"),
     ValueError, "activation must be one of"),
    ("MLP, unknown output activation", lambda: MLP(2, [3, 1], output_activation="softmax"),
     ValueError, "not 'softmax'"),
    ("softmax_ce empty", lambda: softmax_ce([], 0), ValueError, "at least one logit"),
    ("softmax_ce target high", lambda: softmax_ce([Value(1.0)], 1), ValueError, "out of range"),
    ("softmax_ce target low", lambda: softmax_ce([Value(1.0)], -1), ValueError, "out of range"),
    ("softmax_ce target type", lambda: softmax_ce([Value(1.0)], "0"), TypeError, "class index"),
    ("softmax_ce of a dict", lambda: softmax_ce({0: Value(1.0)}, 0),  # its keys are not logits
     TypeError, "logits must be a sequence such as a list, not dict"),
    ("softmax_ce of a set", lambda: softmax_ce({Value(1.0)}, 0), TypeError, "sequence.*not set"),
    ("softmax_ce of a generator", lambda: softmax_ce((Value(v) for v in (1.0, 2.0)), 0),
     TypeError, "sequence such as a list, not generator"),
    ("MLP fed a dict", lambda: MLP(2, [1])({0: 1.0, 1: 2.0}),
     TypeError, "inputs must be a sequence such as a list, not dict"),
    ("dot weights a dict", lambda: dot({0: Value(1.0)}, [1.0], 0),
     TypeError, "weights must be a seq"),
    ("MLP fed a bool", lambda: MLP(2, [1])([True, 1]), TypeError, "numbers or Values, not bool"),
    ("dot input a bool", lambda: dot([Value(1.0)], [False], 0.0), TypeError, "Values, not bool"),
]
# fmt: on


@pytest.mark.parametrize(
    ("action", "error", "message"),
    [case[1:] for case in BAD_INPUTS],
    ids=[case[0] for case in BAD_INPUTS],
)
def test_bad_input_gets_a_clear_typed_error(action, error, message):
    with pytest.raises(error, match=message):
        action()


def test_refused_backward_changes_nothing():
    x = Value(3.0)
    a = x * x
    loss = 2 * a + 3 * a
    loss.backward()
    before = [node.grad for node in loss.topo()]
    with pytest.raises(RuntimeError):
        loss.backward()
    assert [node.grad for node in loss.topo()] == before


def test_a_plain_number_bias_is_a_constant_leaf_as_in_add_and_mul():
    w = Value(2.0)
    out = dot([w], [3.0], 1.0)
    out.backward()
    assert out.data == 7.0 and w.grad == 3.0
    assert out._prev[0]._op == "const" and out._prev[0].data == 1.0


def test_numpy_integers_are_ints_and_numpy_arrays_sequences():
    """Labels and sizes read from an array are NumPy integers: numbers.Integral, as int is."""
    import numpy as np

    assert (
        softmax_ce([Value(1.0), Value(2.0)], np.int64(1)).data
        == softmax_ce([Value(1.0), Value(2.0)], 1).data
    )
    sized = MLP(np.int64(2), [np.int32(3), np.uint8(1)])
    assert [p.data for p in sized.parameters()] == [p.data for p in MLP(2, [3, 1]).parameters()]
    x = Value(2.0)
    cube = x ** np.int64(3)
    cube.backward()
    assert (cube.data, x.grad, cube._op) == (8.0, 12.0, "**3")
    assert type(x.grad) is float
    with pytest.raises(OverflowError, match="too large for a float"):  # not inf and a warning
        Value(10.0) ** np.int64(400)
    with pytest.raises(ValueError, match="finite number, not inf"):
        Value(2.0) ** np.float64("inf")
    with pytest.raises(TypeError, match="not bool"):
        Value(2.0) ** np.True_
    with pytest.raises(TypeError, match="not bool"):
        MLP(2, [1])(np.array([True, False]))
    # an array is a sequence: fed to a network, it gives what a list gives
    assert MLP(2, [3, 1])(np.array([1.0, 2.0])).data == MLP(2, [3, 1])([1.0, 2.0]).data


def test_no_power_hands_backward_a_slope_that_is_not_finite():
    """Every power the engine returns has a finite slope: the rest are refused, by name."""
    for a in (0.0, 0.5, 1.0, 1.0001, 2.0, 1e-100, 1e100, -3.0):
        for n in (0, 1, 2, -3, 0.5, 1.5, 7_000_000, -7_000_000, 400, math.inf, math.nan):
            try:
                power = Value(a) ** n
            except (ValueError, OverflowError) as error:
                assert "exponent" in str(error) or str(n) in str(error), (a, n, error)
                continue
            assert math.isfinite(power.data) and math.isfinite(power._local[0]), (a, n)
