"""Quantization's rounding on TOSA, found exactly in float32 (quantization/exact_rounding.py):
TOSA has no float64 (IREE refuses it) and no division (torch-mlir multiplies by the reciprocal,
one ulp off about a quarter of the time). Each program is compared bit for bit with ONNX's
reference evaluator on values chosen next to the half-way points, on the reference runner and
on IREE (which fuses products into additions: every product in the algorithm is exact, so the
results must not change)."""

import random
from fractions import Fraction

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.conversion.onnx_to_torch.quantization import all_ones_divisor
from onnx_torch_mlir.runtime.iree import compile_with_iree

F32 = np.float32


def _model(nodes, inputs, outputs, initializers=(), opset=19):
    graph = helper.make_graph(nodes, "exact_rounding", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _near_half_way_points(rng, count: int):
    """(x, scale) with x / scale within two float32 steps of n + 0.5 (or on it)."""
    scale = np.exp(rng.uniform(-8, 2, count)).astype(F32)
    base = ((rng.integers(-300, 300, count) + F32(0.5)) * scale).astype(F32)
    x = base.copy()
    steps = rng.integers(-2, 3, count)
    for _ in range(2):
        x = np.where(steps != 0, np.nextafter(x, np.where(steps > 0, np.inf, -np.inf).astype(F32)), x).astype(F32)
        steps -= np.sign(steps)
    return x, scale


def _consumers(model, inputs):
    module = onnx_torch_mlir.compile(model, "tosa")
    assert "f64" not in str(module)
    return {
        "reference": runtime.run(module, inputs, input_dialect="tosa"),
        "iree": compile_with_iree(module, "tosa")(*inputs),
    }


def _same(got, expected):
    got = np.asarray(got)
    if got.dtype != expected.dtype and got.dtype.itemsize == expected.dtype.itemsize:
        got = got.view(expected.dtype)
    return np.array_equal(got, expected)


def test_quantize_linear_per_element_scales():
    count = 100_000
    x, scale = _near_half_way_points(np.random.default_rng(0), count)
    assert np.count_nonzero(np.rint(x * (F32(1) / scale)) != np.rint(x / scale)) > 1000  # the hard cases are there
    model = _model(
        [helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["y"], axis=0)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [count]),
         helper.make_tensor_value_info("scale", TensorProto.FLOAT, [count])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, [count])],
        [numpy_helper.from_array(np.full(count, 7, np.uint8), "zero")],
    )
    expected = ReferenceEvaluator(model).run(None, {"x": x, "scale": scale})[0]
    for consumer, (y,) in _consumers(model, [x, scale]).items():
        assert _same(y, expected), consumer


@pytest.mark.parametrize("output", [TensorProto.INT16, TensorProto.INT8])
def test_quantize_linear_wide_and_negative(output):
    """int16 results need |x / scale| up to 2^17: the product terms are split further."""
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-70000, 70000, 20000), (np.arange(-400, 400) + 0.5)]).astype(F32)
    # (nothing beyond int32: ONNX's reference casts rint(x / scale) to int32, and wraps there)
    x = np.concatenate([x, [0.0, -0.0, 1e9, -1e9]]).astype(F32)
    scale = np.array(0.75, F32)
    model = _model(
        [helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [x.size])],
        [helper.make_tensor_value_info("y", output, [x.size])],
        [numpy_helper.from_array(scale, "scale"), helper.make_tensor("zero", output, [], [-3])], opset=21,
    )
    expected = ReferenceEvaluator(model).run(None, {"x": x})[0]
    for consumer, (y,) in _consumers(model, [x]).items():
        assert _same(y, expected), consumer


def test_dynamic_quantize_linear_scale_zero_point_and_values():
    """The scale (a float result) is the correctly rounded (max - min) / 255; ONNX's test values
    (-2.5 over 5/255 is -127.5) sit on half-way points."""
    count = 64
    model = _model(
        [helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "scale", "zero"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [count])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, [count]),
         helper.make_tensor_value_info("scale", TensorProto.FLOAT, []),
         helper.make_tensor_value_info("zero", TensorProto.UINT8, [])],
        opset=17,
    )
    module = onnx_torch_mlir.compile(model, "tosa")
    iree = compile_with_iree(module, "tosa")
    reference = ReferenceEvaluator(model)
    rng = np.random.default_rng(2)
    for trial in range(40):
        x = (rng.standard_normal(count) * rng.uniform(0.01, 100)).astype(F32)
        if trial % 2 == 0:
            x[:6] = [0, 2, -3, -2.5, 1.34, 0.5]
        expected = reference.run(None, {"x": x})
        for consumer, outputs in (("reference", runtime.run(module, [x], input_dialect="tosa")), ("iree", iree(x))):
            assert all(_same(got, want) for got, want in zip(outputs, expected)), (consumer, trial)


def test_qlinear_matmul_requantization():
    """acc * multiplier rounded as ONNX's reference does (in float64) from int32 accumulators."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 256, (64, 256), dtype=np.uint8)
    b = rng.integers(-128, 128, (256, 48), dtype=np.int8)
    scalars = {"a_scale": 0.0123, "a_zero": np.uint8(131), "b_scale": 0.0071, "b_zero": np.int8(-3),
               "y_scale": 0.93, "y_zero": np.uint8(120)}
    initializers = [numpy_helper.from_array(np.array(v, F32 if isinstance(v, float) else type(v)), k)
                    for k, v in scalars.items()]
    model = _model(
        [helper.make_node("QLinearMatMul", ["a", "a_scale", "a_zero", "b", "b_scale", "b_zero", "y_scale", "y_zero"],
                          ["y"])],
        [helper.make_tensor_value_info("a", TensorProto.UINT8, list(a.shape)),
         helper.make_tensor_value_info("b", TensorProto.INT8, list(b.shape))],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, [64, 48])],
        initializers, opset=10,
    )
    expected = ReferenceEvaluator(model).run(None, {"a": a, "b": b})[0]
    assert 0 < np.count_nonzero((expected > 0) & (expected < 255))  # not all saturated
    for consumer, (y,) in _consumers(model, [a, b]).items():
        assert _same(y, expected), consumer


def test_infinities_saturate():
    """(ONNX's reference wraps here; the specification saturates.)"""
    x = np.array([np.inf, -np.inf, np.float32(3e38), -np.float32(3e38)], F32)
    model = _model(
        [helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.INT8, [4])],
        [numpy_helper.from_array(np.array(0.5, F32), "scale"), helper.make_tensor("zero", TensorProto.INT8, [], [5])],
    )
    for consumer, (y,) in _consumers(model, [x]).items():
        assert _same(y, np.array([127, -128, 127, -128], np.int8)), consumer


def test_quotient_by_255_over_every_significand():
    """all_ones_divisor's algorithm, run on numpy float32 (no FMA), against the float64 quotient
    rounded to float32: every significand of a binade (the algorithm is scale-invariant between
    its rescaling thresholds), binades at the ends of the range, and the subnormal results."""
    significands = np.arange(0x3F800000, 0x40000000, dtype=np.uint32).view(F32)
    samples = [significands, significands * F32(2.0**-126), significands * F32(2.0**126),
               significands[::97] * F32(2.0**70), significands[::97] * F32(2.0**-70),
               np.arange(0, 0x01800000, 131, dtype=np.uint32).view(F32),
               np.array([0, np.inf, np.nan, np.finfo(F32).max, 2.0**64, 2.0**-60], F32)]
    with np.errstate(invalid="ignore"):
        for divisor in (255, 127):
            for x in samples:
                got = all_ones_divisor.quotient(all_ones_divisor.NumpyArithmetic, x, divisor)
                want = (x.astype(np.float64) / divisor).astype(F32)
                assert np.array_equal(got, want, equal_nan=True), (divisor, x[got != want][:4])


def test_dynamic_quantize_linear_scale_where_the_reciprocal_misses():
    """Spreads whose (max - min) * (1 / 255) is an ulp off (1 in ~8 floats), on both consumers;
    and the scalar part stays small (IREE compiled the former 500-op form for minutes)."""
    rng = np.random.default_rng(4)
    low, high = -rng.uniform(1e-3, 1e3, 20000).astype(F32), rng.uniform(1e-3, 1e3, 20000).astype(F32)
    spreads = high - low
    missed = (spreads * (F32(1) / F32(255))) != (spreads.astype(np.float64) / 255).astype(F32)
    pairs = list(zip(low[missed], high[missed]))[:25]
    assert len(pairs) == 25
    model = _model(
        [helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "scale", "zero"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, [3]),
         helper.make_tensor_value_info("scale", TensorProto.FLOAT, []),
         helper.make_tensor_value_info("zero", TensorProto.UINT8, [])],
        opset=17,
    )
    module = onnx_torch_mlir.compile(model, "tosa")
    assert str(module).count(" = tosa.") < 340  # 319: the huge-scale guard (exact_rounding._moderate_scale) added ~20
    iree = compile_with_iree(module, "tosa")
    reference = ReferenceEvaluator(model)
    for smallest, largest in pairs:
        x = np.array([smallest, largest, 0.25], F32)
        expected = reference.run(None, {"x": x})
        for consumer, outputs in (("reference", runtime.run(module, [x], input_dialect="tosa")), ("iree", iree(x))):
            assert all(_same(got, want) for got, want in zip(outputs, expected)), (consumer, x)


def _accumulators_near_ties(per_shift: int):
    """(acc, M, s): acc * M * 2^-s within 2^-s of a half-integer in [1, 250], acc < 2^31 (acc
    solves acc * M = +-1 mod 2^(s-1)); for s >= 46 the float64 product can round onto the
    half-integer, and its tie then goes to the even integer where the exact product does not."""
    rng, found = random.Random(5), []
    for shift in (45, 46, 47, 48):
        hits = 0
        while hits < per_shift:
            significand = rng.randrange(2**23, 2**24) | 1
            acc = (rng.choice([1, -1]) * pow(significand, -1, 2 ** (shift - 1))) % 2 ** (shift - 1)
            if acc < 2**31 and 2**shift <= acc * significand <= 250 * 2**shift:
                found.append((acc, significand, shift))
                hits += 1
    return found


def test_requantization_next_to_ties_of_the_float64_product():
    """QLinearConv's requantization of int32 accumulators (a bias over a zero input) whose product
    with the multiplier (a per-channel weight scale) sits next to a half-integer: ONNX rounds the
    float64 product, which differs from rounding the exact product for some of them.

    The weight scale is a graph input: with literal parameters TOSA gets the integer form instead
    (quantization/qdq_form.py: `tosa.rescale`, a 31-bit multiplier rounding half up, one step from
    this result at such ties, as docs/quantization.md says); run-time parameters keep this exact form."""
    cases = _accumulators_near_ties(10)
    acc = np.array([a for a, _, _ in cases], np.int32)
    multiplier = np.array([m * 2.0**-s for _, m, s in cases], F32)
    float64 = np.rint(acc.astype(np.float64) * multiplier.astype(np.float64))
    assert sum(int(r) != round(Fraction(a * m, 2**s)) for r, (a, m, s) in zip(float64, cases)) > 0
    channels = len(cases)
    scalars = [numpy_helper.from_array(np.array(1.0, F32), "x_scale"), numpy_helper.from_array(np.array(3, np.uint8), "x_zero"),
               numpy_helper.from_array(np.array(1.0, F32), "y_scale"), numpy_helper.from_array(np.array(0, np.uint8), "y_zero")]
    model = _model(
        [helper.make_node("QLinearConv", ["x", "x_scale", "x_zero", "w", "w_scale", "w_zero", "y_scale", "y_zero", "bias"],
                          ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 1, 1, 1]),
         helper.make_tensor_value_info("w_scale", TensorProto.FLOAT, [channels])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, [1, channels, 1, 1])],
        scalars + [numpy_helper.from_array(np.ones((channels, 1, 1, 1), np.int8), "w"),
                   numpy_helper.from_array(np.zeros(channels, np.int8), "w_zero"), numpy_helper.from_array(acc, "bias")],
        opset=10,
    )
    x = np.full((1, 1, 1, 1), 3, np.uint8)
    expected = ReferenceEvaluator(model).run(None, {"x": x, "w_scale": multiplier})[0]
    assert np.array_equal(expected.reshape(-1), float64.astype(np.uint8))
    for consumer, (y,) in _consumers(model, [x, multiplier]).items():
        assert _same(y, expected), consumer
