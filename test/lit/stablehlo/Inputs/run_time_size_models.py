"""Models whose sizes are read from tensors at run time, for the StableHLO lit tests:
`run_time_size_models.py NAME OUT.onnx`."""

import sys

import onnx
from onnx import TensorProto, helper


def range_of_run_time_limit():
    """Range(0, limit, 1) of a float limit input."""
    node = helper.make_node("Range", ["start", "limit", "delta"], ["y"])
    graph = helper.make_graph(
        [node], "range_of_run_time_limit", [helper.make_tensor_value_info("limit", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None])],
        [helper.make_tensor("start", TensorProto.FLOAT, [], [0.0]),
         helper.make_tensor("delta", TensorProto.FLOAT, [], [1.0])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def pad_of_run_time_amounts():
    """Pad of a [4, 5] input by a `pads` input, fill value 7."""
    node = helper.make_node("Pad", ["x", "pads", "value"], ["y"])
    graph = helper.make_graph(
        [node], "pad_of_run_time_amounts",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 5]),
         helper.make_tensor_value_info("pads", TensorProto.INT64, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, None])],
        [helper.make_tensor("value", TensorProto.FLOAT, [], [7.0])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)


def upsample_by_run_time_scales():
    """Upsample (nearest) of a [1, 2, 3, 4] input by a `scales` input, declared [1, 2, 6, 6]."""
    node = helper.make_node("Upsample", ["x", "scales"], ["y"], mode="nearest")
    graph = helper.make_graph(
        [node], "upsample_by_run_time_scales",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 4]),
         helper.make_tensor_value_info("scales", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 6, 6])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)], ir_version=8)


if __name__ == "__main__":
    onnx.save(globals()[sys.argv[1]](), sys.argv[2])
