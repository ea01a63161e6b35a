"""Detector post-processing with data-dependent counts, for the TOSA and StableHLO lit tests:
`detector_models.py NAME OUT.onnx`.

- `detector`: boxes [1, 20, 4] and scores [1, 3, 20]; the boxes whose best score passes 0.5
  (NonZero, Gather), NonMaxSuppression on them (limit 5 per class), the kept boxes gathered again;
- `non_zero`: NonZero of a [2, 20] comparison, its count left open;
- `ultralytics`: as ultralytics exports `nms=True` (20 boxes, 3 classes, max_det 8): the candidates
  by NonZero, Transpose and GatherND, one class-offset NonMaxSuppression, the first max_det kept,
  zero-padded to a static [8, 6] by a Pad of max_det minus the run-time count.
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


def ultralytics(boxes=20, classes=3, max_det=8):
    n = helper.make_node
    nodes = [
        n("ReduceMax", ["scores"], ["score"], axes=[2], keepdims=0),
        n("ArgMax", ["scores"], ["best_class"], axis=2, keepdims=0),
        n("Greater", ["score", "conf"], ["mask"]),
        n("NonZero", ["mask"], ["positions"]),
        n("Transpose", ["positions"], ["index"], perm=[1, 0]),
        n("GatherND", ["boxes", "index"], ["box"]),
        n("GatherND", ["score", "index"], ["box_score"]),
        n("GatherND", ["best_class", "index"], ["box_class"]),
        n("Cast", ["box_class"], ["class_value"], to=TensorProto.FLOAT),
        n("Unsqueeze", ["class_value", "last"], ["class_column"]),
        n("Mul", ["class_column", "offset"], ["shift"]),
        n("Add", ["box", "shift"], ["shifted"]),
        n("Unsqueeze", ["shifted", "first"], ["nms_boxes"]),
        n("Unsqueeze", ["box_score", "first_two"], ["nms_scores"]),
        n("NonMaxSuppression", ["nms_boxes", "nms_scores", "max_det", "iou"], ["selected"]),
        n("Gather", ["selected", "two"], ["kept_all"], axis=1),
        n("Slice", ["kept_all", "first", "max_det"], ["kept"]),
        n("Gather", ["box", "kept"], ["kept_boxes"], axis=0),
        n("Gather", ["box_score", "kept"], ["kept_scores"], axis=0),
        n("Gather", ["class_value", "kept"], ["kept_classes"], axis=0),
        n("Unsqueeze", ["kept_scores", "last"], ["score_column"]),
        n("Unsqueeze", ["kept_classes", "last"], ["kept_class_column"]),
        n("Concat", ["kept_boxes", "score_column", "kept_class_column"], ["detections"], axis=1),
        n("Shape", ["detections"], ["shape"]),
        n("Gather", ["shape", "first"], ["count"], axis=0),
        n("Sub", ["max_det", "count"], ["missing"]),
        n("Concat", ["first", "first", "missing", "first"], ["pads"], axis=0),
        n("Pad", ["detections", "pads"], ["output"]),
    ]
    constants = {"conf": np.array(0.25, np.float32), "offset": np.array(7680.0, np.float32),
                 "last": np.array([-1], np.int64), "first": np.array([0], np.int64),
                 "first_two": np.array([0, 1], np.int64), "two": np.array(2, np.int64),
                 "max_det": np.array([max_det], np.int64), "iou": np.array([0.7], np.float32)}
    graph = helper.make_graph(
        nodes, "ultralytics",
        [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, boxes, 4]),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, boxes, classes])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [max_det, 6])],
        [numpy_helper.from_array(value, name) for name, value in constants.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


if __name__ == "__main__":
    models = {"detector": detector, "non_zero": non_zero, "ultralytics": ultralytics}
    onnx.save(models[sys.argv[1]](), sys.argv[2])
