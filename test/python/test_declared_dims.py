"""A declared static dim that follows from a graph input's symbolic dim is not trusted.

torch's dynamo exporter types an nn.GRU's output [batch, 12, 32] for a sequence exported at 12 and
declared dynamic; compiled with 12, the program read past its data at every other length (NaN and
garbage, the zoo's gru/lstm-text-dynamo-dynamic). The importer keeps the input's symbolic dim there."""

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime


def _model_declaring_the_export_size() -> onnx.ModelProto:
    nodes = [
        helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0, 2]),
        helper.make_node("Tanh", ["t"], ["h"]),
        helper.make_node("Transpose", ["h"], ["back"], perm=[1, 0, 2]),
        helper.make_node("ReduceSum", ["back", "axes"], ["y"], keepdims=0),
    ]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "sequence", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor("axes", TensorProto.INT64, [1], [1])],
        value_info=[  # what the exporter wrote: the example's sequence length, 12
            helper.make_tensor_value_info("t", TensorProto.FLOAT, [12, "batch", 4]),
            helper.make_tensor_value_info("h", TensorProto.FLOAT, [12, "batch", 4]),
            helper.make_tensor_value_info("back", TensorProto.FLOAT, ["batch", 12, 4]),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)


def test_declared_example_size_on_a_symbolic_dim_is_released():
    model = _model_declaring_the_export_size()
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for sequence in (12, 5, 20):
        x = np.random.default_rng(sequence).standard_normal((3, sequence, 4), dtype=np.float32)
        (expected,) = session.run(None, {"x": x})
        (got,) = runtime.run(module, [x])
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5, err_msg=f"sequence {sequence}")
    assert model.graph.value_info[0].type.tensor_type.shape.dim[0].dim_value == 12  # the caller's model is untouched
