"""A `torch.tensor_static_info_cast` that makes a run-time dim static on StableHLO
(`transforms/stablehlo/torch_forms.py:run_time_static_info_casts_as_tensor_casts`): a GRU whose X
has a run-time batch and whose initial state input a batch of 1 (Microsoft's AECMOS models) reads
each new [?, H] state as [1, H]; torch-mlir's StableHLO lowering has no pattern for that cast."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.runtime.iree import compile_with_iree
from onnxruntime_reference import assert_matches, expected


def gru_with_static_initial_state():
    hidden, features = 3, 4
    rng = np.random.default_rng(0)
    weights = [numpy_helper.from_array(rng.standard_normal((1, 3 * hidden, features)).astype(np.float32), "W"),
               numpy_helper.from_array(rng.standard_normal((1, 3 * hidden, hidden)).astype(np.float32), "R")]
    node = helper.make_node("GRU", ["x", "W", "R", "", "", "h0"], ["y", "h"], hidden_size=hidden,
                            linear_before_reset=1)
    graph = helper.make_graph(
        [node], "gru",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, "B", features]),
         helper.make_tensor_value_info("h0", TensorProto.FLOAT, [1, 1, hidden])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("h", TensorProto.FLOAT, None)],
        initializer=weights,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=8)
    arrays = [rng.standard_normal((2, 1, features)).astype(np.float32),
              rng.standard_normal((1, 1, hidden)).astype(np.float32)]
    return model, arrays


def test_gru_state_of_static_batch_compiles_on_stablehlo():
    model, arrays = gru_with_static_initial_state()
    module = onnx_torch_mlir.compile(model, "stablehlo")
    wanted = expected(model, arrays)
    assert_matches(runtime.run(module, arrays, input_dialect="stablehlo"), wanted)
    assert_matches(compile_with_iree(module, "stablehlo")(*arrays), wanted)
