"""Quantization ops on every backend, compared with onnx.reference (ONNX domain) and onnxruntime
(com.microsoft): QuantizeLinear/DequantizeLinear per tensor, per axis and blocked, on every
integer type, with inputs that sit exactly on and next to half-way points and far outside the
range (rounding half to even, saturation); DynamicQuantizeLinear; the integer products
(MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv) with literal zero points (torch-mlir's
quantized form where the backend takes it) and run-time ones (the int32 form), with a long
reduction (K = 4096) whose float32 sum would not be exact; and QDQ graphs, which torch-mlir's
fusion computes in integers. Integer results must be equal; float results of a dequantization
too. Dynamic shapes are tested on Linalg."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnxruntime_reference import skip_if_uint8_int8_saturates

BACKENDS = ["linalg-on-tensors", "tosa", "stablehlo"]
RNG_SEED = 20261001


def _value(name, element, shape):
    return helper.make_tensor_value_info(name, element, shape)


def _model(nodes, inputs, outputs, initializers=(), opset=21, microsoft=False):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    opsets = [helper.make_opsetid("", opset)] + ([helper.make_opsetid("com.microsoft", 1)] if microsoft else [])
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 10
    return model


def _run_ours(model, backend, feeds: dict, result_dtypes):
    names = [value.name for value in model.graph.input]
    module = onnx_torch_mlir.compile(model, backend)
    return runtime.run(module, [feeds[name] for name in names], input_dialect=backend, result_dtypes=result_dtypes)


def _reference(model, feeds):
    return ReferenceEvaluator(model).run(None, feeds)


def _assert_equal(got, want, what=""):
    for index, (g, w) in enumerate(zip(got, want)):
        w = np.asarray(w)
        assert g.shape == w.shape, (what, index, g.shape, w.shape)
        wrong = np.flatnonzero(g.astype(np.float64) != w.astype(np.float64))
        assert wrong.size == 0, (
            f"{what} output {index}: {wrong.size} of {w.size} differ, first at {wrong[0]}: "
            f"{g.reshape(-1)[wrong[0]]} instead of {w.reshape(-1)[wrong[0]]}"
        )


def _check(model, backend, feeds, what=""):
    want = _reference(model, feeds)
    got = _run_ours(model, backend, feeds, [np.asarray(w).dtype for w in want])
    _assert_equal(got, want, what)
    return got


def _tensor(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def _halfway_inputs(scale: float, count: int, seed: int) -> np.ndarray:
    """x with x / scale exactly on, one ulp below and above half-way points, zeros, and values far
    outside every integer range."""
    rng = np.random.default_rng(seed)
    k = rng.integers(-140, 140, size=count).astype(np.float32)
    exact = np.float32(scale) * (k + np.float32(0.5))
    below, above = np.nextafter(exact, -np.inf), np.nextafter(exact, np.inf)
    far = np.array([0.0, -0.0, 1e6, -1e6, 70000.0 * scale, -70000.0 * scale], dtype=np.float32)
    return np.concatenate([exact, below, above, far, rng.standard_normal(count).astype(np.float32) * 100 * scale])


INTEGER_TYPES = {
    "int8": (TensorProto.INT8, np.int8), "uint8": (TensorProto.UINT8, np.uint8),
    "int16": (TensorProto.INT16, np.int16), "uint16": (TensorProto.UINT16, np.uint16),
}


# -- QuantizeLinear / DequantizeLinear ---------------------------------------------------------
def _quantize_model(x_shape, scale, zero_point, literal: bool, axis=1, block_size=0, opset=21, x_type=TensorProto.FLOAT,
                    **attributes):
    """QuantizeLinear with the scale and zero point as initializers (literal) or graph inputs."""
    element = helper.np_dtype_to_tensor_dtype(zero_point.dtype)
    inputs = [_value("x", x_type, x_shape)]
    initializers = []
    if literal:
        initializers = [_tensor("scale", scale), _tensor("zero", zero_point)]
    else:
        inputs += [_value("scale", helper.np_dtype_to_tensor_dtype(scale.dtype), list(scale.shape)),
                   _value("zero", element, list(zero_point.shape))]
    if opset >= 13:
        attributes["axis"] = axis
    if block_size:
        attributes["block_size"] = block_size
    node = helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["y"], **attributes)
    return _model([node], inputs, [_value("y", element, None)], initializers, opset)


def _feeds(model, **arrays):
    return {value.name: arrays[value.name] for value in model.graph.input}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("literal", [True, False], ids=["literal", "input"])
@pytest.mark.parametrize("type_name", sorted(INTEGER_TYPES))
@pytest.mark.parametrize("scale", [0.5, 0.0123], ids=["power_of_two", "inexact"])
def test_quantize_per_tensor_rounds_half_to_even_and_saturates(backend, literal, type_name, scale):
    _, dtype = INTEGER_TYPES[type_name]
    x = _halfway_inputs(scale, 40, seed=RNG_SEED)
    zero = np.array(3 if np.iinfo(dtype).min < 0 else 130, dtype=dtype)
    scale = np.array(scale, dtype=np.float32)
    model = _quantize_model([x.size], scale, zero, literal)
    if backend == "tosa" and type_name == "uint16" and literal:
        with pytest.raises(Exception, match="uint16|ui16 result with a literal zero point is not supported on TOSA"):
            _run_ours(model, backend, _feeds(model, x=x), [np.uint16])
        return
    _check(model, backend, _feeds(model, x=x, scale=scale, zero=zero), f"{type_name} {scale}")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("scale", [1.3344406e36, 2.0**120], ids=["attention_mask", "power_of_two"])
def test_quantize_with_a_huge_scale(backend, scale):
    """onnxruntime's quantize_static gives an attention mask of float32's lowest value the scale
    1.3e36 (zero point 255): TOSA's exact rounding split that scale past float32's range and
    rounded small negative scores to 254."""
    rng = np.random.default_rng(RNG_SEED)
    k = rng.integers(-120, 120, size=30).astype(np.float32)
    halfway = np.float32(scale) * (k + np.float32(0.5))
    scores = np.concatenate([rng.standard_normal(20).astype(np.float32) * 10, [-1e-3, -0.0, 0.0, 1e30, -1e30]])
    x = np.concatenate([halfway, np.nextafter(halfway, np.inf), scores, [np.finfo(np.float32).min]]).astype(np.float32)
    zero, scale = np.array(128, dtype=np.uint8), np.array(scale, dtype=np.float32)
    for literal in (True, False):
        model = _quantize_model([x.size], scale, zero, literal)
        _check(model, backend, _feeds(model, x=x, scale=scale, zero=zero), f"scale {scale} literal {literal}")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("opset", [10, 13, 19])
def test_quantize_older_opsets(backend, opset):
    x = _halfway_inputs(0.25, 12, seed=opset)
    zero, scale = np.array(128, dtype=np.uint8), np.array(0.25, dtype=np.float32)
    model = _quantize_model([x.size], scale, zero, literal=opset != 13, opset=opset)
    _check(model, backend, _feeds(model, x=x, scale=scale, zero=zero))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("literal", [True, False], ids=["literal", "input"])
def test_quantize_per_axis_and_blocked(backend, literal):
    rng = np.random.default_rng(RNG_SEED)
    x = (rng.standard_normal((3, 8, 5)) * 40).astype(np.float32)
    scale = np.array([0.5, 0.3, 1.7, 0.11, 0.25, 2.0, 0.7, 0.05], dtype=np.float32)
    zero = rng.integers(-5, 5, size=8).astype(np.int8)
    model = _quantize_model(list(x.shape), scale, zero, literal, axis=1)
    _check(model, backend, _feeds(model, x=x, scale=scale, zero=zero), "per-axis")
    blocked_scale = (rng.random((3, 8, 2)) + 0.1).astype(np.float32)
    blocked_zero = rng.integers(0, 20, size=(3, 8, 2)).astype(np.uint8)
    model = _quantize_model(list(x.shape), blocked_scale, blocked_zero, literal, axis=-1, block_size=3)
    _check(model, backend, _feeds(model, x=x, scale=blocked_scale, zero=blocked_zero), "blocked")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("type_name", ["int4", "uint4"])
def test_quantize_to_four_bits(backend, type_name):
    element = TensorProto.INT4 if type_name == "int4" else TensorProto.UINT4
    x = _halfway_inputs(0.5, 10, seed=4)
    zero = helper.make_tensor("zero", element, [], [1])
    graph = helper.make_graph(
        [helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["y"])], "g", [_value("x", TensorProto.FLOAT, [x.size])],
        [_value("y", element, None)], initializer=[_tensor("scale", np.array(0.5, np.float32)), zero],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    if backend == "tosa" and type_name == "uint4":
        with pytest.raises(Exception, match="ui4 result with a literal zero point is not supported on TOSA"):
            _run_ours(model, backend, {"x": x}, [None])
        return
    (want,) = _reference(model, {"x": x})
    (got,) = _run_ours(model, backend, {"x": x}, [None])
    got = got.astype(np.int16) & 0xF if type_name == "uint4" else got.astype(np.int16)  # i4 comes back signed
    assert np.array_equal(got, want.astype(np.int16))


@pytest.mark.parametrize("backend", BACKENDS)
def test_quantize_float16_and_precision(backend):
    x = np.clip(_halfway_inputs(0.125, 20, seed=16), -4000, 4000).astype(np.float16)  # no infinities
    scale, zero = np.array(0.125, dtype=np.float16), np.array(-3, dtype=np.int8)
    model = _quantize_model([x.size], scale, zero, literal=False, x_type=TensorProto.FLOAT16)
    _check(model, backend, _feeds(model, x=x, scale=scale, zero=zero), "float16")
    model = _quantize_model([x.size], scale, zero, literal=True, x_type=TensorProto.FLOAT16, opset=23,
                            precision=TensorProto.FLOAT)
    _check(model, backend, _feeds(model, x=x), "precision float")


@pytest.mark.parametrize("backend", BACKENDS)
def test_quantize_int32_input(backend):
    """An int32 x is divided in float64 (numpy's promotion in ONNX's reference). Opset 23: before it,
    x and y_scale share one type parameter, so an int32 x with a float scale is refused by the schema check."""
    x = np.array([0, 7, -7, 2**24 + 1, -(2**24) - 3, 1000, -1000, 13], dtype=np.int32)
    scale, zero = np.array(2.0, dtype=np.float32), np.array(0, dtype=np.int16)
    model = _quantize_model([x.size], scale, zero, literal=False, opset=23, x_type=TensorProto.INT32)
    _check(model, backend, _feeds(model, x=x, scale=scale, zero=zero))


def test_quantize_dynamic_shape_on_linalg():
    x = (np.random.default_rng(7).standard_normal((5, 6)) * 30).astype(np.float32)
    zero, scale = np.array(3, dtype=np.int8), np.array(0.37, dtype=np.float32)
    for literal in (True, False):
        model = _quantize_model(["n", "m"], scale, zero, literal, axis=1)
        _check(model, "linalg-on-tensors", _feeds(model, x=x, scale=scale, zero=zero), f"literal={literal}")


def _dequantize_model(x, scale, zero_point, literal, axis=1, block_size=0, opset=21):
    element = helper.np_dtype_to_tensor_dtype(x.dtype)
    inputs = [_value("x", element, list(x.shape))]
    initializers, names = [], ["x", "scale"]
    if zero_point is not None:
        names.append("zero")
    if literal:
        initializers = [_tensor("scale", scale)] + ([_tensor("zero", zero_point)] if zero_point is not None else [])
    else:
        inputs.append(_value("scale", helper.np_dtype_to_tensor_dtype(scale.dtype), list(scale.shape)))
        if zero_point is not None:
            inputs.append(_value("zero", element, list(zero_point.shape)))
    attributes = {"axis": axis} if opset >= 13 else {}
    if block_size:
        attributes["block_size"] = block_size
    node = helper.make_node("DequantizeLinear", names, ["y"], **attributes)
    return _model([node], inputs, [_value("y", helper.np_dtype_to_tensor_dtype(scale.dtype), None)], initializers, opset)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("literal", [True, False], ids=["literal", "input"])
@pytest.mark.parametrize("type_name", sorted(INTEGER_TYPES) + ["int32"])
def test_dequantize_per_tensor(backend, literal, type_name):
    dtype = np.int32 if type_name == "int32" else INTEGER_TYPES[type_name][1]
    info = np.iinfo(dtype)
    x = np.random.default_rng(RNG_SEED).integers(info.min, info.max, size=50, endpoint=True, dtype=dtype)
    x[:2] = info.min, info.max
    zero = None if type_name == "int32" else np.array(info.max // 3, dtype=dtype)
    scale = np.array(0.0173, dtype=np.float32)
    model = _dequantize_model(x, scale, zero, literal)
    _check(model, backend, _feeds(model, x=x, scale=scale, zero=zero))


@pytest.mark.parametrize("backend", BACKENDS)
def test_dequantize_per_axis_blocked_float16_and_four_bits(backend):
    rng = np.random.default_rng(RNG_SEED)
    x = rng.integers(0, 255, size=(4, 6), dtype=np.uint8)
    scale = (rng.random(6) + 0.01).astype(np.float32)
    zero = rng.integers(0, 255, size=6, dtype=np.uint8)
    for literal in (True, False):
        model = _dequantize_model(x, scale, zero, literal, axis=1)
        _check(model, backend, _feeds(model, x=x, scale=scale, zero=zero), "per-axis")
    blocked_scale = (rng.random((2, 6)) + 0.01).astype(np.float16)
    blocked_zero = rng.integers(0, 255, size=(2, 6), dtype=np.uint8)
    model = _dequantize_model(x, blocked_scale, blocked_zero, False, axis=0, block_size=3)
    _check(model, backend, _feeds(model, x=x, scale=blocked_scale, zero=blocked_zero), "blocked float16")
    packed = helper.make_tensor("x", TensorProto.UINT4, [6], [0, 15, 7, 8, 1, 14])
    graph = helper.make_graph(
        [helper.make_node("DequantizeLinear", ["x", "scale", "zero"], ["y"])], "g", [],
        [_value("y", TensorProto.FLOAT, None)],
        initializer=[packed, _tensor("scale", np.array(0.5, np.float32)), helper.make_tensor("zero", TensorProto.UINT4, [], [9])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    _check(model, backend, {}, "uint4")


@pytest.mark.parametrize("backend", BACKENDS)
def test_dynamic_quantize_linear(backend):
    rng = np.random.default_rng(RNG_SEED)
    cases = [
        (rng.standard_normal((3, 7)) * 5).astype(np.float32),
        np.abs(rng.standard_normal((2, 5))).astype(np.float32),  # min 0
        -np.abs(rng.standard_normal((9,))).astype(np.float32),  # max 0
        np.zeros((4,), dtype=np.float32),  # scale 1 / 255
        np.array([-2.55, 0.0, 2.55, 1.275, -1.275, 0.005], dtype=np.float32),
    ]
    for x in cases:
        model = _model(
            [helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "scale", "zero"])], [_value("x", TensorProto.FLOAT, list(x.shape))],
            [_value("y", TensorProto.UINT8, None), _value("scale", TensorProto.FLOAT, []), _value("zero", TensorProto.UINT8, [])],
            opset=11,
        )
        _check(model, backend, {"x": x}, str(x.shape))


# -- integer products ---------------------------------------------------------------------------
def _integer_operands(rng, a_shape, b_shape, a_type, b_type, extreme=False):
    a_info, b_info = np.iinfo(a_type), np.iinfo(b_type)
    if extreme:  # every product at the end of the range: a float32 sum over K = 4096 is not exact
        a = rng.choice([a_info.min, a_info.max], size=a_shape).astype(a_type)
        b = rng.choice([b_info.min, b_info.max], size=b_shape).astype(b_type)
        return a, b
    return (rng.integers(a_info.min, a_info.max, size=a_shape, endpoint=True).astype(a_type),
            rng.integers(b_info.min, b_info.max, size=b_shape, endpoint=True).astype(b_type))


def _inputs_or_initializers(arrays: dict, literal_names):
    inputs, initializers = [], []
    for name, array in arrays.items():
        if array is None:
            continue
        if name in literal_names:
            initializers.append(_tensor(name, array))
        else:
            inputs.append(_value(name, helper.np_dtype_to_tensor_dtype(array.dtype), list(array.shape)))
    return inputs, initializers


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("literal", [True, False], ids=["literal", "input"])
@pytest.mark.parametrize("types", [(np.int8, np.int8), (np.uint8, np.int8), (np.uint8, np.uint8), (np.int8, np.uint8)],
                         ids=lambda t: f"{np.dtype(t[0]).name}_{np.dtype(t[1]).name}")
def test_matmul_integer(backend, literal, types):
    rng = np.random.default_rng(RNG_SEED)
    for a_shape, b_shape, extreme in [((3, 5), (5, 4), False), ((2, 3, 7), (7, 6), False), ((2, 4096), (4096, 3), True)]:
        a, b = _integer_operands(rng, a_shape, b_shape, *types, extreme=extreme)
        zeros = {"a_zero": np.array(3, dtype=types[0]), "b_zero": np.array(2, dtype=types[1])}
        arrays = {"a": a, "b": b, **zeros}
        inputs, initializers = _inputs_or_initializers(arrays, set(zeros) if literal else set())
        model = _model([helper.make_node("MatMulInteger", ["a", "b", "a_zero", "b_zero"], ["y"])], inputs,
                       [_value("y", TensorProto.INT32, None)], initializers, opset=10)
        _check(model, backend, _feeds(model, **arrays), f"{a_shape} x {b_shape}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_matmul_integer_per_row_and_column_zero_points(backend):
    rng = np.random.default_rng(RNG_SEED)
    a, b = _integer_operands(rng, (4, 9), (9, 5), np.uint8, np.int8)
    arrays = {"a": a, "b": b, "a_zero": rng.integers(0, 255, 4).astype(np.uint8),
              "b_zero": rng.integers(-128, 127, 5).astype(np.int8)}
    inputs, initializers = _inputs_or_initializers(arrays, {"a_zero", "b_zero"})
    model = _model([helper.make_node("MatMulInteger", ["a", "b", "a_zero", "b_zero"], ["y"])], inputs,
                   [_value("y", TensorProto.INT32, None)], initializers, opset=10)
    want = (a.astype(np.int32) - arrays["a_zero"].astype(np.int32)[:, None]) @ (b.astype(np.int32) - arrays["b_zero"])
    (got,) = _run_ours(model, backend, _feeds(model, **arrays), [np.int32])
    _assert_equal([got], [want])


@pytest.mark.parametrize("backend", BACKENDS)
def test_matmul_integer_of_rank_4_by_a_matrix(backend):
    """A [2, 3, 4, 8] by B [8, 1] with A's zero point an input (the integer form): what
    onnxruntime's quantize_dynamic writes for an attention score (text2tashkeel's bilstm.int8)."""
    rng = np.random.default_rng(RNG_SEED)
    a, b = _integer_operands(rng, (2, 3, 4, 8), (8, 1), np.uint8, np.int8)
    arrays = {"a": a, "b": b, "a_zero": np.array(131, np.uint8), "b_zero": np.array(0, np.int8)}
    inputs, initializers = _inputs_or_initializers(arrays, {"b", "b_zero"})
    model = _model([helper.make_node("MatMulInteger", ["a", "b", "a_zero", "b_zero"], ["y"])], inputs,
                   [_value("y", TensorProto.INT32, None)], initializers, opset=10)
    want = (a.astype(np.int32) - 131) @ b.astype(np.int32)
    (got,) = _run_ours(model, backend, _feeds(model, **arrays), [np.int32])
    _assert_equal([got], [want])


def _qlinear_matmul_model(arrays, literal_names, y_type):
    inputs, initializers = _inputs_or_initializers(arrays, literal_names)
    names = ["a", "a_scale", "a_zero", "b", "b_scale", "b_zero", "y_scale", "y_zero"]
    return _model([helper.make_node("QLinearMatMul", names, ["y"])], inputs, [_value("y", y_type, None)], initializers, opset=21)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("literal", [True, False], ids=["literal", "input"])
@pytest.mark.parametrize("types", [(np.int8, np.int8, np.int8), (np.uint8, np.uint8, np.uint8), (np.uint8, np.int8, np.int8)],
                         ids=lambda t: "_".join(np.dtype(x).name for x in t))
def test_qlinear_matmul(backend, literal, types):
    rng = np.random.default_rng(RNG_SEED)
    for a_shape, b_shape, extreme, per_column in [((3, 5), (5, 4), False, False), ((2, 3, 8), (8, 6), False, True),
                                                  ((2, 4096), (4096, 3), True, False)]:
        a, b = _integer_operands(rng, a_shape, b_shape, types[0], types[1], extreme=extreme)
        n = b_shape[-1]
        arrays = {
            "a": a, "a_scale": np.array(0.02, np.float32), "a_zero": np.array(5, types[0]),
            "b": b, "b_scale": (rng.random(n) * 0.05 + 0.001).astype(np.float32) if per_column else np.array(0.013, np.float32),
            "b_zero": np.array(-3 if types[1] == np.int8 else 120, types[1]),
            "y_scale": np.array(0.9 if not extreme else 2000.0, np.float32), "y_zero": np.array(7, types[2]),
        }
        literal_names = {name for name in arrays if name not in ("a", "b")} if literal else set()
        model = _qlinear_matmul_model(arrays, literal_names, helper.np_dtype_to_tensor_dtype(np.dtype(types[2])))
        _check(model, backend, _feeds(model, **arrays), f"{a_shape} x {b_shape}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_qlinear_matmul_float16_scales_halfway(backend):
    """Accumulators times the multiplier land exactly on half-way points (multiplier 0.5)."""
    a = np.arange(-8, 8, dtype=np.int8).reshape(4, 4)
    b = np.eye(4, dtype=np.int8)
    arrays = {"a": a, "a_scale": np.array(0.5, np.float16), "a_zero": np.array(0, np.int8), "b": b,
              "b_scale": np.array(1.0, np.float16), "b_zero": np.array(0, np.int8), "y_scale": np.array(1.0, np.float16),
              "y_zero": np.array(0, np.int8)}
    model = _qlinear_matmul_model(arrays, {"a_scale", "b_scale", "y_scale", "a_zero", "b_zero", "y_zero"}, TensorProto.INT8)
    got = _check(model, backend, _feeds(model, **arrays))
    assert list(got[0][0]) == [-4, -4, -3, -2]  # -3.5 -> -4, -2.5 -> -2


def _conv_arrays(rng, x_shape, w_shape, x_type, w_type, per_channel):
    x, w = _integer_operands(rng, x_shape, w_shape, x_type, w_type)
    channels = w_shape[0]
    return {
        "x": x, "x_scale": np.array(0.03, np.float32), "x_zero": np.array(4 if x_type == np.int8 else 131, x_type),
        "w": w, "w_scale": (rng.random(channels) * 0.02 + 0.001).astype(np.float32) if per_channel else np.array(0.011, np.float32),
        "w_zero": np.array(-2 if w_type == np.int8 else 126, w_type),
        "y_scale": np.array(1.3, np.float32), "y_zero": np.array(-5 if x_type == np.int8 else 100, x_type),
    }


CONVOLUTIONS = {
    "2d_pads": ((1, 3, 7, 6), (4, 3, 3, 2), {"pads": [1, 0, 2, 1], "strides": [2, 1]}),
    "2d_group": ((2, 4, 5, 5), (6, 2, 3, 3), {"group": 2, "dilations": [2, 1], "pads": [1, 1, 1, 1]}),
    "2d_depthwise": ((1, 3, 6, 6), (3, 1, 3, 3), {"group": 3, "auto_pad": "SAME_UPPER"}),
    "1d": ((2, 3, 9), (5, 3, 4), {"pads": [2, 1]}),
    "3d": ((1, 2, 4, 5, 3), (3, 2, 2, 3, 2), {"pads": [1, 0, 1, 0, 1, 1]}),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("literal", [True, False], ids=["literal", "input"])
@pytest.mark.parametrize("types", [(np.int8, np.int8), (np.uint8, np.int8), (np.uint8, np.uint8)],
                         ids=lambda t: f"{np.dtype(t[0]).name}_{np.dtype(t[1]).name}")
@pytest.mark.parametrize("shape", sorted(CONVOLUTIONS))
def test_qlinear_conv(backend, literal, types, shape):
    rng = np.random.default_rng(RNG_SEED)
    x_shape, w_shape, attributes = CONVOLUTIONS[shape]
    # ONNX's reference reads a per-channel w_scale of 2-D convolutions only.
    arrays = _conv_arrays(rng, x_shape, w_shape, *types, per_channel=literal and len(x_shape) == 4)
    arrays["bias"] = rng.integers(-3000, 3000, size=w_shape[0]).astype(np.int32)
    literal_names = {name for name in arrays if name not in ("x", "w")} if literal else set()
    inputs, initializers = _inputs_or_initializers(arrays, literal_names)
    names = ["x", "x_scale", "x_zero", "w", "w_scale", "w_zero", "y_scale", "y_zero", "bias"]
    model = _model([helper.make_node("QLinearConv", names, ["y"], **attributes)], inputs,
                   [_value("y", helper.np_dtype_to_tensor_dtype(np.dtype(types[0])), None)], initializers, opset=10)
    _check(model, backend, _feeds(model, **arrays), shape)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("literal", [True, False], ids=["literal", "input"])
def test_conv_integer(backend, literal):
    rng = np.random.default_rng(RNG_SEED)
    for shape in ("2d_pads", "2d_group", "1d"):
        x_shape, w_shape, attributes = CONVOLUTIONS[shape]
        x, w = _integer_operands(rng, x_shape, w_shape, np.uint8, np.int8)
        arrays = {"x": x, "w": w, "x_zero": np.array(200, np.uint8), "w_zero": np.array(-7, np.int8)}
        inputs, initializers = _inputs_or_initializers(arrays, {"x_zero", "w_zero"} if literal else set())
        model = _model([helper.make_node("ConvInteger", ["x", "w", "x_zero", "w_zero"], ["y"], **attributes)], inputs,
                       [_value("y", TensorProto.INT32, None)], initializers, opset=10)
        _check(model, backend, _feeds(model, **arrays), shape)


def test_integer_products_dynamic_shapes_on_linalg():
    rng = np.random.default_rng(RNG_SEED)
    a, b = _integer_operands(rng, (3, 6), (6, 4), np.uint8, np.int8)
    arrays = {"a": a, "b": b, "a_zero": np.array(9, np.uint8), "b_zero": np.array(1, np.int8)}
    for literal in (True, False):
        inputs, initializers = _inputs_or_initializers(arrays, {"a_zero", "b_zero"} if literal else set())
        inputs[0] = _value("a", TensorProto.UINT8, ["m", "k"])
        model = _model([helper.make_node("MatMulInteger", ["a", "b", "a_zero", "b_zero"], ["y"])], inputs,
                       [_value("y", TensorProto.INT32, None)], initializers, opset=10)
        _check(model, "linalg-on-tensors", _feeds(model, **arrays), f"literal={literal}")
    x_shape, w_shape, attributes = CONVOLUTIONS["2d_pads"]
    arrays = _conv_arrays(rng, x_shape, w_shape, np.uint8, np.int8, per_channel=True)
    inputs, initializers = _inputs_or_initializers(arrays, {name for name in arrays if name not in ("x", "w")})
    inputs[0] = _value("x", TensorProto.UINT8, ["n", 3, "h", "w"])
    names = ["x", "x_scale", "x_zero", "w", "w_scale", "w_zero", "y_scale", "y_zero"]
    model = _model([helper.make_node("QLinearConv", names, ["y"], **attributes)], inputs, [_value("y", TensorProto.UINT8, None)],
                   initializers, opset=10)
    _check(model, "linalg-on-tensors", _feeds(model, **arrays), "QLinearConv")


# -- QDQ graphs ---------------------------------------------------------------------------------
def _qdq_matmul_model(a_shape, b, with_conv=False):
    """x -> QuantizeLinear -> DequantizeLinear -> MatMul (or Conv) with a dequantized int8 weight
    -> QuantizeLinear: torch-mlir fuses the dequantizations into an integer product."""
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "x_scale", "x_zero"], ["xd"]),
        helper.make_node("DequantizeLinear", ["w", "w_scale", "w_zero"], ["wd"]),
        helper.make_node("Conv" if with_conv else "MatMul", ["xd", "wd"], ["y"]),
        helper.make_node("QuantizeLinear", ["y", "y_scale", "y_zero"], ["yq"]),
    ]
    initializers = [
        _tensor("x_scale", np.array(0.05, np.float32)), _tensor("x_zero", np.array(10, np.int8)),
        _tensor("w", b), _tensor("w_scale", np.array(0.02, np.float32)), _tensor("w_zero", np.array(0, np.int8)),
        _tensor("y_scale", np.array(0.25, np.float32)), _tensor("y_zero", np.array(-4, np.int8)),
    ]
    return _model(nodes, [_value("x", TensorProto.FLOAT, list(a_shape))], [_value("yq", TensorProto.INT8, None)], initializers,
                  opset=19)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", ["matmul", "matmul_3d", "conv"])
def test_qdq_graphs(backend, kind):
    """The fused integer product gives the reference's quantized output except where the float32
    sum of the reference lies next to a half-way point (at most one step, rarely)."""
    rng = np.random.default_rng(RNG_SEED)
    if kind == "conv":
        a_shape, w = (1, 3, 8, 8), rng.integers(-128, 127, size=(4, 3, 3, 3)).astype(np.int8)
    else:
        a_shape, w = ((5, 64) if kind == "matmul" else (2, 5, 64)), rng.integers(-128, 127, size=(64, 7)).astype(np.int8)
    model = _qdq_matmul_model(a_shape, w, with_conv=kind == "conv")
    x = (rng.standard_normal(a_shape) * 3).astype(np.float32)
    (want,) = _reference(model, {"x": x})
    (got,) = _run_ours(model, backend, {"x": x}, [np.int8])
    difference = np.abs(got.astype(np.int32) - want.astype(np.int32))
    assert difference.max() <= 1 and np.count_nonzero(difference) <= max(1, want.size // 100), difference


# -- com.microsoft (onnxruntime's QOperator format) -----------------------------------------------
MS = "com.microsoft"


def _ms_model(node, inputs, initializers, outputs, dynamic=False):
    """`inputs`: name -> array (graph inputs, with symbolic dims when `dynamic`); `initializers`:
    name -> array; `outputs`: (name, element)."""
    values = [
        _value(name, helper.np_dtype_to_tensor_dtype(array.dtype),
               [f"d{i}" for i in range(array.ndim)] if dynamic else list(array.shape))
        for name, array in inputs.items()
    ]
    graph = helper.make_graph([node], "g", values, [_value(name, element, None) for name, element in outputs],
                              initializer=[_tensor(name, array) for name, array in initializers.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    model.ir_version = 10
    return model


def _onnxruntime(model, feeds):
    import onnxruntime

    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def _within_one_step(got, want, what=""):
    """Integer results equal, or one quantization step apart (onnxruntime's fixed-point and table
    kernels), on at most 5% of the elements."""
    difference = np.abs(got.astype(np.int64) - np.asarray(want).astype(np.int64))
    assert got.shape == np.asarray(want).shape, (what, got.shape, np.asarray(want).shape)
    assert difference.max(initial=0) <= 1 and np.count_nonzero(difference) <= max(1, difference.size // 20), (
        what, difference.max(initial=0), np.count_nonzero(difference))


def _assert_exact_but_ties_on_tosa(backend, got, exact, real, what=""):
    """Equal to the exact result; on TOSA, where a QOperator op becomes integer TOSA (quantization/
    qdq_form.py, transforms/tosa/quantized_regions/), `tosa.rescale` multiplies by the scale ratio
    in 31 bits and rounds a half-way value up, where the exact formula rounds it to even: only there
    (`real`, in output steps, ends in .5) may it be one step off, either way."""
    if backend != "tosa":
        _assert_equal([got], [exact], what)
        return
    difference = got.astype(np.int64) - exact.astype(np.int64)
    ties = np.abs(np.abs(real - np.floor(real)) - 0.5) < 1e-6
    assert np.all((difference == 0) | ((np.abs(difference) == 1) & ties)), (
        what, np.flatnonzero(difference)[:8], got.reshape(-1)[np.flatnonzero(difference)[:8]])


def _quantize_numpy(value, scale, zero, dtype):
    info = np.iinfo(dtype)
    return np.clip(np.rint(np.asarray(value, np.float64) / np.float64(scale)) + zero, info.min, info.max).astype(dtype)


def _binary_params(dtype):
    zero = (lambda v: np.array(v, dtype))
    return {"A_scale": np.array(0.5, np.float32), "A_zero_point": zero(3 if dtype == np.int8 else 130),
            "B_scale": np.array(0.25, np.float32), "B_zero_point": zero(-7 if dtype == np.int8 else 120),
            "C_scale": np.array(1.0, np.float32), "C_zero_point": zero(1 if dtype == np.int8 else 128)}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", ["QLinearAdd", "QLinearMul"])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8], ids=["int8", "uint8"])
def test_microsoft_qlinear_add_mul(backend, op, dtype):
    """Scales 0.5, 0.25 and 1 put many results exactly on half-way points: the exact formula rounds
    them to even; onnxruntime's fixed point may not (one step)."""
    rng = np.random.default_rng(RNG_SEED)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, size=(3, 16), endpoint=True, dtype=dtype)
    b = rng.integers(info.min, info.max, size=(16,), endpoint=True, dtype=dtype)
    params = _binary_params(dtype)
    names = ["A", "A_scale", "A_zero_point", "B", "B_scale", "B_zero_point", "C_scale", "C_zero_point"]
    node = helper.make_node(op, names, ["C"], domain=MS)
    for dynamic in ([False, True] if backend == "linalg-on-tensors" else [False]):
        model = _ms_model(node, {"A": a, "B": b}, params, [("C", helper.np_dtype_to_tensor_dtype(np.dtype(dtype)))], dynamic)
        (got,) = _run_ours(model, backend, {"A": a, "B": b}, [dtype])
        da = (a.astype(np.float64) - params["A_zero_point"]) * np.float64(params["A_scale"])
        db = (b.astype(np.float64) - params["B_zero_point"]) * np.float64(params["B_scale"])
        real = (da + db if op == "QLinearAdd" else da * db) / np.float64(params["C_scale"])
        exact = _quantize_numpy(real, 1.0, params["C_zero_point"], dtype)
        _assert_exact_but_ties_on_tosa(backend, got, exact, real, f"{op} exact")
        # onnxruntime differs (by one step) only where the exact value is half-way between two.
        different = got != _onnxruntime(model, {"A": a, "B": b})[0]
        assert np.all(np.abs(np.abs(real - np.floor(real)) - 0.5)[different] < 1e-9), f"{op} onnxruntime"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", ["QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax"])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8], ids=["int8", "uint8"])
def test_microsoft_qlinear_unary(backend, op, dtype):
    info = np.iinfo(dtype)
    x = np.arange(info.min, info.max + 1, dtype=dtype).reshape(4, 64)  # every value
    params = {"X_scale": np.array(0.07, np.float32), "X_zero_point": np.array(5 if dtype == np.int8 else 133, dtype),
              "Y_scale": np.array(1 / 250 if op != "QLinearLeakyRelu" else 0.05, np.float32),
              "Y_zero_point": np.array(-128 if dtype == np.int8 else 0, dtype)}
    attributes = {"alpha": 0.1} if op == "QLinearLeakyRelu" else {"opset": 13, "axis": -1} if op == "QLinearSoftmax" else {}
    node = helper.make_node(op, ["X", "X_scale", "X_zero_point", "Y_scale", "Y_zero_point"], ["Y"], domain=MS, **attributes)
    model = _ms_model(node, {"X": x}, params, [("Y", helper.np_dtype_to_tensor_dtype(np.dtype(dtype)))],
                      dynamic=backend == "linalg-on-tensors")
    (got,) = _run_ours(model, backend, {"X": x}, [dtype])
    _within_one_step(got, _onnxruntime(model, {"X": x})[0], op)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("channels_last", [0, 1])
def test_microsoft_qlinear_global_average_pool(backend, channels_last):
    rng = np.random.default_rng(RNG_SEED)
    x = rng.integers(0, 255, size=(2, 3, 5, 4) if not channels_last else (2, 5, 4, 3), dtype=np.uint8)
    params = {"x_scale": np.array(0.1, np.float32), "x_zero_point": np.array(120, np.uint8),
              "y_scale": np.array(0.05, np.float32), "y_zero_point": np.array(128, np.uint8)}
    node = helper.make_node("QLinearGlobalAveragePool", ["X", "x_scale", "x_zero_point", "y_scale", "y_zero_point"],
                            ["Y"], domain=MS, channels_last=channels_last)
    model = _ms_model(node, {"X": x}, params, [("Y", TensorProto.UINT8)], dynamic=backend == "linalg-on-tensors")
    (got,) = _run_ours(model, backend, {"X": x}, [np.uint8])
    axes = (1, 2) if channels_last else (2, 3)
    total = (x.astype(np.int64) - 120).sum(axis=axes, keepdims=True)
    real = total * np.float64(np.float32(0.1)) / (np.float64(np.float32(0.05)) * 20)
    exact = _quantize_numpy(real, 1.0, 128, np.uint8)
    _assert_exact_but_ties_on_tosa(backend, got, exact, real, "exact")
    _within_one_step(got, _onnxruntime(model, {"X": x})[0], "onnxruntime")


@pytest.mark.parametrize("backend", BACKENDS)
def test_microsoft_qlinear_concat(backend):
    rng = np.random.default_rng(RNG_SEED)
    x1, x2 = rng.integers(-128, 127, size=(2, 3), dtype=np.int8), rng.integers(-128, 127, size=(2, 5), dtype=np.int8)
    initializers = {"y_scale": np.array(0.2, np.float32), "y_zero": np.array(3, np.int8),
                    "s1": np.array(0.2, np.float32), "z1": np.array(3, np.int8),  # the identity
                    "s2": np.array(0.5, np.float32), "z2": np.array(-4, np.int8)}
    node = helper.make_node("QLinearConcat", ["y_scale", "y_zero", "x1", "s1", "z1", "x2", "s2", "z2"], ["Y"],
                            domain=MS, axis=1)
    model = _ms_model(node, {"x1": x1, "x2": x2}, initializers, [("Y", TensorProto.INT8)])
    (got,) = _run_ours(model, backend, {"x1": x1, "x2": x2}, [np.int8])
    exact = np.concatenate([x1, _quantize_numpy((x2.astype(np.float64) + 4) * np.float64(np.float32(0.5)), np.float32(0.2), 3,
                                                np.int8)], axis=1)
    _assert_equal([got], [exact], "exact")
    _within_one_step(got, _onnxruntime(model, {"x1": x1, "x2": x2})[0], "onnxruntime")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("quantized_output", [True, False], ids=["uint8_output", "float_output"])
@pytest.mark.parametrize("transposed", [False, True], ids=["plain", "transposed"])
def test_microsoft_qgemm(backend, quantized_output, transposed):
    skip_if_uint8_int8_saturates()
    rng = np.random.default_rng(RNG_SEED)
    a = rng.integers(0, 255, size=(4, 300), dtype=np.uint8)
    w = rng.integers(-127, 127, size=(300, 6), dtype=np.int8)
    initializers = {"a_scale": np.array(0.02, np.float32), "a_zero": np.array(128, np.uint8),
                    "b": w.T.copy() if transposed else w, "b_scale": (rng.random(6) * 0.01 + 0.001).astype(np.float32),
                    "b_zero": np.zeros(6, np.int8), "c": rng.integers(-500, 500, size=6).astype(np.int32)}
    names = ["a", "a_scale", "a_zero", "b", "b_scale", "b_zero", "c"]
    outputs = [("y", TensorProto.FLOAT)]
    if quantized_output:
        initializers.update({"y_scale": np.array(0.3, np.float32), "y_zero": np.array(100, np.uint8)})
        names += ["y_scale", "y_zero"]
        outputs = [("y", TensorProto.UINT8)]  # onnxruntime has uint8 A with uint8 Y only
    node = helper.make_node("QGemm", names, ["y"], domain=MS, transB=int(transposed), alpha=0.75)
    model = _ms_model(node, {"a": a}, initializers, outputs)
    want = _onnxruntime(model, {"a": a})[0]
    (got,) = _run_ours(model, backend, {"a": a}, [want.dtype])
    if quantized_output:
        _within_one_step(got, want, "QGemm")
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", ["MatMulIntegerToFloat", "DynamicQuantizeMatMul"])
def test_microsoft_matmul_to_float(backend, op):
    """K = 2048: the int32 accumulation is exact; the float output at float32 tolerance."""
    skip_if_uint8_int8_saturates()
    rng = np.random.default_rng(RNG_SEED)
    w = rng.integers(-128, 127, size=(2048, 5), dtype=np.int8)
    b_scale = (rng.random(5) * 0.01 + 0.001).astype(np.float32)
    bias = rng.standard_normal(5).astype(np.float32)
    if op == "MatMulIntegerToFloat":
        a = rng.integers(0, 255, size=(2, 3, 2048), dtype=np.uint8)
        initializers = {"b": w, "a_scale": np.array(0.03, np.float32), "b_scale": b_scale,
                        "a_zero": np.array(100, np.uint8), "b_zero": np.zeros(5, np.int8), "bias": bias}
        names = ["a", "b", "a_scale", "b_scale", "a_zero", "b_zero", "bias"]
    else:
        a = (rng.standard_normal((2, 3, 2048)) * 4).astype(np.float32)
        initializers = {"b": w, "b_scale": b_scale, "b_zero": np.zeros(5, np.int8), "bias": bias}
        names = ["a", "b", "b_scale", "b_zero", "bias"]
    node = helper.make_node(op, names, ["y"], domain=MS)
    model = _ms_model(node, {"a": a}, initializers, [("y", TensorProto.FLOAT)], dynamic=backend == "linalg-on-tensors")
    want = _onnxruntime(model, {"a": a})[0]
    (got,) = _run_ours(model, backend, {"a": a}, [np.float32])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("backend", BACKENDS)
def test_microsoft_quantize_dequantize_and_conv(backend):
    skip_if_uint8_int8_saturates()
    rng = np.random.default_rng(RNG_SEED)
    x = _halfway_inputs(0.25, 10, seed=3)
    params = {"s": np.array(0.25, np.float32), "z": np.array(7, np.uint8)}
    model = _ms_model(helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], domain=MS), {"x": x}, params,
                      [("y", TensorProto.UINT8)])
    (got,) = _run_ours(model, backend, {"x": x}, [np.uint8])
    _assert_equal([got], _onnxruntime(model, {"x": x}), "QuantizeLinear")
    q = rng.integers(0, 255, size=(3, 4), dtype=np.uint8)
    params = {"s": np.array([0.5, 0.1, 0.3], np.float32), "z": np.array([1, 200, 30], np.uint8)}
    model = _ms_model(helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], domain=MS, axis=0), {"q": q}, params,
                      [("y", TensorProto.FLOAT)])
    (got,) = _run_ours(model, backend, {"q": q}, [np.float32])
    _assert_equal([got], _onnxruntime(model, {"q": q}), "DequantizeLinear")
    xc = rng.integers(0, 255, size=(1, 6, 6, 3), dtype=np.uint8)  # NHWC
    weights = {"x_scale": np.array(0.05, np.float32), "x_zero": np.array(128, np.uint8),
               "w": rng.integers(-100, 100, size=(4, 3, 3, 3), dtype=np.int8), "w_scale": np.array(0.02, np.float32),
               "w_zero": np.array(0, np.int8), "y_scale": np.array(0.4, np.float32), "y_zero": np.array(120, np.uint8)}
    node = helper.make_node("QLinearConv", ["x", "x_scale", "x_zero", "w", "w_scale", "w_zero", "y_scale", "y_zero"], ["y"],
                            domain=MS, channels_last=1, pads=[1, 1, 1, 1])
    model = _ms_model(node, {"x": xc}, weights, [("y", TensorProto.UINT8)])
    (got,) = _run_ours(model, backend, {"x": xc}, [np.uint8])
    _within_one_step(got, _onnxruntime(model, {"x": xc})[0], "QLinearConv channels_last")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("channels_last", [0, 1])
def test_microsoft_qlinear_average_pool(backend, channels_last):
    rng = np.random.default_rng(RNG_SEED)
    x = rng.integers(0, 255, size=(1, 3, 7, 6) if not channels_last else (1, 7, 6, 3), dtype=np.uint8)
    params = {"x_scale": np.array(0.1, np.float32), "x_zero_point": np.array(120, np.uint8),
              "y_scale": np.array(0.05, np.float32), "y_zero_point": np.array(128, np.uint8)}
    node = helper.make_node("QLinearAveragePool", ["X", "x_scale", "x_zero_point", "y_scale", "y_zero_point"], ["Y"],
                            domain=MS, channels_last=channels_last, kernel_shape=[3, 2], strides=[2, 1], pads=[1, 0, 1, 0],
                            count_include_pad=0)
    model = _ms_model(node, {"X": x}, params, [("Y", TensorProto.UINT8)])
    (got,) = _run_ours(model, backend, {"X": x}, [np.uint8])
    _within_one_step(got, _onnxruntime(model, {"X": x})[0], "QLinearAveragePool")


@pytest.mark.parametrize("backend", BACKENDS)
def test_unsigned_literal_weights(backend):
    """uint8 weights and biases stored as initializers: StableHLO's consumers cannot lower a uint8
    constant, so small ones are made again as int32 literals there."""
    rng = np.random.default_rng(RNG_SEED)
    a, w = rng.integers(0, 255, size=(3, 6), dtype=np.uint8), rng.integers(0, 255, size=(6, 4), dtype=np.uint8)
    initializers = [_tensor("w", w), _tensor("az", np.array(3, np.uint8)), _tensor("wz", np.array(7, np.uint8))]
    model = _model([helper.make_node("MatMulInteger", ["a", "w", "az", "wz"], ["y"])], [_value("a", TensorProto.UINT8, [3, 6])],
                   [_value("y", TensorProto.INT32, None)], initializers, opset=10)
    _check(model, backend, {"a": a}, "MatMulInteger")
    bias = rng.integers(0, 255, size=(5,), dtype=np.uint8)
    model = _model([helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])], [], [_value("y", TensorProto.FLOAT, None)],
                   [_tensor("q", bias), _tensor("s", np.array(0.1, np.float32)), _tensor("z", np.array(9, np.uint8))], opset=19)
    _check(model, backend, {}, "DequantizeLinear")
