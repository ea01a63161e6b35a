"""The reference runner's `stablehlo.sort` (runtime/stablehlo_sort.py): TopK with a k above what
the conversion selects element by element reaches StableHLO as a sort, which the runner lowers
to loops; compared with onnxruntime, ties included (ONNX: the lower index first)."""

from __future__ import annotations

import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime


def _top_k_model(shape, k: int, axis: int, largest: int):
    out_shape = list(shape)
    out_shape[axis] = k
    node = helper.make_node("TopK", ["x", "k"], ["values", "indices"], axis=axis, largest=largest)
    graph = helper.make_graph(
        [node], "top_k", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
        [helper.make_tensor_value_info("values", TensorProto.FLOAT, out_shape),
         helper.make_tensor_value_info("indices", TensorProto.INT64, out_shape)],
        [numpy_helper.from_array(np.array([k], np.int64), "k")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], ir_version=10)


@pytest.mark.parametrize("shape, k, axis, largest", [((1, 128), 32, 1, 1), ((3, 20, 2), 12, 1, 0), ((24, 3), 10, 0, 1)])
def test_sorting_top_k_matches_onnxruntime(shape, k, axis, largest):
    x = np.random.default_rng(k).choice(np.linspace(-2, 2, 9), shape).astype(np.float32)  # many ties
    model = _top_k_model(shape, k, axis, largest)
    module = onnx_torch_mlir.compile(model, "stablehlo")
    assert "stablehlo.sort" in str(module)
    expected = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})
    outputs = runtime.run(module, [x], input_dialect="stablehlo")
    for got, want in zip(outputs, expected):
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)
