"""Detector post-processing with data-dependent counts, for the TOSA and StableHLO lit tests:
`detector_models.py NAME OUT.onnx`.

- `detector`: boxes [1, 20, 4] and scores [1, 3, 20]; the boxes whose best score passes 0.5
  (NonZero, Gather), NonMaxSuppression on them (limit 5 per class), the kept boxes gathered again;
- `non_zero`: NonZero of a [2, 20] comparison, its count left open.
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def detector():
    n = helper.make_node
    nodes = [
        n("ReduceMax", ["scores"], ["best"], axes=[1], keepdims=0),
        n("Greater", ["best", "threshold"], ["passes"]),
        n("NonZero", ["passes"], ["positions"]),
        n("Gather", ["positions", "one"], ["columns"], axis=0),
        n("Gather", ["boxes", "columns"], ["candidate_boxes"], axis=1),
        n("Gather", ["scores", "columns"], ["candidate_scores"], axis=2),
        n("NonMaxSuppression", ["candidate_boxes", "candidate_scores", "limit", "iou", "threshold_1d"], ["selected"]),
        n("Gather", ["selected", "two"], ["kept"], axis=1),
        n("Gather", ["candidate_boxes", "kept"], ["detections"], axis=1),
    ]
    constants = {"threshold": np.array(0.5, np.float32), "threshold_1d": np.array([0.5], np.float32),
                 "one": np.array(1, np.int64), "two": np.array(2, np.int64), "limit": np.array([5], np.int64),
                 "iou": np.array([0.5], np.float32)}
    graph = helper.make_graph(
        nodes, "detector",
        [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, 20, 4]),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 3, 20])],
        [helper.make_tensor_value_info("selected", TensorProto.INT64, [None, 3]),
         helper.make_tensor_value_info("detections", TensorProto.FLOAT, [1, None, 4])],
        [numpy_helper.from_array(value, name) for name, value in constants.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def non_zero():
    graph = helper.make_graph(
        [helper.make_node("Greater", ["x", "threshold"], ["mask"]), helper.make_node("NonZero", ["mask"], ["y"])],
        "non_zero", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 20])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, [2, None])],
        [numpy_helper.from_array(np.array(0.5, np.float32), "threshold")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


if __name__ == "__main__":
    onnx.save({"detector": detector, "non_zero": non_zero}[sys.argv[1]](), sys.argv[2])
