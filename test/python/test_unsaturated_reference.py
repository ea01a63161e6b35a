"""The model harness's unsaturated reference (onnx_torch_mlir/tools/unsaturated_reference.py; verify and the model harness use it): int8 weights
rewritten as uint8 keep every dequantized value, and onnxruntime on the rewritten model is exact
where, on a CPU without AVX-VNNI, it saturates on the original."""

import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from onnxruntime_reference import uint8_int8_saturation
from onnx_torch_mlir.tools.unsaturated_reference import int8_weights_as_uint8

OPSETS = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]


def _model(nodes, inputs, outputs, initializers):
    graph = helper.make_graph(nodes, "weights", inputs, outputs, [numpy_helper.from_array(a, n) for n, a in initializers.items()])
    return helper.make_model(graph, opset_imports=OPSETS, ir_version=8)


def _tensor(name, element, shape):
    return helper.make_tensor_value_info(name, element, shape)


def _initializers(model) -> dict:
    return {tensor.name: numpy_helper.to_array(tensor) for tensor in model.graph.initializer}


def _dequantized(model, weight: str, scale: str, zero_point: str, axis: int) -> np.ndarray:
    """onnx's reference DequantizeLinear of the named initializers (no zero point: 0)."""
    tensors = _initializers(model)
    names = [weight, scale] + ([zero_point] if zero_point else [])
    node = helper.make_node("DequantizeLinear", ["w", "s", "z"][:len(names)], ["y"], axis=axis)
    return ReferenceEvaluator(node).run(None, dict(zip(["w", "s", "z"], (tensors[name] for name in names))))[0]


def _weight_inputs(model) -> list[tuple]:
    """(weight, scale, zero point) input names of each node with an initializer weight, in graph order, for
    the slots the test models use."""
    slots = {"DequantizeLinear": [(0, 1, 2)], "MatMulInteger": [(1, None, 3)], "DynamicQuantizeLSTM": [(1, 8, 9), (2, 10, 11)]}
    found, initializers = [], _initializers(model)
    for node in model.graph.node:
        for weight, scale, zero_point in slots.get(node.op_type, []):
            name = lambda index: node.input[index] if index is not None and index < len(node.input) else ""  # noqa: E731
            if name(weight) in initializers:
                found.append((name(weight), name(scale), name(zero_point)))
    return found


def _assert_dequantized_alike(original, rewritten, axes: list[int]):
    """Every weight of `rewritten` dequantizes to exactly the values of the same weight of `original`."""
    before, after = _weight_inputs(original), _weight_inputs(rewritten)
    assert len(before) == len(after) == len(axes)
    for index, ((weight, scale, zero_point), (new_weight, new_scale, new_zero_point), axis) in enumerate(zip(before, after, axes)):
        if not scale:  # MatMulInteger has no scale: dequantize with ones in the zero point's shape
            shape = _initializers(original)[zero_point].shape if zero_point else ()
            for model in (original, rewritten):
                model.graph.initializer.append(numpy_helper.from_array(np.ones(shape, np.float32), f"unit_scale.{index}"))
            scale = new_scale = f"unit_scale.{index}"
        want = _dequantized(original, weight, scale, zero_point, axis)
        got = _dequantized(rewritten, new_weight, new_scale, new_zero_point, axis)
        np.testing.assert_array_equal(got, want)


def _qdq_model():
    """uint8 activations; a Conv with per-channel int8 weights (zero points not all 0), a MatMul with
    per-tensor int8 weights without a zero point, and a Gather from an int8 table (no U8S8 kernel)."""
    rng = np.random.default_rng(0)
    initializers = {
        "x_scale": np.float32(0.05), "x_zero": np.uint8(120),
        "conv_w": rng.integers(-128, 128, (3, 4, 3, 3)).astype(np.int8),
        "conv_scale": np.array([0.01, 0.02, 0.03], np.float32), "conv_zero": np.array([-3, 0, 5], np.int8),
        "dense_w": rng.integers(-128, 128, (27, 6)).astype(np.int8), "dense_scale": np.float32(0.004),
        "table": rng.integers(-128, 128, (10, 6)).astype(np.int8), "table_scale": np.float32(0.1),
        "table_zero": np.int8(7), "shape": np.array([1, 27], np.int64), "index": np.array([2], np.int64),
    }
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "x_scale", "x_zero"], ["xd"]),
        helper.make_node("DequantizeLinear", ["conv_w", "conv_scale", "conv_zero"], ["conv_wd"], axis=0),
        helper.make_node("Conv", ["xd", "conv_wd"], ["conv"]),
        helper.make_node("Reshape", ["conv", "shape"], ["flat"]),
        helper.make_node("DequantizeLinear", ["dense_w", "dense_scale"], ["dense_wd"]),
        helper.make_node("MatMul", ["flat", "dense_wd"], ["dense"]),
        helper.make_node("DequantizeLinear", ["table", "table_scale", "table_zero"], ["table_d"]),
        helper.make_node("Gather", ["table_d", "index"], ["row"]),
        helper.make_node("Add", ["dense", "row"], ["y"]),
    ]
    model = _model(nodes, [_tensor("x", TensorProto.FLOAT, [1, 4, 5, 5])], [_tensor("y", TensorProto.FLOAT, [1, 6])], initializers)
    return model, {"x": rng.standard_normal((1, 4, 5, 5)).astype(np.float32)}


def _integer_model():
    """MatMulInteger with per-column zero points, MatMulInteger without one, sharing its weight with a
    Cast (an int8 tensor read as data, which must stay int8), and a bidirectional DynamicQuantizeLSTM."""
    rng = np.random.default_rng(1)
    hidden = 3
    initializers = {
        "b": rng.integers(-128, 128, (8, 5)).astype(np.int8), "b_zero": rng.integers(-4, 4, (5,)).astype(np.int8),
        "c": rng.integers(-128, 128, (5, 4)).astype(np.int8),
        "W": rng.integers(-128, 128, (2, 4, 4 * hidden)).astype(np.int8), "W_scale": np.array([0.01, 0.02], np.float32),
        "W_zero": np.zeros(2, np.int8),
        "R": rng.integers(-128, 128, (2, hidden, 4 * hidden)).astype(np.int8), "R_scale": np.array([0.03, 0.01], np.float32),
        "R_zero": np.zeros(2, np.int8),
    }
    nodes = [
        helper.make_node("MatMulInteger", ["a", "b", "", "b_zero"], ["ab"]),
        helper.make_node("MatMulInteger", ["a2", "c"], ["ac"]),
        helper.make_node("Cast", ["c"], ["c_float"], to=TensorProto.FLOAT),
        helper.make_node("DynamicQuantizeLSTM", ["X", "W", "R", "", "", "", "", "", "W_scale", "W_zero", "R_scale", "R_zero"],
                         ["Y"], domain="com.microsoft", hidden_size=hidden, direction="bidirectional"),
    ]
    inputs = [_tensor("a", TensorProto.UINT8, [2, 8]), _tensor("a2", TensorProto.UINT8, [2, 5]),
              _tensor("X", TensorProto.FLOAT, [5, 1, 4])]
    outputs = [_tensor("ab", TensorProto.INT32, [2, 5]), _tensor("ac", TensorProto.INT32, [2, 4]),
               _tensor("c_float", TensorProto.FLOAT, [5, 4]), _tensor("Y", TensorProto.FLOAT, [5, 2, 1, hidden])]
    return _model(nodes, inputs, outputs, initializers)


def test_qdq_weights_dequantize_alike_and_only_fused_ones_change():
    model, _ = _qdq_model()
    before = model.SerializeToString()
    rewritten, rewrite = int8_weights_as_uint8(model)
    assert model.SerializeToString() == before  # a copy: the model given is untouched
    assert rewrite.nodes == {"DequantizeLinear": 2} and rewrite.left == []
    weights = _initializers(rewritten)
    assert weights["conv_w.uint8"].dtype == weights["conv_zero.uint8"].dtype == weights["dense_w.uint8"].dtype == np.uint8
    assert weights["table"].dtype == np.int8  # feeds a Gather: no U8S8 kernel reads it
    assert "conv_w" not in weights and "dense_w" not in weights  # read only through their copies
    _assert_dequantized_alike(model, rewritten, axes=[0, 1, 1])


def test_integer_weights_dequantize_alike_and_a_shared_one_stays_int8_for_its_other_reader():
    model = _integer_model()
    rewritten, rewrite = int8_weights_as_uint8(model)
    assert rewrite.nodes == {"MatMulInteger": 2, "DynamicQuantizeLSTM": 1} and rewrite.left == []
    weights = _initializers(rewritten)
    assert weights["c"].dtype == np.int8 and weights["c.uint8"].dtype == np.uint8  # the Cast still reads c
    assert weights["c.uint8_zero_point"].shape == () and weights["c.uint8_zero_point"] == 128
    _assert_dequantized_alike(model, rewritten, axes=[1, 1, 0, 0])
    feeds = {"a": np.full((2, 8), 255, np.uint8), "a2": np.full((2, 5), 3, np.uint8),
             "X": np.linspace(-1, 1, 20, dtype=np.float32).reshape(5, 1, 4)}
    want, got = (onnxruntime.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
                 for m in (model, rewritten))
    np.testing.assert_array_equal(got[2], want[2])  # the Cast's int8 values, as they were


def test_a_node_whose_weights_are_not_all_initializers_is_left_and_reported():
    model = _integer_model()
    node = model.graph.node[3]
    node.input[2] = "R_input"  # the recurrence weight is now computed, not an initializer
    model.graph.input.append(_tensor("R_input", TensorProto.INT8, [2, 3, 12]))
    rewritten, rewrite = int8_weights_as_uint8(model)
    assert rewrite.nodes == {"MatMulInteger": 2}
    assert rewrite.left == ["DynamicQuantizeLSTM Y: weight R_input is not an int8 initializer"]
    assert list(rewritten.graph.node[3].input) == list(node.input)


def _skip_unless_saturating():
    if not uint8_int8_saturation():
        pytest.skip("onnxruntime's uint8 x int8 kernels are exact on this CPU (the probe reads 0: AVX-VNNI or "
                    "not x86): the original already matches exact arithmetic, nothing to compare the rewrite against")


def test_onnxruntime_matches_exact_integer_arithmetic_on_the_rewritten_matmul_integer():
    _skip_unless_saturating()
    rng = np.random.default_rng(2)
    a = rng.integers(200, 256, (4, 64)).astype(np.uint8)
    b = rng.integers(100, 128, (64, 8)).astype(np.int8)
    b_zero = rng.integers(-3, 3, (8,)).astype(np.int8)
    model = _model([helper.make_node("MatMulInteger", ["a", "b", "", "b_zero"], ["y"])],
                   [_tensor("a", TensorProto.UINT8, [4, 64])], [_tensor("y", TensorProto.INT32, [4, 8])],
                   {"b": b, "b_zero": b_zero})
    exact = a.astype(np.int64) @ (b.astype(np.int64) - b_zero.astype(np.int64))
    original, rewritten = (onnxruntime.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
                           .run(None, {"a": a})[0] for m in (model, int8_weights_as_uint8(model)[0]))
    assert np.abs(original.astype(np.int64) - exact).max() > 0  # saturated
    np.testing.assert_array_equal(rewritten.astype(np.int64), exact)


def test_onnxruntime_matches_exact_integer_arithmetic_on_a_rewritten_qdq_matmul():
    """DequantizeLinear -> MatMul -> QuantizeLinear, which onnxruntime fuses into a QLinearMatMul. With
    power-of-two scales the requantization is exact too: y = round(a . w / 2^13), within uint8 here."""
    _skip_unless_saturating()
    rng = np.random.default_rng(3)
    a = rng.integers(200, 256, (4, 64)).astype(np.uint8)
    w = rng.integers(100, 128, (64, 8)).astype(np.int8)
    initializers = {"a_scale": np.float32(2 ** -4), "a_zero": np.uint8(0), "w": w,
                    "w_scale": np.full(8, 2 ** -6, np.float32), "w_zero": np.zeros(8, np.int8),
                    "y_scale": np.float32(8.0), "y_zero": np.uint8(0)}
    nodes = [helper.make_node("DequantizeLinear", ["a", "a_scale", "a_zero"], ["ad"]),
             helper.make_node("DequantizeLinear", ["w", "w_scale", "w_zero"], ["wd"], axis=1),
             helper.make_node("MatMul", ["ad", "wd"], ["yd"]),
             helper.make_node("QuantizeLinear", ["yd", "y_scale", "y_zero"], ["y"])]
    model = _model(nodes, [_tensor("a", TensorProto.UINT8, [4, 64])], [_tensor("y", TensorProto.UINT8, [4, 8])], initializers)
    exact = np.rint((a.astype(np.int64) @ w.astype(np.int64)) / 2 ** 13)
    assert exact.max() <= 255
    original, rewritten = (onnxruntime.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
                           .run(None, {"a": a})[0] for m in (model, int8_weights_as_uint8(model)[0]))
    assert np.abs(original.astype(np.int64) - exact).max() > 0  # the fused U8S8 kernel saturated
    np.testing.assert_array_equal(rewritten.astype(np.int64), exact)


def _saturating_conv_model():
    """QLinearConv of uint8 activations near 255 by int8 weights near 127: pairs of products beyond
    int16, where onnxruntime's u8s8 kernels saturate without AVX-VNNI."""
    rng = np.random.default_rng(5)
    initializers = {
        "x_scale": np.array(0.02, np.float32), "x_zero": np.array(0, np.uint8),
        "w": rng.integers(100, 128, (4, 8, 3, 3)).astype(np.int8), "w_scale": np.array(0.001, np.float32),
        "w_zero": np.array(0, np.int8), "y_scale": np.array(0.5, np.float32), "y_zero": np.array(0, np.uint8),
    }
    nodes = [helper.make_node("QLinearConv", ["x", "x_scale", "x_zero", "w", "w_scale", "w_zero", "y_scale", "y_zero"],
                              ["y"], kernel_shape=[3, 3])]
    return _model(nodes, [_tensor("x", TensorProto.UINT8, [1, 8, 6, 6])], [_tensor("y", TensorProto.UINT8, None)],
                  initializers)


def test_verify_compares_with_the_unsaturated_reference(tmp_path):
    """`verify` on this model reports a match (its reference is the rewritten model where the
    kernels saturate, with a warning saying so), and the original model's onnxruntime output would
    not match exact arithmetic there."""
    import subprocess
    import sys
    from pathlib import Path

    path = tmp_path / "conv.onnx"
    path.write_bytes(_saturating_conv_model().SerializeToString())
    inputs = tmp_path / "x.npy"
    np.save(inputs, np.random.default_rng(6).integers(230, 256, (1, 8, 6, 6)).astype(np.uint8))
    done = subprocess.run([str(Path(sys.executable).parent / "onnx-torch-mlir"), "verify", str(path), "--input",
                           f"x={inputs}"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 of 1 outputs match onnxruntime" in done.stdout
    saturating = bool(uint8_int8_saturation())
    assert ("the int8 weights of 1 QLinearConv as uint8" in done.stderr) == saturating, done.stderr
    if saturating:  # the original's onnxruntime output is off exact arithmetic here: what verify no longer reports
        session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        (original,) = session.run(None, {"x": np.load(inputs)})
        rewritten, _ = int8_weights_as_uint8(_saturating_conv_model())
        (unsaturated,) = onnxruntime.InferenceSession(rewritten.SerializeToString(),
                                                      providers=["CPUExecutionProvider"]).run(None, {"x": np.load(inputs)})
        assert np.abs(original.astype(np.int64) - unsaturated.astype(np.int64)).max() > 1
