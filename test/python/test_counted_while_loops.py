"""Loops whose condition counts: tf2onnx's form of a TF while_loop (a Keras LSTM/GRU, wild file
tf2onnx-keras-lstm-gru). No trip count; the initial condition is `0 < n` and the body yields
`i + 1 < n`, with `i` a carried int32 counter and `n` a carried value the body passes on
unchanged (both compared as floats after Casts); each iteration writes one row of a scan output.
When `n` is known at conversion time (a dim fixed with --dim) the number of iterations is too
(`control_flow/trip_count.py`), so TOSA and StableHLO unroll the loop."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnxruntime_reference import assert_matches, expected

FLOAT, INT32, INT64, BOOL = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64, TensorProto.BOOL


def _info(name, element, shape):
    return helper.make_tensor_value_info(name, element, shape)


def _const(name, array):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(array), name))


def tf2onnx_counted_loop(batch: int = 3, length: int = 5):
    """x [batch, length, 4] -> running sums h_t = h_{t-1} * 0.5 + x[:, t] as a tf2onnx while_loop:
    outputs the final h [batch, 4] and the last scan row (Slice [-1:] and Squeeze of the
    [length, batch, 4] scan output, as Keras' `return_sequences=False` does)."""
    body = helper.make_graph(
        [
            _const("one", np.int32(1)),
            _const("half", np.float32(0.5)),
            helper.make_node("Add", ["i_in", "one"], ["i_out"]),
            helper.make_node("Gather", ["xt", "i_in"], ["row"]),
            helper.make_node("Mul", ["h_in", "half"], ["decayed"]),
            helper.make_node("Add", ["decayed", "row"], ["h_out"]),
            helper.make_node("Identity", ["h_out"], ["scan_row"]),
            helper.make_node("Cast", ["i_out"], ["fi"], to=FLOAT),
            helper.make_node("Cast", ["n_in"], ["fn"], to=FLOAT),
            helper.make_node("Less", ["fi", "fn"], ["cond_out"]),
        ],
        "while_body",
        [_info("iteration", INT64, []), _info("cond_in", BOOL, []), _info("i_in", INT32, []),
         _info("h_in", FLOAT, ["batch", 4]), _info("n_in", INT32, [])],
        [_info("cond_out", BOOL, []), _info("i_out", INT32, []), _info("h_out", FLOAT, ["batch", 4]),
         _info("n_in", INT32, []), _info("scan_row", FLOAT, ["batch", 4])],
    )
    nodes = [
        helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0, 2]),
        helper.make_node("Shape", ["xt"], ["shape"]),
        helper.make_node("Cast", ["shape"], ["shape32"], to=INT32),
        _const("start", np.array([0], np.int64)),
        _const("end", np.array([1], np.int64)),
        helper.make_node("Slice", ["shape32", "start", "end", "start"], ["n1"]),
        helper.make_node("Squeeze", ["n1", "start"], ["n"]),
        _const("zero_f", np.float32(0)),
        _const("zero_i", np.int32(0)),
        helper.make_node("Cast", ["n"], ["fn0"], to=FLOAT),
        helper.make_node("Less", ["zero_f", "fn0"], ["cond0"]),
        helper.make_node("Gather", ["xt", "zero_i"], ["x0"]),
        helper.make_node("Sub", ["x0", "x0"], ["h0"]),
        helper.make_node("Loop", ["", "cond0", "zero_i", "h0", "n"], ["i_final", "h", "n_final", "rows"], body=body),
        _const("last", np.array([-1], np.int64)),
        _const("big", np.array([2**31 - 1], np.int64)),
        helper.make_node("Slice", ["rows", "last", "big", "start"], ["last_row1"]),
        helper.make_node("Squeeze", ["last_row1", "start"], ["last_row"]),
    ]
    graph = helper.make_graph(
        nodes, "tf2onnx_while", [_info("x", FLOAT, ["batch", "length", 4])],
        [_info("h", FLOAT, ["batch", 4]), _info("last_row", FLOAT, ["batch", 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)], ir_version=8)
    x = np.random.default_rng(length).standard_normal((batch, length, 4)).astype(np.float32)
    return model, [x]


@pytest.mark.parametrize("backend", ["tosa", "stablehlo"])
def test_counted_loop_unrolls_with_dims_fixed(backend):
    model, arrays = tf2onnx_counted_loop()
    module = onnx_torch_mlir.compile(model, backend, dims={"batch": 3, "length": 5})
    text = str(module)
    assert "tosa.while_loop" not in text and "stablehlo.while" not in text, "a counted loop is unrolled"
    assert_matches(runtime.run(module, arrays, input_dialect=backend), expected(model, arrays))


def test_counted_loop_linalg_dynamic():
    model, arrays = tf2onnx_counted_loop()
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    assert_matches(runtime.run(module, arrays, input_dialect="linalg-on-tensors"), expected(model, arrays))
