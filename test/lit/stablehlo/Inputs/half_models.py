"""Half-precision models for the StableHLO lit tests: `half_models.py NAME OUT.onnx`."""

import sys

import onnx
from onnx import TensorProto, helper


def conv_f16():
    """Conv of a [1, 16, 6, 6] f16 input by a [8, 16, 3, 3] f16 weight."""
    node = helper.make_node("Conv", ["x", "w"], ["y"])
    graph = helper.make_graph(
        [node], "conv_f16",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [1, 16, 6, 6]),
         helper.make_tensor_value_info("w", TensorProto.FLOAT16, [8, 16, 3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [1, 8, 4, 4])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


if __name__ == "__main__":
    onnx.save(globals()[sys.argv[1]](), sys.argv[2])
