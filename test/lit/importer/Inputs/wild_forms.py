"""Writes a small model in a form other people's tools write: `wild_forms.py NAME OUT.onnx`."""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def minus_one_dims():
    """paddle2onnx's `dim_value: -1` for dynamic dims, in an input, a value_info and the output."""
    scale = numpy_helper.from_array(np.array([0.5, -1.0, 2.0], np.float32).reshape(1, 3, 1, 1), "scale")
    nodes = [helper.make_node("Mul", ["x", "scale"], ["scaled"]), helper.make_node("Relu", ["scaled"], ["y"])]
    graph = helper.make_graph(
        nodes, "paddle", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, -1, -1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [-1, 3, -1, -1])], [scale],
        value_info=[helper.make_tensor_value_info("scaled", TensorProto.FLOAT, [-1, 3, -1, -1])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


MODELS = {f.__name__: f for f in (minus_one_dims,)}

if __name__ == "__main__":
    name, output = sys.argv[1], sys.argv[2]
    onnx.save(MODELS[name](), output)
