"""NonMaxSuppression whose selected rows an SSD's post-processing reads (Gather of columns,
GatherND of boxes and scores, RoiAlign of a feature map), for the TOSA lit tests:
`nms_downstream.py OUT.onnx`."""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def nms_downstream():
    """1 batch x 2 classes x 4 boxes, max_output_boxes_per_class 2: at most 4 rows."""
    n = helper.make_node
    nodes = [
        n("NonMaxSuppression", ["boxes", "scores", "limit"], ["selected"]),
        n("Gather", ["selected", "box_columns"], ["batch_box"], axis=1),
        n("GatherND", ["boxes", "batch_box"], ["detection_boxes"]),
        n("GatherND", ["scores", "selected"], ["detection_scores"]),
        n("Gather", ["selected", "batch_column"], ["batch_values"], axis=1),
        n("Squeeze", ["batch_values", "last_axis"], ["batch_indices"]),
        n("RoiAlign", ["features", "detection_boxes", "batch_indices"], ["pooled"], output_height=2, output_width=2,
          sampling_ratio=2),
    ]
    constants = {"limit": np.array([2], np.int64), "box_columns": np.array([0, 2], np.int64),
                 "batch_column": np.array([0], np.int64), "last_axis": np.array([-1], np.int64)}
    graph = helper.make_graph(
        nodes, "nms_downstream",
        [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, 4, 4]),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 2, 4]),
         helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("detection_scores", TensorProto.FLOAT, ["n"]),
         helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["n", 3, 2, 2])],
        [numpy_helper.from_array(value, name) for name, value in constants.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)], ir_version=8)


if __name__ == "__main__":
    onnx.save(nms_downstream(), sys.argv[1])
