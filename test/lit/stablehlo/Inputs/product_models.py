"""Matrix-product models for the StableHLO lit tests: `product_models.py NAME OUT.onnx`."""

import sys

import onnx
from onnx import TensorProto, helper


def _model(name, nodes, inputs):
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def by_a_matrix():
    """MatMul of [2, 2, 2, 128] rows (ConvNeXt's NHWC image) by a [128, 512] matrix."""
    return _model("by_a_matrix", [helper.make_node("MatMul", ["x", "w"], ["y"])], [("x", [2, 2, 2, 128]), ("w", [128, 512])])


def two_batches():
    """MatMul of [3, 5, 8] by [3, 8, 6] (attention's scores): no matrix to take."""
    return _model("two_batches", [helper.make_node("MatMul", ["a", "b"], ["y"])], [("a", [3, 5, 8]), ("b", [3, 8, 6])])


if __name__ == "__main__":
    onnx.save(globals()[sys.argv[1]](), sys.argv[2])
