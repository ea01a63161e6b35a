"""Small ONNX models the importer tests build (shared by several test files)."""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def linear_model(weight_rows: int = 300, opset: int = 17) -> onnx.ModelProto:
    """y = LeakyRelu(Gemm(x + w, big^T)); `big` is large enough to be a resource."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    initializers = [
        numpy_helper.from_array(np.arange(3, dtype=np.float32).reshape(1, 3), "w"),
        numpy_helper.from_array(np.arange(weight_rows * 3, dtype=np.float32).reshape(weight_rows, 3), "big"),
    ]
    nodes = [
        helper.make_node("Add", ["x", "w"], ["a"], name="add0"),
        helper.make_node("Gemm", ["a", "big"], ["g"], name="gemm", transB=1, alpha=2.0),
        helper.make_node("LeakyRelu", ["g"], ["y"], name="relu", alpha=0.1),
    ]
    graph = helper.make_graph(nodes, "linear", [x], [y], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="tests")


def save_with_external_data(model: onnx.ModelProto, directory, location: str = "weights.bin"):
    path = directory / "model.onnx"
    onnx.save(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True, location=location, size_threshold=64)
    return path


def single_node_model(node: onnx.NodeProto, inputs, outputs, initializers=(), opset: int = 17, domains=()) -> onnx.ModelProto:
    graph = helper.make_graph([node], "single", inputs, outputs, list(initializers))
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(domain, 1) for domain in domains]
    return helper.make_model(graph, opset_imports=opsets)
