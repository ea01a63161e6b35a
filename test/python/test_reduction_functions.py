"""Function-op expansion: which ops expand, and an expanded model computes the right numbers."""

import numpy as np
from onnx import TensorProto, helper

from onnx_torch_mlir.conversion.onnx_to_torch import lookup
from onnx_torch_mlir.conversion.onnx_to_torch.functions import expandable_ops


def test_expandable_ops_are_function_ops_without_a_pattern():
    ops = expandable_ops(24)
    assert {"Swish", "RMSNormalization", "RotaryEmbedding", "Attention", "Shrink"} <= set(ops)
    assert all(lookup("", op, 24) is None for op in ops)
    assert "ThresholdedRelu" not in ops  # a function op, but it has a pattern
    assert "Swish" not in expandable_ops(23)  # Swish is new in opset 24


def test_expanded_rms_normalization_runs(tmp_path):
    from onnx_torch_mlir import compile as compile_model
    from onnx_torch_mlir import runtime

    node = helper.make_node("RMSNormalization", ["x", "scale"], ["y"], axis=-1, epsilon=1e-5)
    graph = helper.make_graph(
        [node], "rms",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4]),
         helper.make_tensor_value_info("scale", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
    module = compile_model(model, "linalg-on-tensors", importer="ours", converter="ours")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    scale = rng.standard_normal(4).astype(np.float32)
    (y,) = runtime.run(module, [x, scale])
    expected = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-5) * scale
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)
