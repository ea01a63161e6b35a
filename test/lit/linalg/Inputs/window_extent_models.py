"""Convolutions and pools whose windows stop short of the input's end, for the Linalg window-extent
lit test: `window_extent_models.py NAME OUT.onnx`."""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _model(node, input_shape, initializers=()):
    graph = helper.make_graph(
        [node], "windows", [helper.make_tensor_value_info("x", TensorProto.FLOAT, input_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _weight(shape):
    return numpy_helper.from_array(np.random.default_rng(0).standard_normal(shape).astype(np.float32), "w")


def strided_1d():
    """A voice-activity detector's encoder layer: length 4, kernel 3, stride 2 (one window, positions 0..2)."""
    return _model(helper.make_node("Conv", ["x", "w"], ["y"], strides=[2]), [1, 3, 4], [_weight((5, 3, 3))])


def padded_dilated_2d():
    """8x8 padded by 1 (10x10), a 2x2 kernel dilated by 2, stride 2: windows read 9x9."""
    return _model(helper.make_node("Conv", ["x", "w"], ["y"], strides=[2, 2], dilations=[2, 2], pads=[1, 1, 1, 1]),
                  [1, 3, 8, 8], [_weight((4, 3, 2, 2))])


def exact_windows():
    """9x9, kernel 3, stride 2: the last window ends at the input's end."""
    return _model(helper.make_node("Conv", ["x", "w"], ["y"], strides=[2, 2]), [1, 3, 9, 9], [_weight((4, 3, 3, 3))])


def dynamic_length():
    """Kernel 3, stride 2 on a dynamic batch and length."""
    return _model(helper.make_node("Conv", ["x", "w"], ["y"], strides=[2]), ["N", 3, "L"], [_weight((5, 3, 3))])


def stride_one_dynamic():
    """A padded 3x3 convolution at stride 1 on a dynamic image size: its windows reach the end."""
    return _model(helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1]), ["N", 3, "H", "W"],
                  [_weight((4, 3, 3, 3))])


def dynamic_batch():
    """Kernel 3, stride 2 on length 4 with a dynamic batch."""
    return _model(helper.make_node("Conv", ["x", "w"], ["y"], strides=[2]), ["N", 3, 4], [_weight((5, 3, 3))])


def max_pool():
    """A 3x3 max pool at stride 2 on 4x4."""
    return _model(helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2]), [1, 3, 4, 4])


MODELS = {function.__name__: function
          for function in (strided_1d, padded_dilated_2d, exact_windows, dynamic_length, stride_one_dynamic, dynamic_batch, max_pool)}

if __name__ == "__main__":
    onnx.save(MODELS[sys.argv[1]](), sys.argv[2])
