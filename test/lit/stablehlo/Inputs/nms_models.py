"""NonMaxSuppression models whose selected_indices has a run-time row count, for the StableHLO lit
tests: `nms_models.py NAME OUT.onnx`."""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _nms(name, limit, outputs_after=()):
    """2 batches x 3 classes x 5 boxes, max_output_boxes_per_class the literal `limit`."""
    nodes = [helper.make_node("NonMaxSuppression", ["boxes", "scores", "limit"], ["selected"]), *outputs_after]
    output = ("count", TensorProto.INT64, [1]) if outputs_after else ("selected", TensorProto.INT64, ["n", 3])
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [2, 5, 4]),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT, [2, 3, 5])],
        [helper.make_tensor_value_info(*output)],
        [numpy_helper.from_array(np.array([limit], np.int64), "limit"),
         numpy_helper.from_array(np.array([0], np.int64), "first")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def limit_2():
    return _nms("limit_2", 2)


def count_only():
    """Only the number of rows leaves the graph: a static signature around a run-time count."""
    return _nms("count_only", 2, [helper.make_node("Shape", ["selected"], ["shape"]),
                                  helper.make_node("Gather", ["shape", "first"], ["count"], axis=0)])


if __name__ == "__main__":
    onnx.save(globals()[sys.argv[1]](), sys.argv[2])
